"""Parallel extraction gives the same graph as a single process (local workers, Dask), and adding
the same papers in batches gives it too."""

from __future__ import annotations

import random

import pytest

from kg.builder import CHUNK, build
from kg.io.folder import GraphFolder
from kg.io.format import EXTRACTIONS_FILE, GRAPH_FILE, load_extractions
from kg.io.readers import read_papers
from kg.lexicon import default_lexicon

from .conftest import PAPERS, SAMPLE, need


@pytest.fixture(scope="module")
def inputs():
    return [str(need(PAPERS / "icml2026-seed.txt")), str(SAMPLE), str(need(PAPERS / "icml2024.jsonl"))]


@pytest.fixture(scope="module")
def one_process_dir(inputs, tmp_path_factory):
    out = tmp_path_factory.mktemp("one")
    papers = list(read_papers(inputs))
    assert len(papers) > 2 * CHUNK  # enough to be split across workers
    build(inputs, out, workers=1)
    return out


@pytest.fixture(scope="module")
def one_process(one_process_dir):
    return (one_process_dir / GRAPH_FILE).read_bytes()


def test_workers_give_the_identical_graph(inputs, one_process, tmp_path):
    build(inputs, tmp_path, workers=2)
    assert (tmp_path / GRAPH_FILE).read_bytes() == one_process


def test_dask_cluster_gives_the_identical_graph(inputs, one_process, tmp_path):
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        build(inputs, tmp_path, dask=cluster.scheduler_address)
    assert (tmp_path / GRAPH_FILE).read_bytes() == one_process


@pytest.mark.parametrize("seed", [0, 1])
def test_real_papers_added_in_random_batches_give_the_one_shot_graph(one_process_dir, tmp_path, seed):
    """Over 2,600 real extractions, resolved with the real lexicon: label votes and acronym
    merges that later papers overturn must reach the papers added before them."""
    exs = load_extractions(one_process_dir)
    rnd = random.Random(seed)
    rnd.shuffle(exs)
    cuts = sorted(rnd.sample(range(1, len(exs)), 4))
    for a, b in zip([0, *cuts], [*cuts, len(exs)], strict=True):
        GraphFolder(tmp_path).add(exs[a:b], [], "rules-1", default_lexicon())
    for name in (GRAPH_FILE, EXTRACTIONS_FILE):
        assert (tmp_path / name).read_bytes() == (one_process_dir / name).read_bytes(), name
