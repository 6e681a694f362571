"""``kg info``, shell completion and the help's value names, through the installed entry point
(``kg.cli.main``, which tidies the help) as a user runs it."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys

from ..conftest import SAMPLE

KG = [sys.executable, "-c", "from kg.cli import main; main()"]


def kg(*args: str, env: dict | None = None, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([*KG, *args], capture_output=True, text=True, cwd=cwd,
                          env={**os.environ, "COLUMNS": "160", **(env or {})})


def test_info_finds_graphs_and_says_whether_neo4j_answers(tmp_path):
    assert kg("build", str(SAMPLE), "-g", str(tmp_path / "runs" / "sample")).returncode == 0
    (tmp_path / "empty").mkdir()
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        closed = s.getsockname()[1]
    res = kg("info", str(tmp_path), "--json", "--uri", f"bolt://127.0.0.1:{closed}")
    assert res.returncode == 0, res.stderr
    report = json.loads(res.stdout)
    assert [(g["folder"], g["papers"]) for g in report["graphs"]] == [(str(tmp_path / "runs" / "sample"), 8)]
    assert report["neo4j"]["reachable"] is False and report["data"]["span_model"]
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        up = kg("info", str(tmp_path / "empty"), "--uri", f"bolt://127.0.0.1:{s.getsockname()[1]}")
    assert up.returncode == 0 and "reachable" in up.stdout and "not reachable" not in up.stdout
    assert "graphs under" in up.stdout and "none" in up.stdout


def test_help_names_values_and_choices_and_never_types_a_flag():
    for command in ("build", "export", "sparql", "stats", "info"):
        res = kg(command, "--help")
        assert res.returncode == 0, (command, res.stderr)
        assert "<bool>" not in res.stdout and "<str>" not in res.stdout, command
    assert "ttl|nt|jsonld|graphml|neo4j-csv" in kg("export", "--help").stdout
    assert "PATH" in kg("build", "--help").stdout


def test_shell_completion_completes_commands():
    env = {"_KG_COMPLETE": "complete_bash", "COMP_WORDS": "kg spa", "COMP_CWORD": "1"}
    res = subprocess.run([*KG], capture_output=True, text=True, env={**os.environ, **env})
    assert res.stdout.split() == ["sparql"], res.stderr
    # the script --install-completion writes (whatever shell runs the tests: --show-completion
    # detects the parent shell, which is sh under make)
    script = subprocess.run([*KG], capture_output=True, text=True, env={**os.environ, "_KG_COMPLETE": "source_bash"})
    assert "_kg_completion()" in script.stdout and "complete " in script.stdout
