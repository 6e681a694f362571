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
    top = json.loads(runner.invoke(app, ["stats", "-g", str(toy_folders["both"]), "--json"]).stdout)["top"]
    ranked = {lab for lab, rows in top.items() if any(r["papers"] > 1 for r in rows)}
    expected = {"labels.png", "edges.png", "degree.png", "trends.png"} | {f"top-{lab.lower()}.png" for lab in ranked}
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


def test_without_matplotlib_the_error_names_the_extra_before_anything_is_printed(sample_graph_dir, tmp_path,
                                                                                  monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    for extra in ([], ["--by-year"], ["--json"]):
        res = runner.invoke(app, ["stats", "-g", str(sample_graph_dir), "--plot", str(tmp_path / "pics"), *extra])
        assert res.exit_code != 0
        assert "pip install 'kg[plot]'" in str(res.exception)
        assert res.stdout == ""  # no tables, then an error: the check comes first


def _one_paper_names(top: dict) -> dict[str, set[str]]:
    """Per label, the names in ``kg stats --json``'s top rows that one paper names."""
    return {lab: {r["name"] for r in rows if r["papers"] <= 1} - {r["name"] for r in rows if r["papers"] > 1}
            for lab, rows in top.items()}


def test_tables_and_pictures_rank_only_what_more_than_one_paper_names(sample_graph_dir, tmp_path):
    """An entity named by one paper ties with every other such one: the demo's tables ranked
    them anyway (by degree), and drew a bar chart of ones."""
    top = json.loads(runner.invoke(app, ["stats", "-g", str(sample_graph_dir), "--json"]).stdout)["top"]
    flat = {lab for lab, rows in top.items() if all(r["papers"] <= 1 for r in rows)}
    mixed = {lab for lab, rows in top.items() if lab not in flat and any(r["papers"] <= 1 for r in rows)}
    assert flat and mixed  # the sample has both kinds
    res = runner.invoke(app, ["stats", "-g", str(sample_graph_dir)], env={"COLUMNS": "200"})
    assert res.exit_code == 0, res.output
    for lab in flat:
        assert f"Top {lab}: no ranking, no {lab} is named by more than one paper" in res.stdout
    assert "the others are named by one paper each" in res.stdout
    rows = [line for line in res.stdout.splitlines() if line.startswith("│")]
    for lab, names in _one_paper_names(top).items():
        for name in names:
            assert not any(line.startswith(f"│ {name} ") for line in rows), (lab, name)
    pytest.importorskip("matplotlib")
    res = runner.invoke(app, ["stats", "-g", str(sample_graph_dir), "--plot", str(tmp_path / "pics")])
    assert res.exit_code == 0, res.output
    drawn = {p.name for p in (tmp_path / "pics").iterdir()}
    assert {f"top-{lab.lower()}.png" for lab in flat}.isdisjoint(drawn)
    assert {f"top-{lab.lower()}.png" for lab in mixed} <= drawn


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
