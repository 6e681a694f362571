import json
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from kg.cli import app

runner = CliRunner()
PNG = b"\x89PNG\r\n\x1a\n"


def test_diff_json_is_the_library_record(toy_folders):
    res = runner.invoke(app, ["diff", str(toy_folders["old"]), str(toy_folders["new"]), "--json",
                              "--min-papers", "3", "--min-link-papers", "2"])
    assert res.exit_code == 0, res.output
    d = json.loads(res.stdout)
    assert d["old"]["papers"] == 4 and d["new"]["papers"] == 5
    assert [g["name"] for g in d["grown"]] == ["diffusion model"]
    assert [s["name"] for s in d["shrunk"]] == ["reinforcement learning"]
    assert d["new_links"][0]["task"] == "image editing"


def test_diff_of_two_slices_prints_tables_and_a_deterministic_plot(toy_folders, tmp_path):
    pytest.importorskip("matplotlib")
    args = ["diff", "-g", str(toy_folders["both"]), "--old", "year=2021-2022", "--new", "venue=BetaConf",
            "--min-papers", "3"]
    pngs = []
    for i in range(2):
        pngs.append(tmp_path / f"diff{i}.png")
        res = runner.invoke(app, [*args, "--plot", str(pngs[-1])])
        assert res.exit_code == 0, res.output
    assert "year=2021-2022 (4 papers) → venue=BetaConf (5 papers)" in res.stdout
    assert "New in venue=BetaConf: Method" in res.stdout and "Grown most" in res.stdout
    assert pngs[0].read_bytes()[:8] == PNG
    assert pngs[0].read_bytes() == pngs[1].read_bytes()


@pytest.mark.parametrize("args, says", [
    (["diff", "/nonexistent/old", "/nonexistent/new"], "no graph in /nonexistent/old"),
    (["diff", "-g", "{both}", "--old", "year=1999", "--new", "year=2024"], "no paper of year=1999 matches"),
    (["diff", "-g", "{both}", "--old", "month=5", "--new", "year=2024"], "unknown key 'month'"),
    (["diff"], "say what to compare"),
])
def test_diff_errors_are_one_line_and_exit_2(toy_folders, args, says):
    args = [a.format(both=toy_folders["both"]) for a in args]
    proc = subprocess.run([sys.executable, "-m", "kg.cli", *args], capture_output=True, text=True)
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr and proc.stderr.startswith("kg: error:")
    assert says in proc.stderr
