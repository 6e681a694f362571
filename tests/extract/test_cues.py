"""The cue-word loader: one entry a line, comments and blank lines skipped, repeats and
missing files refused, and the extractor's modules reading their lists from it."""

import ast
from pathlib import Path

import pytest

from kg.errors import ConfigError, DataMissing
from kg.extract import cues


def _file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "list.txt"
    path.write_text(text, encoding="utf-8")
    return path


def test_comments_and_blank_lines_are_skipped(tmp_path):
    path = _file(tmp_path, "# what the list is for\n\nMarkov\n  Gaussian  \n# a note\n\n")
    assert cues.read_words(path) == ("Markov", "Gaussian")


def test_labels_keep_file_order(tmp_path):
    path = _file(tmp_path, "# head<TAB>Label\nmodel\tTechnique\ndataset\tDataset\n")
    assert list(cues.read_labels(path).items()) == [("model", "Technique"), ("dataset", "Dataset")]
    with pytest.raises(TypeError):
        cues.read_labels(path)["x"] = "Task"  # shared by every caller: read-only


def test_groups_give_each_entry_its_words(tmp_path):
    path = _file(tmp_path, "# head<TAB>modifiers\ntime\ttraining inference\nscore\tf1\n")
    assert dict(cues.read_groups(path)) == {"time": frozenset({"training", "inference"}), "score": frozenset({"f1"})}
    with pytest.raises(ConfigError, match="'time': a word is listed twice"):
        cues.read_groups(_file(tmp_path, "time\ttraining training\n"))


def test_a_repeated_entry_names_file_and_lines(tmp_path):
    path = _file(tmp_path, "# list\nMarkov\nGaussian\nMarkov\n")
    with pytest.raises(ConfigError, match=rf"{path.name}:4: 'Markov' is listed twice \(first on line 2\)"):
        cues.read_words(path)
    path = _file(tmp_path, "model\tTechnique\nmodel\tMethod\n")
    with pytest.raises(ConfigError, match=r":2: 'model' is listed twice"):
        cues.read_labels(path)


def test_malformed_lines_are_refused(tmp_path):
    with pytest.raises(ConfigError, match=":1:.*expected an entry and a label"):
        cues.read_labels(_file(tmp_path, "model Technique\n"))
    with pytest.raises(ConfigError, match=":2:.*expected one entry"):
        cues.read_words(_file(tmp_path, "# list\nmodel\tTechnique\n"))


def test_a_missing_file_is_data_missing(tmp_path):
    with pytest.raises(DataMissing):
        cues.read_words(tmp_path / "gone.txt")
    with pytest.raises(DataMissing):
        cues.read_labels(_file(tmp_path, ""))
    with pytest.raises(DataMissing):
        cues.words("no-such-list")


def test_every_packaged_list_loads():
    files = sorted(cues.CUES_DIR.glob("*.txt"))
    assert files
    for path in files:
        lines = [x for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]
        assert lines[0].startswith("# "), f"{path.name}: starts with a comment saying what it is for"
        rows = [x for x in lines if not x.startswith("#")]
        if any(" " in x.partition("\t")[2] for x in rows):
            assert cues.groups(path.stem)
        elif any("\t" in x for x in rows):
            assert cues.labels(path.stem)
        else:
            assert cues.words(path.stem)


# lists that live in schema/cues/ and nowhere else: the names their old copies had in code
MOVED = {"EPONYMS", "_EPONYMS", "EPONYM_WORDS", "HEADS", "APPOSITIVE_HEADS", "TASK_HEADS", "DATASET_HEADS",
         "METRIC_HEADS", "SOFTWARE_HEADS", "MODEL_CLASS_HEADS", "METHOD_HEADS", "LONG_FORM_HEADS", "TRIGGERS",
         "SUBJECTS", "OUTPERFORM", "COMPARE", "NAMING", "_NAMING_WORDS", "_NAMING_PHRASES", "_SMALL",
         "_SMALL_WORDS", "_GLUE", "DETERMINERS", "_DETERMINERS",
         "_BEFORE_VERB", "NOT_MODIFIERS", "NOT_IN_NAMES", "_NOT_MODIFIERS", "_VERBS", "_NOT_TASK_MODIFIERS",
         "_ED_MODIFIERS", "_S_WORDS", "_ING_NOUNS", "_NAMED_KIND", "ADJ_PARTS", "_NUMBER_WORDS", "TASK_WORDS",
         "_DATASET_NOUNS", "_NOT_NAMES", "_TITLE_HEAD_NOT", "_LEAD_OPENERS", "_LEAD_HEADS_NOT", "_LEAD_VERBS",
         "_ECHO_SKIP", "_ECHO_STOP", "_ECHO_ANALYSIS", "_ECHO_HEADS", "_NARROW", "_VERBISH", "_GENERIC_TAILS",
         "_STOP_NAMES", "_NOT_NAME_PARTS", "_NOVEL", "_OLD", "_GLUE_WORDS", "_OURS_STOP"}


def _word_literals(node: ast.AST) -> list[ast.AST]:
    """Set, list, tuple and dict displays inside ``node`` that hold two or more strings."""
    out = []
    for n in ast.walk(node):
        items = n.keys if isinstance(n, ast.Dict) else getattr(n, "elts", None) if isinstance(
            n, (ast.Set, ast.List, ast.Tuple)) else None
        if items and sum(isinstance(x, ast.Constant) and isinstance(x.value, str) for x in items) >= 2:
            out.append(n)
    return out


def test_no_module_keeps_its_own_copy():
    """Where a moved name is still assigned in the extractor, it is not assigned word literals."""
    found = []
    for path in sorted(Path(cues.__file__).parent.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Assign) and any(getattr(t, "id", "") in MOVED for t in node.targets) \
                    and _word_literals(node.value):
                found.append(f"{path.name}:{node.lineno}")
    assert not found, f"copies of cue lists kept in code: {found}"


def test_the_check_sees_a_copy():
    tree = ast.parse('HEADS = {**dict.fromkeys(("model", "network"), "Technique")}\nNAMING = cues.word_set("x")')
    assert [type(n).__name__ for n in _word_literals(tree.body[0].value)] == ["Tuple"]
    assert not _word_literals(tree.body[1].value)
