"""A graph folder under concurrency, crashes and damage: one writer at a time, one commit point,
checked files. Builds run as separate processes, as users run them."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import kg.sinks as sinks
from kg.io.format import EXTRACTIONS_FILE, GRAPH_FILE, MANIFEST_FILE
from kg.io.generations import CURRENT, META, current, locked
from kg.sinks.rdf import terms

from ..conftest import PAPERS, SAMPLE, SEED, need, patience

ENV = {**os.environ, "SOURCE_DATE_EPOCH": "0", "KG_SPANS": "off"}  # rules only: quick to start
FILES = (GRAPH_FILE, EXTRACTIONS_FILE, MANIFEST_FILE)


def kg(*args: str, check: int | None = 0, **kw) -> subprocess.CompletedProcess:
    proc = subprocess.run([sys.executable, "-m", "kg.cli", *args], capture_output=True, text=True, env=ENV, **kw)
    if check is not None:
        assert proc.returncode == check, proc.stderr
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


def start(*args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "kg.cli", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=ENV)


def contents(folder: Path) -> dict[str, bytes]:
    return {n: (folder / n).read_bytes() for n in FILES}


def split_jsonl(src: Path, out: Path, n: int, limit: int | None = None) -> list[Path]:
    """``src``'s first ``limit`` records dealt into ``n`` files."""
    lines = [line for line in src.read_text(encoding="utf-8").splitlines() if line.strip()][:limit]
    out.mkdir(parents=True, exist_ok=True)
    parts = []
    for i in range(n):
        p = out / f"part{i:02d}.jsonl"
        p.write_text("\n".join(lines[i::n]) + "\n", encoding="utf-8")
        parts.append(p)
    return parts


# ---------------------------------------------------------------- one writer at a time


def test_a_second_build_exits_with_a_clear_message_and_changes_nothing(tmp_path):
    g = tmp_path / "g"
    kg("build", str(SAMPLE), "-o", str(g))
    before = contents(g)
    with locked(g):
        proc = kg("build", str(need(SEED)), "-o", str(g), check=5)
    assert "being written by another build" in proc.stderr and "--wait" in proc.stderr
    assert contents(g) == before


def test_wait_queues_behind_the_build_holding_the_folder(tmp_path):
    import threading

    g = tmp_path / "g"
    with locked(g):
        proc = start("build", str(SAMPLE), "-o", str(g), "--wait")
        said, lines = threading.Event(), []

        def read() -> None:  # the handshake: the build says it waits, then blocks on the lock
            for line in proc.stderr:
                lines.append(line)
                if "waiting for the build" in line:
                    said.set()

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        assert said.wait(patience(120)), f"waited for the build to say it waits: {lines}"
        assert proc.poll() is None  # still waiting
        assert not (g / GRAPH_FILE).exists()
    assert proc.wait(timeout=patience(300)) == 0, lines
    reader.join(patience(60))
    assert json.loads((g / MANIFEST_FILE).read_text())["papers"] == 8


@pytest.mark.slow
def test_twenty_concurrent_builds_equal_one_build_of_everything(tmp_path):
    parts = split_jsonl(need(PAPERS / "icml2024.jsonl"), tmp_path / "in", 20, limit=60)
    one = tmp_path / "one"
    kg("build", *map(str, parts), "-o", str(one))
    g = tmp_path / "g"
    procs = [start("build", str(p), "-o", str(g), "--wait") for p in parts]
    for p in procs:
        _, err = p.communicate(timeout=600)
        assert p.returncode == 0 and "Traceback" not in err, err
    assert contents(g) == contents(one)
    # without --wait, a run that does not get the lock says so and changes nothing
    g2 = tmp_path / "g2"
    procs = [(p, start("build", str(p), "-o", str(g2))) for p in parts]
    done = []
    for part, p in procs:
        _, err = p.communicate(timeout=600)
        assert p.returncode in (0, 5) and "Traceback" not in err, err
        if p.returncode == 5:
            assert "being written by another build" in err
        else:
            done.append(part)
    assert done
    alone = tmp_path / "alone"
    kg("build", *map(str, done), "-o", str(alone))
    assert contents(g2)[GRAPH_FILE] == contents(alone)[GRAPH_FILE]


# ---------------------------------------------------------------- one commit point


def watch(proc: subprocess.Popen, folder: Path) -> tuple[float, float]:
    """Run ``proc`` to its end; return when its new generation appeared and when it became
    current, in seconds from the start."""
    t0, gens, link = time.monotonic(), set((folder / META).glob("g*")), os.readlink(folder / META / CURRENT)
    appeared = switched = None
    while proc.poll() is None or switched is None:
        now = time.monotonic() - t0
        if appeared is None and set((folder / META).glob("g*")) - gens:
            appeared = now
        if switched is None and os.readlink(folder / META / CURRENT) != link:
            switched = now
        if proc.poll() is not None and switched is None and now > 5:
            break
        time.sleep(0.0005)
    proc.communicate()
    assert proc.returncode == 0 and appeared is not None and switched is not None
    return appeared, switched


def kill_at_random_points(base: list[Path], more: list[Path], folder: Path, kills: int, seed: int) -> list[str]:
    """Build ``base`` into ``folder``, then start building ``more`` into it and kill -9 it at
    ``kills`` random moments: half anywhere in the run, half while the new generation is being
    written (between its directory appearing and the switch, measured on a run into a copy).
    After each kill the folder must hold the old graph or the new one, checked and whole.
    Returns what each kill found ("old" or "new")."""
    import shutil

    kg("build", *map(str, base), "-o", str(folder))
    old = contents(folder)
    probe = folder.parent / (folder.name + "-probe")
    shutil.copytree(folder, probe, symlinks=True)
    appeared, switched = watch(start("build", *map(str, more), "-o", str(probe)), probe)
    rnd = random.Random(seed)
    seen = []
    for i in range(kills):
        proc = start("build", *map(str, more), "-o", str(folder))
        if i % 2:  # inside the write: from its generation's directory to the switch
            gens = set((folder / META).glob("g*"))
            while not set((folder / META).glob("g*")) - gens and proc.poll() is None:
                time.sleep(0.0005)
            time.sleep(rnd.uniform(0, switched - appeared))
        else:
            time.sleep(rnd.uniform(0, switched + 0.5))
        proc.send_signal(signal.SIGKILL)
        proc.communicate()
        now = contents(folder)
        kg("stats", "-g", str(folder), "--json")  # whole and checked, whichever it is
        assert now == old or now == contents(probe)
        seen.append("old" if now == old else "new")
        if now != old:  # the kill came after the switch: start again from the old graph
            kg("build", *map(str, base), "-o", str(folder), "--fresh")
    return seen


@pytest.mark.slow
def test_kill_9_anywhere_leaves_the_old_or_the_new_graph(tmp_path):
    parts = split_jsonl(need(PAPERS / "icml2024.jsonl"), tmp_path / "in", 2, limit=240)
    g = tmp_path / "g"
    seen = kill_at_random_points(parts[:1], parts[1:], g, kills=12, seed=13)
    assert "old" in seen
    kg("build", *map(str, parts[1:]), "-o", str(g))
    one = tmp_path / "one"
    kg("build", *map(str, parts), "-o", str(one))
    assert contents(g) == contents(one)
    leftovers = [p.name for p in (g / META).iterdir() if p.name not in ("lock", CURRENT)]
    assert len(leftovers) <= 2, leftovers  # the current generation and the one before it


def test_leftovers_of_a_killed_build_are_removed(tmp_path):
    g = tmp_path / "g"
    kg("build", str(SAMPLE), "-o", str(g))
    (g / META / "g000099").mkdir()  # a generation a killed build was writing
    (g / META / "g000099" / GRAPH_FILE).write_text("{", encoding="utf-8")
    (g / ".graph.jsonl.abc.tmp").write_text("", encoding="utf-8")
    assert current(g).name == "g000001"
    kg("build", str(SAMPLE), "-o", str(g))
    assert not (g / META / "g000099").exists() and not (g / ".graph.jsonl.abc.tmp").exists()
    assert current(g).name == "g000100"


# ---------------------------------------------------------------- readers


def test_sparql_answers_from_the_graph_of_now(tmp_path):
    g = tmp_path / "g"
    count = "SELECT (COUNT(?p) AS ?n) WHERE { ?p a kg:Paper }"
    kg("build", str(SAMPLE), "-o", str(g))
    assert kg("sparql", count, "-g", str(g), "-f", "csv").stdout.split()[-1] == "8"
    kg("build", str(need(SEED)), "-o", str(g))
    assert kg("sparql", count, "-g", str(g), "-f", "csv").stdout.split()[-1] == "27"


def test_a_query_export_made_during_a_build_never_answers_for_the_new_graph(tmp_path, monkeypatch):
    """``kg sparql`` reads the old graph, a build commits, then the export is written: it
    must not be taken for the new graph's (with mtimes, it was newer than the new graph)."""
    from kg.builder import build
    from kg.io.format import load_graph, read_manifest
    from kg.sinks.rdf import sparql

    g = tmp_path / "g"
    build([str(SAMPLE)], g)

    def racing(graph_dir, fmt="ttl", out=None, base=terms.DEFAULT_BASE):
        G, manifest = load_graph(graph_dir), read_manifest(graph_dir)
        build([str(need(SEED))], g)
        return sinks.export(G, out, fmt, base, manifest)

    monkeypatch.setattr(sinks, "export_graph", racing)
    sparql.ensure_export(g)
    monkeypatch.undo()
    count = "SELECT (COUNT(?p) AS ?n) WHERE { ?p a kg:Paper }"
    store = sparql.load_store([sparql.ensure_export(g)])
    assert int(next(iter(sparql.run(store, count)))["n"].value) == 27


def test_an_export_reads_graph_and_manifest_of_one_generation(tmp_path, monkeypatch):
    import kg.io.format as graph_mod
    from kg.builder import build
    from kg.sinks import export_graph

    g = tmp_path / "g"
    build([str(SAMPLE)], g)
    real = graph_mod.load_graph

    def load_then_build(folder, **options):  # another build commits while the export reads
        G = real(folder, **options)
        monkeypatch.setattr(graph_mod, "load_graph", real)
        build([str(need(SEED))], g)
        return G

    monkeypatch.setattr(graph_mod, "load_graph", load_then_build)
    out = tmp_path / "x.ttl"
    export_graph(g, "ttl", out)
    text = out.read_text(encoding="utf-8")
    assert "icml2026-seed.txt" not in text and "sample.txt" in text


# ---------------------------------------------------------------- damage is found, not carried


def test_a_garbled_graph_is_an_error_and_the_next_build_remakes_it(tmp_path):
    g, one = tmp_path / "g", tmp_path / "one"
    kg("build", str(SAMPLE), "-o", str(g))
    kg("build", str(SAMPLE), "-o", str(one))
    path = current(g) / GRAPH_FILE
    lines = path.read_bytes().split(b"\n")
    lines[3] = lines[3].replace(b'"', b"'", 2)
    path.write_bytes(b"\n".join(lines))
    proc = kg("stats", "-g", str(g), check=2)
    assert "graph.jsonl" in proc.stderr and "kg build" in proc.stderr
    kg("build", str(SAMPLE), "-o", str(g))
    assert contents(g)[GRAPH_FILE] == contents(one)[GRAPH_FILE]


@pytest.mark.parametrize("cut", ["line boundary", "mid line"])
def test_a_cut_graph_is_not_read_as_a_smaller_graph(tmp_path, cut):
    g = tmp_path / "g"
    kg("build", str(SAMPLE), "-o", str(g))
    path = current(g) / GRAPH_FILE
    data = path.read_bytes()
    at = data.rfind(b"\n", 0, len(data) // 2) + 1 if cut == "line boundary" else len(data) // 2
    path.write_bytes(data[:at])
    kg("stats", "-g", str(g), check=2)
    kg("export", "-g", str(g), "-f", "ttl", check=2)


@pytest.mark.parametrize("damage", ["garbled line", "truncated"])
def test_damaged_extractions_stop_the_build_and_change_nothing(tmp_path, damage):
    g = tmp_path / "g"
    kg("build", str(SAMPLE), "-o", str(g))
    path = current(g) / EXTRACTIONS_FILE
    data = path.read_bytes()
    path.write_bytes(data.replace(b'"abstract"', b'"abstrct"', 1) if damage == "garbled line" else data[:len(data) // 2])
    before = contents(g)
    proc = kg("build", str(need(SEED)), "-o", str(g), check=2)
    assert "--fresh" in proc.stderr
    assert contents(g) == before
    kg("build", str(SAMPLE), "-o", str(g), "--fresh")
    assert json.loads((g / MANIFEST_FILE).read_text())["papers"] == 8


@pytest.mark.parametrize("damage", ["invalid UTF-8", "truncated", "not an object"])
def test_a_damaged_manifest_is_an_error_not_an_empty_one(tmp_path, damage):
    g = tmp_path / "g"
    kg("build", str(SAMPLE), "-o", str(g))
    path = current(g) / MANIFEST_FILE
    data = path.read_bytes()
    path.write_bytes({"invalid UTF-8": data.replace(b"sample", b"s\xffmple"), "truncated": data[:40],
                      "not an object": b"[]\n"}[damage])
    before = contents(g)
    for args in (("stats", "-g", str(g)), ("build", str(need(SEED)), "-o", str(g)), ("export", "-g", str(g))):
        proc = kg(*args, check=2)
        assert "manifest.json" in proc.stderr
    assert contents(g) == before


def test_an_index_that_does_not_describe_the_folder_is_not_used(tmp_path):
    """A well-formed index with a valid header and signature but describing other files is
    rejected by its checks; the build equals a clean one."""
    import pickle

    from kg.io.folder import STATE_FILE, FolderState, _header
    from kg.io.generations import sign

    g, one = tmp_path / "g", tmp_path / "one"
    kg("build", str(SAMPLE), "-o", str(g))
    state = FolderState.load(g)
    assert state is not None
    graph = state.graph
    graph.keys, graph.line_lens = graph.keys[:-5], graph.line_lens[:-5]  # wrong, but well formed
    buf = pickle.dumps((state.papers, state.paper_lens), protocol=5) + pickle.dumps(graph.to_tuple(), protocol=5)
    head = json.dumps({**_header(current(g)), "signature": sign(buf)}).encode()
    (current(g) / STATE_FILE).write_bytes(head + b"\n" + buf + b"\n")
    kg("build", str(need(SEED)), "-o", str(g))
    kg("build", str(SAMPLE), str(SEED), "-o", str(one))
    assert contents(g) == contents(one)


def test_an_unsigned_index_is_never_unpickled(tmp_path, monkeypatch):
    """A state file from elsewhere (here a 10 MB pickle bomb with a valid header) is refused
    before unpickling: its memory is never spent."""
    import kg.io.folder as folder_mod
    from kg.builder import build
    from kg.io.folder import STATE_FILE, FolderState, _header

    g = tmp_path / "g"
    build([str(SAMPLE)], g)
    bomb = b"(" + b"]q\x00h\x00" * 2_000_000 + b"t."  # 10 MB of references to one list
    (current(g) / STATE_FILE).write_bytes(json.dumps(_header(current(g))).encode() + b"\n" + bomb)

    def refuse(*a, **k):
        raise AssertionError("unpickled")

    monkeypatch.setattr(folder_mod, "_Unpickler", refuse)
    assert FolderState.load(g) is None
    build([str(need(SEED))], g)
    assert json.loads((g / MANIFEST_FILE).read_text())["papers"] == 27


def test_a_folder_of_an_older_kg_is_read_and_moved_into_a_generation(tmp_path):
    """The flat layout an older kg wrote (files at the top, a state.pickle, a graph.nt cache)."""
    g, one = tmp_path / "g", tmp_path / "one"
    kg("build", str(SAMPLE), "-o", str(g))
    flat = tmp_path / "flat"
    flat.mkdir()
    for name in FILES:
        (flat / name).write_bytes((g / name).read_bytes())
    (flat / "state.pickle").write_bytes(b"old index")
    (flat / "graph.nt").write_text("<a:x> <a:y> <a:z> .\n", encoding="utf-8")
    assert kg("stats", "-g", str(flat), "--json").returncode == 0  # read as it is
    kg("build", str(need(SEED)), "-o", str(flat))
    kg("build", str(SAMPLE), str(SEED), "-o", str(one))
    assert contents(flat) == contents(one)
    assert all((flat / n).is_symlink() for n in FILES)
    assert not (flat / "state.pickle").exists() and not (flat / "graph.nt").exists()


def test_a_writers_own_error_is_its_own_and_leaves_the_folder_as_it_was(tmp_path):
    """An OSError of the code writing a generation (reading an old file, say) is not taken for
    a failed commit: it reaches the caller as it is, which may rebuild; nothing is switched."""
    from kg.io.generations import new_generation

    g = tmp_path / "g"
    kg("build", str(SAMPLE), "-o", str(g))
    before = current(g)
    with pytest.raises(FileNotFoundError), locked(g), new_generation(g) as gen:
        (gen / "partial").write_text("x", encoding="utf-8")
        raise FileNotFoundError("an old file vanished")
    assert current(g) == before and sorted(p.name for p in (g / META).glob("g*")) == [before.name]
