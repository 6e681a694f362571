"""The persistent SPARQL store: built once per generation, reused by later queries, rebuilt
after a new build or damage, safe under concurrent cold queries, and giving the same answers
as the in-memory store for every shipped query."""

from __future__ import annotations

import errno
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pyoxigraph as ox
import pytest

import kg
from kg.builder import build
from kg.io.generations import current
from kg.queries import bind_sparql, named_queries
from kg.sinks.rdf import sparql, store
from kg.sinks.rdf.store import STAMP, STORE_DIR, Stores, open_store, problem, read_stamp

from ...conftest import ROOT, SAMPLE, SEED, need

COUNT = "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }"
EXTRA = "ICML 2026\n\nWe propose QuuxNet, a recurrent model for speech recognition, evaluated on LibriSpeech.\n"


def copy(src: Path, dst: Path) -> Path:
    """A copy of a graph folder that keeps its generations (links copied as links)."""
    shutil.copytree(src, dst, symlinks=True)
    return dst


@pytest.fixture
def folder(sample_graph_dir, tmp_path) -> Path:
    return copy(sample_graph_dir, tmp_path / "g")


def count(opened) -> int:
    return int(next(iter(opened.store.query(COUNT)))["n"].value)


def in_memory(folder: Path) -> ox.Store:
    return sparql.load_store([sparql.ensure_export(folder)])


# ---------------------------------------------------------------- persistence


def test_the_first_query_builds_the_store_in_the_generation_and_later_ones_reuse_it(folder):
    first = open_store(folder)
    assert first.built and first.note is None
    assert first.path == current(folder) / STORE_DIR and first.path.parent.name.startswith("g")
    stamp = first.path / STAMP
    before = (stamp.stat().st_ino, stamp.stat().st_mtime_ns)
    del first
    again = open_store(folder)
    assert not again.built
    assert (stamp.stat().st_ino, stamp.stat().st_mtime_ns) == before
    assert count(again) == len(in_memory(folder))


def test_a_second_kg_sparql_does_not_build_again(folder):
    def kg_sparql() -> str:
        res = subprocess.run([sys.executable, "-m", "kg.cli", "sparql", COUNT, "-g", str(folder), "-f", "csv"],
                             capture_output=True, text=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
        assert res.returncode == 0, res.stderr
        return res.stdout

    out = kg_sparql()
    stamp = read_stamp(current(folder) / STORE_DIR)
    assert kg_sparql() == out
    assert read_stamp(current(folder) / STORE_DIR) == stamp  # same build: same id and time


def test_a_new_build_of_the_folder_gets_a_new_store_and_old_ones_go_with_their_generation(folder, tmp_path):
    first = open_store(folder)
    extra = tmp_path / "extra.txt"
    extra.write_text(EXTRA, encoding="utf-8")
    build([str(extra)], folder)
    second = open_store(folder)
    assert second.built and second.path != first.path
    ask = 'ASK { ?m rdfs:label "QuuxNet" }'
    assert bool(second.store.query(ask, prefixes=sparql.PREFIXES))
    assert not bool(first.store.query(ask, prefixes=sparql.PREFIXES))  # a running query keeps its graph
    build([str(extra)], folder, fresh=True)
    build([str(extra)], folder)
    assert not first.path.exists()  # removed with its generation


def test_stores_reopens_after_a_build_and_not_before(folder, tmp_path):
    stores = Stores(folder)
    a = stores.get()
    assert stores.get() is a
    extra = tmp_path / "extra.txt"
    extra.write_text(EXTRA, encoding="utf-8")
    build([str(extra)], folder)
    b = stores.get()
    assert b is not a and b.generation == current(folder)


def test_the_library_uses_the_same_store(folder, monkeypatch):
    g = kg.open(folder)
    assert g.sparql("ASK { ?s ?p ?o }") is True
    path = current(folder) / STORE_DIR
    assert problem(path, store.graph_key(current(folder))) is None
    monkeypatch.setattr(store, "build_store", lambda *a, **k: pytest.fail("built again"))
    assert kg.open(folder).sparql("ASK { ?s ?p ?o }") is True  # a new Graph: opens the built store


# ---------------------------------------------------------------- concurrency


def test_concurrent_cold_queries_build_one_store_and_agree(folder):
    cmd = [sys.executable, "-m", "kg.cli", "sparql", COUNT, "-g", str(folder), "-f", "csv"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    procs = [subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT, env=env)
             for _ in range(3)]
    outs = [p.communicate(timeout=300) for p in procs]
    assert [p.returncode for p in procs] == [0, 0, 0], [e for _, e in outs]
    assert len({o for o, _ in outs}) == 1
    gen = current(folder)
    assert int(outs[0][0].decode().split()[1]) == len(in_memory(folder))
    assert [p.name for p in gen.iterdir() if "sparql-store" in p.name and p.name != ".sparql-store.lock"] == [STORE_DIR]
    assert problem(gen / STORE_DIR, store.graph_key(gen)) is None


# ---------------------------------------------------------------- damage


def _no_stamp(path: Path) -> None:
    (path / STAMP).unlink()


def _cut_a_table(path: Path) -> None:
    sst = max(path.glob("*.sst"), key=lambda p: p.stat().st_size)
    with open(sst, "r+b") as fh:
        fh.truncate(sst.stat().st_size // 2)


def _zero_the_tables(path: Path) -> None:  # same sizes: only opening and reading finds it
    for sst in path.glob("*.sst"):
        sst.write_bytes(b"\0" * sst.stat().st_size)


def _junk_current(path: Path) -> None:
    (path / "CURRENT").write_text("MANIFEST-999999\n", encoding="utf-8")


def _junk_stamp(path: Path) -> None:
    (path / STAMP).write_text("{not json", encoding="utf-8")


def _other_graph(path: Path) -> None:
    stamp = json.loads((path / STAMP).read_text(encoding="utf-8"))
    (path / STAMP).write_text(json.dumps({**stamp, "graph": "sha256:0"}), encoding="utf-8")


@pytest.mark.parametrize("damage", [_no_stamp, _cut_a_table, _zero_the_tables, _junk_current, _junk_stamp,
                                    _other_graph], ids=lambda f: f.__name__.strip("_"))
def test_a_damaged_or_outdated_store_is_built_again(folder, damage):
    path = open_store(folder).path
    want = len(in_memory(folder))
    damage(path)
    again = open_store(folder)
    assert again.built and again.path == path
    assert count(again) == want
    assert not open_store(folder).built


def test_a_half_built_store_left_by_a_killed_build_is_cleared(folder):
    gen = current(folder)
    left = gen / f".{STORE_DIR}.99999.tmp"
    left.mkdir()
    (left / "000001.sst").write_bytes(b"half")
    assert open_store(folder).built
    assert not left.exists()


# ---------------------------------------------------------------- read-only folders


def test_a_folder_that_cannot_hold_a_store_is_queried_in_memory_with_a_note(folder, monkeypatch):
    def refuse(*_a, **_k):
        raise PermissionError(errno.EROFS, "Read-only file system")

    monkeypatch.setattr(store, "build_store", refuse)
    opened = open_store(folder)
    assert opened.path is None and "not writable" in opened.note
    assert count(opened) == len(in_memory(folder))
    assert not (current(folder) / STORE_DIR).exists()


def test_a_folder_where_not_even_the_export_can_be_written_is_queried_from_a_temporary_one(folder, monkeypatch):
    from kg.errors import ExportError

    def refuse(_folder):
        raise ExportError("cannot write: read-only")

    want = len(in_memory(folder))
    (current(folder) / "graph.nt").unlink()
    monkeypatch.setattr(sparql, "ensure_export", refuse)
    opened = open_store(folder)
    assert opened.path is None and opened.note and count(opened) == want


def test_a_folder_without_a_graph_says_how_to_build_one(tmp_path):
    from kg.errors import GraphNotFoundError

    with pytest.raises(GraphNotFoundError, match="kg build"):
        open_store(tmp_path)


# ---------------------------------------------------------------- same answers


@pytest.fixture(scope="module")
def seed_folder(tmp_path_factory) -> Path:
    """The sample and the ICML 2026 seed list: every shipped query has rows on it."""
    out = tmp_path_factory.mktemp("store-seed") / "g"
    build([str(SAMPLE), str(need(SEED))], out)
    return out


def _solutions(result) -> list[str]:
    """The solutions as sorted JSON lines. SPARQL leaves two orders to the engine, and the
    on-disk store (index order) and the in-memory one (load order) differ in both: rows that
    tie under ORDER BY, and the values GROUP_CONCAT joins; both are compared as sets."""
    data = json.loads(sparql.serialize(result, "json"))
    if "boolean" in data:
        return [str(data["boolean"])]
    rows = []
    for b in data["results"]["bindings"]:
        for term in b.values():
            for sep in (", ", " | ", "; "):
                if sep in term["value"]:
                    term["value"] = sep.join(sorted(term["value"].split(sep)))
        rows.append(json.dumps(b, sort_keys=True))
    return sorted(rows)


@pytest.mark.parametrize("q", named_queries("sparql"), ids=lambda q: q.name)
def test_every_shipped_query_answers_as_in_memory(q, seed_folder):
    text = bind_sparql(q.path.read_text(encoding="utf-8"), {}, q.name)
    disk = open_store(seed_folder).store
    memory = in_memory(seed_folder)
    a, b = _solutions(sparql.run(disk, text, q.name)), _solutions(sparql.run(memory, text, q.name))
    assert a, f"{q.name} gives no rows on the seed graph: the comparison would prove nothing"
    assert a == b


@pytest.mark.parametrize("damage", ["cut in half", "a garbage line", "another graph's"])
def test_a_damaged_export_cache_is_made_again_not_loaded(folder, tmp_path, damage):
    """The N-Triples cache a store is built from is checked: the store answers for the whole
    graph, whatever happened to the cache, and no error reaches the user."""
    full = int(next(iter(open_store(folder).store.query(COUNT)))["n"].value)
    gen = current(folder)
    nt = gen / "graph.nt"
    assert nt.exists()
    data = nt.read_bytes()
    if damage == "cut in half":
        nt.write_bytes(data[:data.rfind(b"\n", 0, len(data) // 2) + 1])
    elif damage == "a garbage line":
        nt.write_bytes(data + b"this is not N-Triples\n")
    else:
        nt.write_bytes(b"<https://x.example/a> <https://x.example/b> <https://x.example/c> .\n")
    shutil.rmtree(gen / STORE_DIR)  # the store is built again: from the cache, if it were trusted
    assert int(next(iter(open_store(folder).store.query(COUNT)))["n"].value) == full
    assert nt.read_bytes() == data


def test_kg_sparql_over_a_cut_export_cache_answers_for_the_whole_graph(folder):
    import subprocess
    import sys

    run = lambda: subprocess.run([sys.executable, "-m", "kg.cli", "sparql", COUNT, "-g", str(folder), "-f", "csv"],  # noqa: E731
                                 capture_output=True, text=True, timeout=600)
    full = run()
    assert full.returncode == 0, full.stderr
    gen = current(folder)
    data = (gen / "graph.nt").read_bytes()
    (gen / "graph.nt").write_bytes(data[:len(data) // 2])
    shutil.rmtree(gen / STORE_DIR)
    again = run()
    assert again.returncode == 0 and "Traceback" not in again.stderr, again.stderr
    assert again.stdout == full.stdout
