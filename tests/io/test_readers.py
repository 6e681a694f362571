import json

import pytest

from kg.io.readers import ReadReport, detect_format, read_papers

from ..conftest import SEED, need


def write(tmp_path, name, data):
    p = tmp_path / name
    p.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
    return str(p)


def read(*paths):
    report = ReadReport()
    return list(read_papers(paths, report)), report


def test_seed_list_venue_year_and_stable_ids():
    papers, report = read(str(need(SEED)))
    assert len(papers) == 19 and not report.skipped
    assert {p.venue for p in papers} == {"ICML 2026"} and {p.year for p in papers} == {2026}
    again, _ = read(str(SEED))
    assert [p.id for p in papers] == [p.id for p in again]
    assert len({p.id for p in papers}) == 19
    assert all(p.source.startswith(str(SEED) + ":") for p in papers)


def test_jsonl_keeps_ids_and_reports_bad_lines(tmp_path):
    lines = [json.dumps({"id": "a1", "title": "T", "abstract": "We propose FooNet for things.", "venue": "ICML 2024"}),
             '{"id": "broken", "abstract": "trunc',
             json.dumps({"id": "a2", "abstract": "Another abstract about methods.", "venue": "AISTATS", "year": 2020}),
             json.dumps(["not", "an", "object"])]
    papers, report = read(write(tmp_path, "x.jsonl", "\n".join(lines)))
    assert [p.id for p in papers] == ["a1", "a2"]
    assert papers[1].venue == "AISTATS 2020" and papers[0].year == 2024
    assert [(p.line, p.reason.split(":")[0]) for p in report.skipped] == [(2, "bad JSON"), (4, "not an object")]


def test_ids_are_identifiers_not_prose(tmp_path):
    lines = [json.dumps({"id": "corl2021:nWLt35BU1z_", "abstract": "An abstract about _emphasis_ words."}),
             json.dumps({"id": "  a  b ", "abstract": "Another abstract about methods."})]
    papers, _ = read(write(tmp_path, "x.jsonl", "\n".join(lines)))
    assert [p.id for p in papers] == ["corl2021:nWLt35BU1z_", "a b"]
    assert papers[0].abstract == "An abstract about emphasis words."


def test_jsonl_record_with_raw_newline_is_joined(tmp_path):
    raw = '{"id": "n1", "abstract": "first line\nsecond line of the abstract"}\n{"id": "n2", "abstract": "a normal abstract here"}'
    papers, report = read(write(tmp_path, "x.jsonl", raw))
    assert [p.id for p in papers] == ["n1", "n2"]
    assert papers[0].abstract == "first line second line of the abstract"
    assert not report.skipped and report.problems


def test_json_csv_and_stdin_detection(tmp_path, monkeypatch):
    j = write(tmp_path, "x.json", json.dumps([{"id": "j1", "abstract": "An abstract in a JSON list."}]))
    c = write(tmp_path, "x.csv", 'id,title,abstract\nc1,T,"An abstract, with a comma\nand a newline"\nc2,T2\n')
    papers, report = read(j, c)
    assert [p.id for p in papers] == ["j1", "c1"]
    assert [(p.line, p.reason.split(":")[0]) for p in report.skipped] == [(4, "ragged row")]
    assert detect_format("", '{"a": 1}\n{"a": 2}') == "jsonl"
    assert detect_format("", "Title line\n\nAbstract") == "txt"


def test_encodings_and_binary(tmp_path):
    text = "ICML 2024 list\n\nWe propose ÜberNet, a method for things.\n"
    bom = write(tmp_path, "bom.txt", b"\xef\xbb\xbf" + text.encode())
    u16 = write(tmp_path, "u16.txt", text.encode("utf-16"))
    crlf = write(tmp_path, "crlf.txt", text.replace("\n", "\r\n"))
    bad = write(tmp_path, "bad.txt", b"ICML 2024 list\n\nWe propose \xff\xfeNet, a method.\n")
    binary = write(tmp_path, "bin.txt", b"\x00\x01\x02" * 100)
    papers, report = read(bom, u16, crlf, bad, binary)
    assert papers[0].abstract == "We propose ÜberNet, a method for things."
    assert len(papers) == 2  # bom, utf-16 and crlf are the same paper: duplicates are skipped
    reasons = [p.reason.split(":")[0] for p in report.skipped]
    assert reasons.count("duplicate") == 2 and "unreadable" in reasons
    assert any("U+FFFD" in p.reason for p in report.problems)


def test_empty_and_missing_inputs(tmp_path):
    papers, report = read(write(tmp_path, "e.txt", ""), write(tmp_path, "w.jsonl", "  \n\n"), str(tmp_path / "nope.txt"))
    assert papers == []
    assert [p.reason.split(":")[0] for p in report.skipped] == ["empty", "empty", "unreadable"]


def test_records_without_abstract(tmp_path):
    lines = [json.dumps({"id": "t", "title": "Only a title"}), json.dumps({"id": "x"}),
             json.dumps({"id": "u", "abstract": "Abstract Unavailable", "title": "T"}),
             json.dumps({"id": "big", "abstract": "We propose BigNet. " * 60000})]
    papers, report = read(write(tmp_path, "x.jsonl", "\n".join(lines)))
    assert [p.id for p in papers] == ["t", "u", "big"]
    assert papers[1].abstract == "" and len(papers[2].abstract) > 1_000_000
    assert [p.reason.split(":")[0] for p in report.skipped] == ["no abstract"]


@pytest.mark.parametrize("name", ["Robert'); DROP", "a`b{c}<d>", "line\nbreak", "rtl\u202eevil", "zw\u200bsp"])
def test_hostile_titles_are_kept_clean(tmp_path, name):
    papers, _ = read(write(tmp_path, "x.jsonl", json.dumps({"id": name, "title": name, "abstract": "We study X."})))
    assert papers[0].title == papers[0].title.strip() and "\n" not in papers[0].title
    assert "\u202e" not in papers[0].title and "\u200b" not in papers[0].id


def test_truncated_json_document_is_reported_with_its_line(tmp_path):
    doc = json.dumps([{"id": "a", "abstract": "One abstract here."}, {"id": "b", "abstract": "Two"}], indent=1)
    papers, report = read(write(tmp_path, "t.json", doc[: len(doc) // 2 + 7]), str(ok_input(tmp_path)))
    assert [p.id for p in papers] == ["ok1"]  # the other input is still read
    (problem,) = report.skipped
    assert problem.source.endswith("t.json") and problem.line and problem.reason.startswith("bad JSON")


def ok_input(tmp_path):
    return write(tmp_path, "ok.jsonl", json.dumps({"id": "ok1", "abstract": "A fine abstract."}))


def test_duplicates_within_one_input_and_mixed_newlines(tmp_path):
    rows = [json.dumps({"id": "d1", "abstract": "First abstract text."}),
            json.dumps({"id": "d2", "abstract": "Second abstract text."}),
            json.dumps({"id": "d1", "abstract": "First abstract text, again."})]
    mixed = rows[0] + "\r\n" + rows[1] + "\r" + rows[2] + "\n"
    papers, report = read(write(tmp_path, "m.jsonl", mixed))
    assert [p.id for p in papers] == ["d1", "d2"]
    (dup,) = report.skipped
    assert dup.line == 3 and dup.reason.startswith("duplicate") and "m.jsonl:1" in dup.reason


@pytest.mark.parametrize("year", ["99999999999999999999", "1e308", "1e999", "-5", "0", "true", '"20245"',
                                  '"99999999999999999999"', "2024.5e300"])
def test_a_year_no_store_can_hold_is_a_warning_not_a_failed_build(tmp_path, monkeypatch, year):
    """JSONL and CSV: the record is kept without the year, the problem named by file and line."""
    from kg.builder import build

    monkeypatch.setenv("KG_SPANS", "off")

    good = '{"id": "a", "abstract": "We propose FooNet for image classification.", "year": 2024}'
    bad = f'{{"id": "b", "abstract": "We propose BarNet for retrieval.", "year": {year}}}'
    jsonl = write(tmp_path, "p.jsonl", good + "\n" + bad + "\n")
    papers, report = read(jsonl)
    assert [p.year for p in papers] == [2024, None]
    assert any(p.line == 2 and p.source == jsonl and "bad year" in p.reason for p in report.problems), report.problems
    csv_year = json.loads(year) if year.startswith('"') else year
    csv_file = write(tmp_path, "p.csv", f"id,abstract,year\na,We propose FooNet.,2024\nb,We propose BarNet.,{csv_year}\n")
    papers, report = read(csv_file)
    assert [p.year for p in papers] == [2024, None] and any(p.line == 3 for p in report.problems)
    result = build([jsonl, csv_file], tmp_path / "g")  # the whole build goes through
    assert result.manifest["papers"] == 2


def test_a_stray_nul_byte_costs_its_record_at_most_not_the_file(tmp_path):
    lines = ['{"id": "a", "abstract": "We propose Foo\u0000Net for image classification."}',
             '{"id": "b", "abstract": "We propose BarNet for retrieval."}']
    path = write(tmp_path, "p.jsonl", "\n".join(lines).replace("\\u0000", "\x00") + "\n")
    papers, report = read(path)  # a raw control character is not JSON: that record is reported
    assert [p.id for p in papers] == ["b"] and [(p.source, p.line) for p in report.skipped] == [(path, 1)]
    binary = write(tmp_path, "b.jsonl", bytes(range(256)) * 40)
    assert any("binary" in p.reason for p in read(binary)[1].skipped)


def test_a_csv_field_may_be_as_long_as_a_record(tmp_path):
    long = "We propose FooNet. " + "x" * 300_000
    path = write(tmp_path, "p.csv", f'id,abstract\na,"{long}"\nb,We propose BarNet.\n')
    papers, report = read(path)
    assert [p.id for p in papers] == ["a", "b"] and not report.skipped, report.problems
