import json
import sys

import pytest
from typer.testing import CliRunner

from kg.cli import app

runner = CliRunner()
PNG = b"\x89PNG\r\n\x1a\n"


def test_plot_dir_writes_separate_identical_pngs_with_a_trend_chart(toy_folders, tmp_path):
    pytest.importorskip("matplotlib")
    runs = []
    for i in range(2):
        out = tmp_path / f"run{i}"
        res = runner.invoke(app, ["stats", "-g", str(toy_folders["both"]), "--plot", str(out)])
        assert res.exit_code == 0, res.output
        runs.append({p.name: p.read_bytes() for p in sorted(out.iterdir())})
    labels = json.loads(runner.invoke(app, ["stats", "-g", str(toy_folders["both"]), "--json"]).stdout)["top"]
    expected = {"labels.png", "edges.png", "degree.png", "trends.png"} | {f"top-{lab.lower()}.png" for lab in labels}
    assert set(runs[0]) == expected
    assert all(data[:8] == PNG for data in runs[0].values())
    assert runs[0] == runs[1]  # byte-identical: no dates or versions in the files


def test_one_year_has_no_trend_chart_and_a_png_path_gives_one_overview(sample_graph_dir, tmp_path):
    pytest.importorskip("matplotlib")
    res = runner.invoke(app, ["stats", "-g", str(sample_graph_dir), "--plot", str(tmp_path / "pics")])
    assert res.exit_code == 0, res.output
    assert "trends.png" not in {p.name for p in (tmp_path / "pics").iterdir()}
    res = runner.invoke(app, ["stats", "-g", str(sample_graph_dir), "--plot", str(tmp_path / "one.png")])
    assert res.exit_code == 0 and (tmp_path / "one.png").read_bytes()[:8] == PNG


def test_without_matplotlib_the_error_names_the_extra(sample_graph_dir, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    res = runner.invoke(app, ["stats", "-g", str(sample_graph_dir), "--plot", str(tmp_path / "pics")])
    assert res.exit_code != 0
    assert "pip install 'kg[plot]'" in str(res.exception)


def test_by_year_json_and_tables(toy_folders):
    res = runner.invoke(app, ["stats", "-g", str(toy_folders["both"]), "--by-year", "--window", "2",
                              "--min-papers", "4", "--json"])
    assert res.exit_code == 0, res.output
    t = json.loads(res.stdout)
    assert [p["papers"] for p in t["periods"]] == [2, 2, 2, 3]
    assert [m["name"] for m in t["rising"]] == ["diffusion model"]
    res = runner.invoke(app, ["stats", "-g", str(toy_folders["both"]), "--by-venue"])
    assert res.exit_code == 0 and "AlphaConf" in res.stdout and "Rising" not in res.stdout
    res = runner.invoke(app, ["stats", "-g", str(toy_folders["both"]), "--by-year", "--by-venue"])
    assert res.exit_code != 0
