"""A Neo4j server stopped in the middle of a load: the load fails with exit code 3 and one
line, and a rerun converges to exactly the counts of a clean load (MERGE makes it safe)."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from ...conftest import PAPERS, ROOT, need, patience
from .test_bulk import URI, script, wait_until_served

pytestmark = [
    pytest.mark.neo4j,
    pytest.mark.skipif(not URI, reason="NEO4J_URI is not set: run `make test`, or `bash scripts/neo4j "
                                       "start && eval \"$(bash scripts/neo4j env)\"` first"),
]


def kg(*args: str) -> subprocess.Popen:
    env = {**os.environ, "COLUMNS": "300"}
    return subprocess.Popen([sys.executable, "-c", "from kg.cli import main; main()", *args], cwd=ROOT,
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_server_stopped_mid_load_then_rerun_converges(tmp_path):
    from kg.builder import build
    from kg.sinks.neo4j.store import count_graph, wipe

    driver = wait_until_served(10)  # NEO4J_URI is set: an unreachable server fails here, loudly
    if script("status").returncode != 0:
        driver.close()
        pytest.skip("the server at NEO4J_URI is not the one scripts/neo4j runs; this test stops it")
    db = os.environ.get("NEO4J_DATABASE") or None
    G = build([str(need(PAPERS / "icml2024.jsonl"))], tmp_path / "g").graph
    wipe(driver, db)
    driver.close()
    proc = kg("load", "-g", str(tmp_path / "g"), "--batch-size", "200")
    watcher = wait_until_served(patience(60))
    try:  # the handshake: constraints are in place and batches are being written
        deadline = time.monotonic() + patience(300)
        while count_graph(watcher, db)[0] == 0:
            assert proc.poll() is None, proc.communicate()[1]
            assert time.monotonic() < deadline, "waited for the load to write its first batch"
            time.sleep(0.1)
    finally:
        watcher.close()
    assert proc.poll() is None, "the load finished before the server could be stopped"
    stopped = script("stop")
    assert stopped.returncode == 0, stopped.stderr
    try:
        _, err = proc.communicate(timeout=300)
    finally:
        started = script("start")
    assert started.returncode == 0, started.stdout + started.stderr
    assert proc.returncode == 3, err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert os.environ.get("NEO4J_PASSWORD", "\0") not in err
    driver = wait_until_served()
    try:
        partial = count_graph(driver, db)
        assert partial < (G.number_of_nodes(), G.number_of_edges())  # the load really was cut short
        rerun = kg("load", "-g", str(tmp_path / "g"))
        _, err = rerun.communicate(timeout=600)
        assert rerun.returncode == 0, err
        assert count_graph(driver, db) == (G.number_of_nodes(), G.number_of_edges())
    finally:
        wipe(driver, db)
        driver.close()
