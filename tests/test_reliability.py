"""Faults around a build: interrupted runs and failed writes leave the previous graph intact."""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
import time

from typer.testing import CliRunner

from kg.builder import build
from kg.cli import app, exit_code
from kg.errors import ExportError
from kg.io.format import GRAPH_FILE
from kg.io.generations import LOCK, META

from .conftest import PAPERS, SAMPLE, need, patience


def snapshot(folder):
    return {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}


def test_disk_full_keeps_previous_graph(tmp_path, monkeypatch):
    build([str(SAMPLE)], tmp_path)
    before = snapshot(tmp_path)
    real_fsync = os.fsync

    def full(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    res = CliRunner().invoke(app, ["build", str(SAMPLE), "-o", str(tmp_path), "--fresh"])
    monkeypatch.setattr(os, "fsync", real_fsync)
    assert isinstance(res.exception, ExportError) and exit_code(res.exception) == 4
    assert "No space left" in str(res.exception)
    assert snapshot(tmp_path) == before


def test_unwritable_output_is_a_clean_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    proc = subprocess.run([sys.executable, "-m", "kg.cli", "build", str(SAMPLE), "-o", str(blocker / "g")],
                          capture_output=True, text=True)
    assert proc.returncode == 4, proc.stderr
    assert "Traceback" not in proc.stderr and "kg: error:" in proc.stderr


def test_ctrl_c_during_build_leaves_previous_graph(tmp_path):
    big = need(PAPERS / "icml2024.jsonl")
    build([str(SAMPLE)], tmp_path)
    before = snapshot(tmp_path)
    proc = subprocess.Popen([sys.executable, "-m", "kg.cli", "build", str(big), "-o", str(tmp_path)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))  # as a terminal would
    lock = tmp_path / META / LOCK
    deadline = time.monotonic() + patience(300)
    while lock.read_text(encoding="ascii").strip() != f"pid {proc.pid}":  # the handshake: it holds the folder
        assert proc.poll() is None, proc.communicate()[1]
        assert time.monotonic() < deadline, "waited for the build to take the folder's lock"
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=patience(120))
    assert proc.returncode == 130, err
    assert "interrupted" in err and "Traceback" not in err
    assert snapshot(tmp_path) == before
    assert (tmp_path / GRAPH_FILE).exists()
