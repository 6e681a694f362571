"""A build never destroys what it cannot account for: a lost or redirected ``current`` link, a
lock file that is a link, a user's own files in the output folder, an empty output path."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from kg.builder import build
from kg.cli import exit_code
from kg.errors import GraphDamaged, UsageError
from kg.io.format import EXTRACTIONS_FILE, GRAPH_FILE, MANIFEST_FILE
from kg.io.generations import CURRENT, LOCK, META, current, locked

from ..conftest import SAMPLE, SEED, need

FILES = (GRAPH_FILE, EXTRACTIONS_FILE, MANIFEST_FILE)
ENV = {**os.environ, "KG_SPANS": "off", "KG_ENCODER": "off"}  # rules only: quick


@pytest.fixture(autouse=True)
def rules_only(monkeypatch):
    monkeypatch.setenv("KG_SPANS", "off")
    monkeypatch.setenv("KG_ENCODER", "off")


@pytest.fixture(scope="module")
def two_generations(tmp_path_factory) -> Path:
    """A folder built twice: g000001 (the sample) and g000002 (the sample and the seed list)."""
    mp = pytest.MonkeyPatch()
    mp.setenv("KG_SPANS", "off")
    mp.setenv("KG_ENCODER", "off")
    g = tmp_path_factory.mktemp("two") / "g"
    build([str(SAMPLE)], g)
    build([str(need(SEED))], g)
    mp.undo()
    assert current(g).name == "g000002"
    return g


def generations(folder: Path) -> dict[str, dict[str, bytes]]:
    return {p.name: {n: (p / n).read_bytes() for n in FILES}
            for p in sorted((folder / META).glob("g[0-9]*"))}


def other_papers(tmp_path: Path) -> Path:
    p = tmp_path / "c.txt"
    p.write_text("ICML 2026\n\nWe propose ZetaNet, a sparse transformer for image classification.\n",
                 encoding="utf-8")
    return p


LINK_DAMAGE = {
    "deleted": lambda meta: None,
    "dangling": lambda meta: os.symlink("g000009", meta / CURRENT),
    "a loop": lambda meta: os.symlink(CURRENT, meta / CURRENT),
    "an older generation": lambda meta: os.symlink("g000001", meta / CURRENT),
    "outside the folder": lambda meta: os.symlink(str(meta.parent.parent / "elsewhere" / META / "g000002"),
                                                  meta / CURRENT),
    "a relative path out": lambda meta: os.symlink("../../elsewhere/.kg/g000002", meta / CURRENT),
}


@pytest.mark.parametrize("damage", list(LINK_DAMAGE))
def test_a_build_over_a_lost_or_redirected_current_link_deletes_nothing(two_generations, tmp_path, damage):
    g = tmp_path / "g"
    shutil.copytree(two_generations, g, symlinks=True)
    shutil.copytree(two_generations, tmp_path / "elsewhere", symlinks=True)
    before = generations(g)
    (g / META / CURRENT).unlink()
    LINK_DAMAGE[damage](g / META)
    with pytest.raises(GraphDamaged) as info:
        build([str(other_papers(tmp_path))], g)
    assert exit_code(info.value) == 2
    assert "ln -sfn g000002" in str(info.value), str(info.value)
    assert generations(g) == before  # both generations intact, no new one
    assert (tmp_path / "elsewhere" / META / "g000002").is_dir()


def test_kg_build_over_a_deleted_link_exits_2_and_keeps_the_graph(two_generations, tmp_path):
    g = tmp_path / "g"
    shutil.copytree(two_generations, g, symlinks=True)
    before = generations(g)
    (g / META / CURRENT).unlink()
    proc = subprocess.run([sys.executable, "-m", "kg.cli", "build", str(other_papers(tmp_path)), "-o", str(g)],
                          capture_output=True, text=True, env=ENV, timeout=600)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    assert "is missing" in proc.stderr and "ln -sfn g000002" in proc.stderr
    assert generations(g) == before
    os.symlink("g000002", g / META / CURRENT)  # the advice restores the folder
    stats = subprocess.run([sys.executable, "-m", "kg.cli", "stats", "-g", str(g), "--json"],
                           capture_output=True, text=True, env=ENV, timeout=600)
    assert stats.returncode == 0, stats.stderr


def test_a_reader_of_a_folder_whose_link_is_lost_is_told_so(two_generations, tmp_path):
    g = tmp_path / "g"
    shutil.copytree(two_generations, g, symlinks=True)
    (g / META / CURRENT).unlink()
    with pytest.raises(GraphDamaged, match="is missing"):
        current(g)


def test_going_back_to_the_older_generation_is_possible_once_the_newer_is_removed(two_generations, tmp_path):
    g = tmp_path / "g"
    shutil.copytree(two_generations, g, symlinks=True)
    (g / META / CURRENT).unlink()
    os.symlink("g000001", g / META / CURRENT)
    shutil.rmtree(g / META / "g000002")
    result = build([str(other_papers(tmp_path))], g)
    assert result.manifest["papers"] == 9  # the sample's eight and the new one


def test_a_killed_first_build_is_not_taken_for_a_lost_link(tmp_path):
    """A generation no build made current (a killed build's) is still removed by the next."""
    g = tmp_path / "g"
    (g / META / "g000001").mkdir(parents=True)
    (g / META / "g000001" / GRAPH_FILE).write_text("{", encoding="utf-8")
    assert current(g) == g
    build([str(SAMPLE)], g)
    assert current(g).name == "g000002" and not (g / META / "g000001").exists()


# ---------------------------------------------------------------- the lock


@pytest.mark.parametrize("kind", ["symbolic link", "hard link"])
def test_a_lock_that_is_a_link_is_refused_and_its_target_untouched(tmp_path, kind):
    g = tmp_path / "g"
    (g / META).mkdir(parents=True)
    victim = tmp_path / "precious.txt"
    victim.write_text("keep me\n", encoding="utf-8")
    (os.symlink if kind == "symbolic link" else os.link)(victim, g / META / LOCK)
    with pytest.raises(GraphDamaged, match="lock"):
        build([str(SAMPLE)], g)
    assert victim.read_text(encoding="utf-8") == "keep me\n"


def test_a_lock_that_is_a_fifo_is_refused_without_blocking(tmp_path):
    g = tmp_path / "g"
    (g / META).mkdir(parents=True)
    os.mkfifo(g / META / LOCK)
    with pytest.raises(GraphDamaged, match="not a plain file"), locked(g):
        pass


# ---------------------------------------------------------------- the user's files


@pytest.mark.parametrize("name", FILES)
def test_a_users_own_file_in_the_output_folder_is_not_replaced(tmp_path, name):
    g = tmp_path / "project"
    g.mkdir()
    (g / name).write_text('{"name": "my project"}\n', encoding="utf-8")
    with pytest.raises(UsageError, match="not a file kg wrote") as info:
        build([str(SAMPLE)], g)
    assert exit_code(info.value) == 2
    assert (g / name).read_text(encoding="utf-8") == '{"name": "my project"}\n'
    assert not (g / META / "g000001").exists()


def test_a_users_file_put_into_a_built_folder_is_not_replaced(two_generations, tmp_path):
    g = tmp_path / "g"
    shutil.copytree(two_generations, g, symlinks=True)
    (g / MANIFEST_FILE).unlink()
    (g / MANIFEST_FILE).write_text("mine\n", encoding="utf-8")
    with pytest.raises(UsageError):
        build([str(other_papers(tmp_path))], g)
    assert (g / MANIFEST_FILE).read_text(encoding="utf-8") == "mine\n"


def test_a_users_cache_named_files_and_temporary_files_survive_a_build(tmp_path):
    g = tmp_path / "g"
    g.mkdir()
    for name in ("graph.nt", "state.pickle", ".draft.tmp", ".graph.ttl.abc.tmp"):
        (g / name).write_text("mine\n", encoding="utf-8")
    build([str(SAMPLE)], g)
    build([str(need(SEED))], g)
    for name in ("graph.nt", "state.pickle", ".draft.tmp", ".graph.ttl.abc.tmp"):
        assert (g / name).read_text(encoding="utf-8") == "mine\n", name


def test_a_folder_copied_without_links_still_builds(two_generations, tmp_path):
    g = tmp_path / "g"
    shutil.copytree(two_generations, g)  # links followed: files and a current directory
    result = build([str(other_papers(tmp_path))], g)
    assert result.manifest["papers"] == 28 and (g / GRAPH_FILE).is_symlink()


def test_an_empty_output_path_is_refused(tmp_path, monkeypatch):
    import kg

    monkeypatch.chdir(tmp_path)
    with pytest.raises(UsageError, match="empty"):
        kg.build([SAMPLE], out="")
    assert not list(tmp_path.iterdir())


def test_kg_build_refuses_an_empty_output_path(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from kg.cli import app

    monkeypatch.chdir(tmp_path)
    res = CliRunner().invoke(app, ["build", str(SAMPLE), "-o", ""])
    assert res.exit_code == 2 and "empty path" in res.output
    assert not list(tmp_path.iterdir())


# ---------------------------------------------------------------- workers of a killed build

HOLDER = """
import os, sys, multiprocessing as mp
from concurrent.futures import ProcessPoolExecutor
from kg.io.generations import locked

def pid(_):
    return os.getpid()

if __name__ == "__main__":
    with locked(sys.argv[1]):
        # the pool kg's extraction uses: forked workers, started while the lock is held
        with ProcessPoolExecutor(2, mp_context=mp.get_context("fork")) as pool:
            pids = set(pool.map(pid, range(64), chunksize=1))
            print(" ".join(map(str, sorted(pids))), flush=True)
            sys.stdin.read()  # holds the lock until killed
"""


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as fh:
            return fh.read().rpartition(")")[2].split()[0] != "Z"
    except FileNotFoundError:
        return False


def wait_until(condition, what: str, timeout: float = 120) -> None:
    """Poll ``condition`` until it holds; fail naming ``what`` after ``timeout`` seconds."""
    import time

    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {timeout:.0f} s for {what}")
        time.sleep(0.05)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="workers die with their parent on Linux")
@pytest.mark.parametrize("sig", ["SIGKILL", "SIGTERM"])
def test_workers_of_a_killed_build_die_and_leave_the_folder_free(tmp_path, sig):
    import signal

    g = tmp_path / "g"
    script = tmp_path / "holder.py"
    script.write_text(HOLDER, encoding="utf-8")
    proc = subprocess.Popen([sys.executable, str(script), str(g)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True, env=ENV)
    workers: list[int] = []
    try:
        workers = [int(p) for p in proc.stdout.readline().split()]  # the handshake: pool running
        assert workers and all(alive(p) for p in workers)
        with pytest.raises(Exception, match="being written by another build"), locked(g):
            pass
        proc.send_signal(getattr(signal, sig))
        proc.wait(timeout=120)
        wait_until(lambda: not any(alive(p) for p in workers), "the workers to die with their parent")
        with locked(g):  # free at once: no worker kept it
            pass
    finally:
        proc.kill()
        proc.wait()
        for p in filter(alive, workers):  # orphans of a failed run: not left behind
            os.kill(p, signal.SIGKILL)
