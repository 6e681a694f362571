"""kg as installed from its wheel, outside the checkout: its data travels with it and it builds
the same graph, byte for byte, as the checkout."""

from __future__ import annotations

import os
import site
import subprocess
import sys
import venv

import pytest

from kg.errors import DataMissing
from kg.schema import QUERIES_DIR, SCHEMA_DIR, data_file

from .conftest import ROOT, SAMPLE

FILES = ("graph.jsonl", "extractions.jsonl", "manifest.json")


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """A fresh venv outside the checkout with kg's wheel installed (its dependencies are this
    environment's, added by path: no download, and no trace of the editable install)."""
    tmp = tmp_path_factory.mktemp("wheel")
    wheels = tmp / "dist"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(wheels), str(ROOT)],
                   check=True, capture_output=True, cwd=tmp)
    env_dir = tmp / "venv"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    py = env_dir / "bin" / "python"
    own = subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                         check=True, capture_output=True, text=True).stdout.strip()
    deps = [p for p in site.getsitepackages() if p.endswith("site-packages")]
    with open(os.path.join(own, "deps.pth"), "w", encoding="utf-8") as fh:
        fh.write("\n".join(deps) + "\n")
    wheel = next(wheels.glob("kg-*.whl"))
    subprocess.run([sys.executable, "-m", "pip", "--python", str(py), "install", "-q", "--no-deps", str(wheel)],
                   check=True, capture_output=True, cwd=tmp)
    return env_dir, tmp


def test_the_wheel_builds_the_same_graph_as_the_checkout(installed, tmp_path):
    env_dir, tmp = installed
    env = {**os.environ, "SOURCE_DATE_EPOCH": "0", "PYTHONPATH": ""}
    where = subprocess.run([str(env_dir / "bin" / "python"), "-c", "import kg; print(kg.__file__)"],
                           check=True, capture_output=True, text=True, cwd=tmp, env=env).stdout
    assert where.startswith(str(env_dir)), where  # the installed copy, not the checkout
    a, b = tmp_path / "wheel", tmp_path / "checkout"
    proc = subprocess.run([str(env_dir / "bin" / "kg"), "build", str(SAMPLE), "-o", str(a)],
                          capture_output=True, text=True, cwd=tmp, env=env)
    assert proc.returncode == 0, proc.stderr
    proc = subprocess.run([sys.executable, "-m", "kg.cli", "build", str(SAMPLE), "-o", str(b)],
                          capture_output=True, text=True, cwd=ROOT, env=env)
    assert proc.returncode == 0, proc.stderr
    for name in FILES:
        assert (a / name).read_bytes() == (b / name).read_bytes(), name
    q = subprocess.run([str(env_dir / "bin" / "kg"), "sparql", str(env_dir.parent / "missing.rq"), "-g", str(a)],
                       capture_output=True, text=True, cwd=tmp, env=env)
    assert q.returncode == 2 and "Traceback" not in q.stderr


def test_the_wheel_carries_the_data_and_its_licence(installed):
    env_dir, tmp = installed
    code = ("import kg.schema as s, importlib.metadata as m; "
            "print(sorted(p.name for p in s.LEXICON_DIR.glob('*.jsonl'))); "
            "print(len(list(s.QUERIES_DIR.glob('*.rq'))), len(list(s.QUERIES_DIR.glob('*.cypher')))); "
            "print(m.metadata('kg')['License-Expression'], m.version('kg')); "
            "print(sorted(p.name for p in (s.SCHEMA_DIR / 'cues').glob('*.txt')))")
    out = subprocess.run([str(env_dir / "bin" / "python"), "-c", code], check=True, capture_output=True,
                         text=True, cwd=tmp).stdout.splitlines()
    assert out[0] == str(sorted(p.name for p in (SCHEMA_DIR / "lexicons").glob("*.jsonl")))
    assert out[1] == f"{len(list(QUERIES_DIR.glob('*.rq')))} {len(list(QUERIES_DIR.glob('*.cypher')))}"
    import kg

    assert out[2] == f"MIT {kg.__version__}"
    assert out[3] == str(sorted(p.name for p in (SCHEMA_DIR / "cues").glob("*.txt")))  # the rules' cue words
    assert "eponyms.txt" in out[3]


def test_the_wheel_carries_every_data_file_the_checkout_has(installed):
    """The models (the span model, the contextual encoder with its tokenizer, heads, decisions and
    licence), the schema, queries and page assets: every file of ``kg/data``, byte for byte."""
    env_dir, tmp = installed
    code = ("import hashlib, pathlib, kg; d = pathlib.Path(kg.__file__).parent / 'data'; "
            "[print(p.relative_to(d).as_posix(), hashlib.sha256(p.read_bytes()).hexdigest()) "
            "for p in sorted(d.rglob('*')) if p.is_file() and '__pycache__' not in p.parts]")
    out = subprocess.run([str(env_dir / "bin" / "python"), "-c", code], check=True, capture_output=True,
                         text=True, cwd=tmp).stdout.splitlines()
    import hashlib

    data = ROOT / "kg" / "data"
    want = [f"{p.relative_to(data).as_posix()} {hashlib.sha256(p.read_bytes()).hexdigest()}"
            for p in sorted(data.rglob("*")) if p.is_file() and "__pycache__" not in p.parts]
    assert out == want
    if (data / "encoder").is_dir():  # the default pipeline's weights travel with their provenance
        assert any(line.startswith("encoder/NOTICE ") for line in out)
        assert any(line.startswith("encoder/model.onnx ") for line in out)


def test_missing_data_is_an_error_naming_the_file(tmp_path):
    from kg.lexicon import Lexicon

    with pytest.raises(DataMissing, match=str(tmp_path)):
        Lexicon.load(tmp_path)
    (tmp_path / "empty.txt").write_text("", encoding="utf-8")
    with pytest.raises(DataMissing, match="empty.txt"):
        data_file(tmp_path / "empty.txt")
    assert data_file(SCHEMA_DIR / "stoplist.txt").is_file()


def test_make_demo_says_what_it_does_and_installs_only_kg():
    """The demo installed the dev extras (pytest, playwright, dask…) and ran in silence."""
    import shutil

    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    plan = subprocess.run(["make", "-n", "-B", "demo"], cwd=ROOT, capture_output=True, text=True, timeout=60).stdout
    assert "pip install -q -e .\n" in plan and "[dev]" not in plan, plan
    said = [line for line in plan.splitlines() if line.startswith("echo")]
    ran = [line for line in plan.splitlines() if line.startswith(".venv/bin/kg")]
    assert len(ran) >= 3 and len(said) >= len(ran), plan
    assert ".venv/bin/kg map -g exports/demo" in ran
