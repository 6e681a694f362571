import json

import pytest
from typer.testing import CliRunner

from kg.cli import app

from ..conftest import SAMPLE

runner = CliRunner()


def test_every_command_has_help_with_an_example():
    import typer

    commands = typer.main.get_command(app).commands
    assert {"build", "extract", "stats"} <= set(commands)
    for name in sorted(commands):
        res = runner.invoke(app, [name, "--help"])
        assert res.exit_code == 0, name
        assert "Example:" in res.output, f"{name} --help lacks an example"


def test_build_and_stats_json(tmp_path):
    res = runner.invoke(app, ["build", str(SAMPLE), "-o", str(tmp_path)])
    assert res.exit_code == 0, res.output
    res = runner.invoke(app, ["stats", "-g", str(tmp_path), "--json"])
    s = json.loads(res.stdout)
    assert s["coverage"]["papers"] == 8


def test_extract_jsonl_contract(tmp_path):
    res = runner.invoke(app, ["extract", str(SAMPLE)])
    assert res.exit_code == 0
    rows = [json.loads(line) for line in res.stdout.splitlines()]
    assert len(rows) == 8
    for row in rows:
        assert set(row) >= {"paper", "entities", "relations"}
        text = row["paper"]["abstract"]
        for e in row["entities"]:
            assert set(e) >= {"id", "type", "name", "aliases", "mentions"}
            for m in e["mentions"]:
                assert text[m["start"]:m["end"]] == m["text"]


def test_skipped_records_give_exit_1_and_missing_graph_exit_2(tmp_path):
    bad = tmp_path / "x.jsonl"
    bad.write_text('{"id": "a", "abstract": "We propose FooNet, a method."}\n{broken\n')
    res = runner.invoke(app, ["build", str(bad), "-o", str(tmp_path / "g")])
    assert res.exit_code == 1
    assert "x.jsonl:2" in res.output and "skipped 1 record" in res.output
    res = runner.invoke(app, ["stats", "-g", str(tmp_path / "none")])
    assert res.exit_code != 0


@pytest.mark.parametrize("args", [["stats", "-g", "/nonexistent/graph"]])
def test_errors_are_one_line_without_traceback(args):
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-m", "kg.cli", *args], capture_output=True, text=True)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr and proc.stderr.startswith("kg: error:")


def test_stats_plot_writes_a_png(sample_graph_dir, tmp_path):
    pytest.importorskip("matplotlib")
    png = tmp_path / "stats.png"
    res = runner.invoke(app, ["stats", "-g", str(sample_graph_dir), "--plot", str(png)])
    assert res.exit_code == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_every_error_class_has_its_exit_code_in_the_cli_only():
    import inspect

    from kg import errors
    from kg.cli import EXIT_CODES, exit_code

    classes = [c for _, c in inspect.getmembers(errors, inspect.isclass) if issubclass(c, errors.KgError)]
    named = {cls for cls, _ in EXIT_CODES}
    assert set(classes) - named <= {errors.DataMissing}  # a ConfigError
    assert not any(hasattr(c, "exit_code") for c in classes)  # the library does not decide them
    assert exit_code(errors.DataMissing("x")) == exit_code(errors.UsageError("x")) == 2
    assert exit_code(errors.FolderBusy("x")) == 5 and exit_code(errors.ExportError("x")) == 4


def test_a_folder_built_with_another_pipeline_is_a_usage_error(tmp_path):
    import os
    import subprocess
    import sys

    env = {**os.environ, "KG_SPANS": "off"}
    run = [sys.executable, "-m", "kg.cli", "build", str(SAMPLE), "-o", str(tmp_path / "g")]
    assert subprocess.run(run, capture_output=True, env=env).returncode == 0
    proc = subprocess.run([*run[:-2], "-o", str(tmp_path / "g"), "--model", str(tmp_path)],
                          capture_output=True, text=True)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    proc = subprocess.run(run, capture_output=True, text=True)  # the packaged span model
    assert proc.returncode == 2 and "--fresh" in proc.stderr


def test_version_a_piped_abstract_and_graph_for_build(tmp_path):
    import os
    import subprocess
    import sys

    kg = [sys.executable, "-m", "kg.cli"]
    from kg.version import __version__

    assert subprocess.run([*kg, "--version"], capture_output=True, text=True).stdout == f"kg {__version__}\n"
    env = {**os.environ, "KG_SPANS": "off"}
    one = subprocess.run([*kg, "extract", "-"], input="We propose FlashFoo, a faster attention kernel…\n",
                         capture_output=True, text=True, env=env)
    assert one.returncode == 0, one.stderr
    assert "FlashFoo" in one.stdout and one.stdout.count("\n") == 1  # one paper, not a title line
    built = subprocess.run([*kg, "build", str(SAMPLE), "-g", str(tmp_path / "g")], capture_output=True,
                           text=True, env=env)
    assert built.returncode == 0 and (tmp_path / "g" / "graph.jsonl").exists(), built.stderr
