"""Shared paths and fixtures. Tests run offline; the shared paper lists are read from
``../shared/data`` beside the repository (present in CI)."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "data"
PAPERS = SHARED / "papers"
SEED = PAPERS / "icml2026-seed.txt"
SAMPLE = ROOT / "examples" / "sample.txt"


def patience(seconds: float) -> float:
    """A timeout for waiting on something that is only slow, never stuck: ``seconds`` on an idle
    machine, longer on a loaded one (by its load per core), and longer again with
    ``KG_TEST_PATIENCE`` (a factor)."""
    import os

    try:
        load = os.getloadavg()[0] / (os.cpu_count() or 1)
    except OSError:
        load = 1.0
    return seconds * max(1.0, load) * float(os.environ.get("KG_TEST_PATIENCE") or 1)


def need(path: Path) -> Path:
    if not path.exists():
        pytest.skip(f"{path} is not available")
    return path


@pytest.fixture(scope="session")
def extractor():
    """The default extractor: rules, the packaged span model, selector and proposal decision."""
    from kg.extract import Extractor

    return Extractor()


@pytest.fixture(scope="session")
def rules_extractor():
    """Rules and lexicons only (no span model, no encoder): what tests of a rule pin."""
    from kg.extract import Extractor

    return Extractor(spans_model="", encoder="")


@pytest.fixture(scope="session")
def sample_graph_dir(tmp_path_factory) -> Path:
    """A graph folder built from examples/sample.txt."""
    from kg.builder import build

    out = tmp_path_factory.mktemp("sample-graph")
    build([str(SAMPLE)], out)
    return out


@pytest.fixture(scope="session")
def seed_build(tmp_path_factory):
    """The ICML 2026 seed list built end to end."""
    from kg.builder import build

    out = tmp_path_factory.mktemp("seed-graph")
    return build([str(need(SEED))], out)


@pytest.fixture(scope="session")
def toy_folders(tmp_path_factory) -> dict[str, Path]:
    """Graph folders ``old``, ``new`` and ``both`` (one graph of all nine papers)."""
    from kg.builder import build

    from .toy_lists import NEW, OLD, write_list

    root = tmp_path_factory.mktemp("toy")
    old = write_list(root / "old.jsonl", OLD)
    new = write_list(root / "new.jsonl", NEW)
    out = {}
    for name, inputs in (("old", [old]), ("new", [new]), ("both", [old, new])):
        out[name] = root / name
        build([str(p) for p in inputs], out[name])
    return out


_PIPELINE_ENV = {k: __import__("os").environ.get(k) for k in ("KG_ENCODER", "KG_SPANS", "KG_NER_MODEL")}


@pytest.fixture(autouse=True)
def _pipeline_env():
    """The command line names the pipeline to the extractor through the environment
    (``--model`` sets ``KG_ENCODER``/``KG_SPANS``); a command run in-process must not choose the
    pipeline of every later test in the session."""
    import os

    yield
    for k, v in _PIPELINE_ENV.items():  # as the session began, whatever a test or fixture left
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v
