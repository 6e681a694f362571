import json
import os
import subprocess
import sys

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


def test_help_paragraphs_are_wrapped_by_the_terminal_not_by_the_source():
    env = {**os.environ, "COLUMNS": "200"}
    helps = {name: subprocess.run([sys.executable, "-m", "kg.cli", *name.split(), "--help"], capture_output=True,
                                  text=True, env=env, timeout=120).stdout for name in ("stats", "map", "")}
    assert "central entities, coverage; with --by-year or --by-venue, trends instead." in helps["stats"]
    assert "grouped into areas named by their most central members." in helps["map"]
    assert "coverage; with --by-year" in helps[""]  # the list of commands too
    examples = [line for line in helps["stats"].splitlines() if "Example:" in line]
    assert len(examples) == 2  # each example on its own line


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


def test_a_short_flag_means_one_thing_in_every_command():
    """-p was --param in kg sparql and kg cypher but --port in kg serve, -k --top in kg stats and
    kg diff but --examples in kg validate, -l --label in kg search but --language in kg queries.
    An option may have two long names (kg build's --graph/--out): they must share one."""
    import typer

    meanings: dict[str, list[set[str]]] = {}
    for command in typer.main.get_command(app).commands.values():
        for param in command.params:
            longs = {o for o in param.opts if o.startswith("--")}
            for short in (o for o in param.opts if len(o) == 2 and o.startswith("-")):
                meanings.setdefault(short, []).append(longs)
    assert {"-g", "-o", "-p", "-k", "-n", "-l"} <= set(meanings)
    differ = {k: v for k, v in meanings.items() if not set.intersection(*v)}
    assert not differ, differ


def kg_main(*args: str, stdout=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "kg.cli", *args], capture_output=stdout is None, stdout=stdout,
                          text=True, timeout=300)


def test_help_opens_with_an_example_and_usage_lines_name_arguments_in_capitals():
    top = kg_main("--help").stdout
    assert "Example: kg build papers.jsonl -o exports" in " ".join(top.split())
    assert "Usage: kg build [OPTIONS] INPUTS..." in kg_main("build", "--help").stdout
    assert "Usage: kg diff [OPTIONS] [OLD] [NEW]" in kg_main("diff", "--help").stdout
    assert "{" not in kg_main("show", "--help").stdout.splitlines()[1]


@pytest.mark.parametrize("args", [["extract", str(SAMPLE)], ["queries"], ["extract", str(SAMPLE), "--format", "table"]])
def test_a_reader_that_stops_early_is_no_error(args):
    """``kg ... | head``: the pipe is closed before kg writes; rich and click both exit 1 there."""
    r, w = os.pipe()
    os.close(r)  # the reader is gone before the first line
    with os.fdopen(w, "w") as closed:
        done = kg_main(*args, stdout=closed)
    assert done.returncode == 0


def test_help_and_messages_point_to_nothing_only_a_checkout_has():
    """An installed kg has no scripts/, schema/ or queries/ folder, nor kg/schema.py to read."""
    import typer

    from kg.explore.search import search

    checkout = ("scripts/", "schema/", "queries/", "kg/schema.py")
    for name in sorted(typer.main.get_command(app).commands):
        text = runner.invoke(app, [name, "--help"], terminal_width=200).output
        assert not [c for c in checkout if c in text], (name, text)
    with pytest.raises(Exception) as exc:
        search(__import__("networkx").MultiDiGraph())
    assert "--" not in str(exc.value)  # the library's advice is the same in Python and on the command line


@pytest.mark.parametrize("command", ["sparql", "cypher"])
def test_an_unknown_named_query_gets_did_you_mean_not_a_syntax_error(command, tmp_path):
    """kg sparql papers_using_tecnique was a SPARQL syntax error at column 10; kg cypher's a
    Neo4j connection error."""
    done = kg_main(command, "papers_using_tecnique", *(["-g", str(tmp_path)] if command == "sparql" else []))
    said = " ".join(done.stderr.split())
    assert done.returncode == 2, said
    assert f"no named {command} query 'papers_using_tecnique'; did you mean papers_using_technique" in said
