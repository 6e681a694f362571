"""Readers: paper lists in (plain text, JSONL, JSON, CSV, stdin), ``Paper`` records out.

Malformed records are reported through a :class:`ReadReport` with their file and line and
skipped; every other record is still read.

>>> import io
>>> report = ReadReport()
>>> papers = list(read_text("x.txt", "ICML 2026 list\\n\\nWe propose X, a new method.\\n", report))
>>> papers[0].venue, papers[0].year, papers[0].id.startswith("icml2026-")
('ICML 2026', 2026, True)
"""

from __future__ import annotations

import csv
import io
import json
import re
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kg.errors import InputError
from kg.records import Paper
from kg.text import clean, clean_id, short_hash

FORMATS = ("txt", "jsonl", "json", "csv")
_EXT = {".txt": "txt", ".md": "txt", ".text": "txt", ".jsonl": "jsonl", ".ndjson": "jsonl",
        ".json": "json", ".csv": "csv", ".tsv": "csv"}
_VENUE = re.compile(r"\b([A-Z][A-Za-z&-]{1,15})\s*['’]?\s*((?:19|20)\d\d)\b")
_PLACEHOLDERS = {"abstract unavailable", "no abstract", "no abstract available", "n/a", "na",
                 "none", "null", "tba", "tbd", "abstract missing"}
_YEAR = re.compile(r"\b((?:19|20)\d\d)\b")
#: the most text one record may hold (title and abstract); a longer one is skipped, not cut
MAX_RECORD_CHARS = 2_000_000
#: the longest paper id kept as written; a longer one keeps its start and gains a hash, so every
#: sink (Neo4j indexes, IRIs, file names) accepts it and it still names one paper
MAX_ID = 128
_SURROGATE = re.compile("[\ud800-\udfff]")


@dataclass(frozen=True, slots=True)
class Problem:
    """Something wrong with one record (``skipped``) or recoverable (``warning``)."""

    source: str
    line: int | None
    reason: str
    severity: str = "skipped"

    def __str__(self) -> str:
        where = f"{self.source}:{self.line}" if self.line is not None else self.source
        return f"{where}: {self.reason}"


@dataclass
class ReadReport:
    """Collects problems while reading; the CLI prints it and picks the exit code."""

    problems: list[Problem] = field(default_factory=list)
    read: int = 0

    def skip(self, source: str, line: int | None, reason: str) -> None:
        self.problems.append(Problem(source, line, reason, "skipped"))

    def warn(self, source: str, line: int | None, reason: str) -> None:
        self.problems.append(Problem(source, line, reason, "warning"))

    @property
    def skipped(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == "skipped"]

    def summary(self) -> dict[str, int]:
        """Skipped records counted by reason (the part of the reason before any colon)."""
        out: dict[str, int] = {}
        for p in self.skipped:
            key = p.reason.split(":")[0]
            out[key] = out.get(key, 0) + 1
        return dict(sorted(out.items()))


def decode(data: bytes, source: str, report: ReadReport) -> str:
    """Decode bytes as UTF-8 (with or without BOM) or UTF-16 (with BOM).

    Invalid UTF-8 bytes become U+FFFD with a warning; binary data is an :class:`InputError`.
    """
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return data.decode("utf-16")
        except UnicodeDecodeError as exc:
            raise InputError(f"{source}: invalid UTF-16 ({exc.reason}); re-save it as UTF-8") from None
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    head = data[:8192]
    nul = head.count(b"\x00")  # text may hold a stray NUL; binary files hold many, or are not UTF-8
    if nul and (nul * 100 > len(head) or head.decode("utf-8", "replace").count("\ufffd") > 3):
        raise InputError(f"{source}: looks like a binary file, not a paper list; "
                         "give a .txt, .jsonl, .json or .csv file")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        text = data.decode("utf-8", errors="replace")
        for no, line in enumerate(split_lines(text), 1):
            if "\ufffd" in line:
                report.warn(source, no, "invalid UTF-8 bytes replaced with U+FFFD")
        return text


def detect_format(name: str, text: str) -> str:
    """The format from the file extension, else from the content."""
    ext = Path(name).suffix.lower()
    if ext in _EXT:
        return _EXT[ext]
    head = text.lstrip()[:2000]
    if head.startswith("["):
        return "json"
    if head.startswith("{"):
        first = head.splitlines()[0].strip()
        return "jsonl" if first.endswith("}") else "json"
    first = head.splitlines()[0] if head else ""
    if "abstract" in first.lower() and ("," in first or "\t" in first):
        return "csv"
    return "txt"


def _venue_year(text: str | None) -> tuple[str | None, int | None]:
    if not text:
        return None, None
    m = _VENUE.search(text)
    if m:
        return f"{m.group(1)} {m.group(2)}", int(m.group(2))
    y = _YEAR.search(text)
    return None, (int(y.group(1)) if y else None)


def _year(value: object) -> int:
    """A record's year: a whole number from 1 to 9999 (as a number or text); anything else is a
    ValueError (or OverflowError for an infinite float), never a number no store can hold.

    >>> _year("2024"), _year(2024.0)
    (2024, 2024)
    """
    if isinstance(value, bool):
        raise TypeError("a year is not true or false")
    if isinstance(value, str) and len(value.strip()) > 8:
        raise ValueError("too long for a year")
    year = int(value)  # type: ignore[call-overload]
    if not 1 <= year <= 9999:
        raise ValueError("out of range")
    return year


def _venue_slug(venue: str | None) -> str:
    return re.sub(r"[^a-z0-9]+", "", venue.lower()) if venue else "paper"


def split_lines(text: str) -> list[str]:
    """Lines split at LF, CRLF or a lone CR only: ``str.splitlines`` would also split at
    U+2028, form feeds and other characters that JSON strings may hold."""
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def read_text(source: str, text: str, report: ReadReport) -> Iterator[Paper]:
    """A plain-text list: a title line naming the list, then one abstract per paragraph."""
    lines = split_lines(text)
    paragraphs: list[tuple[int, list[str]]] = []
    current: list[str] = []
    start = 0
    for no, line in enumerate(lines, 1):
        if line.strip():
            if not current:
                start = no
            current.append(line)
        elif current:
            paragraphs.append((start, current))
            current = []
    if current:
        paragraphs.append((start, current))
    venue = year = None
    if len(paragraphs) > 1:  # a lone paragraph is an abstract, however short (a piped one)
        first_no, first = paragraphs[0]
        head = " ".join(first).strip()
        if len(first) == 1 and len(head) < 160 and not head.endswith("."):
            venue, year = _venue_year(head)
            paragraphs = paragraphs[1:]
            if len(first) == 1 and len(paragraphs) and not venue:
                report.warn(source, first_no, "title line names no venue and year")
    if not paragraphs:
        report.skip(source, None, "empty: no abstracts found")
        return
    prefix = _venue_slug(venue)
    for no, para in paragraphs:
        size = sum(map(len, para))
        if size > MAX_RECORD_CHARS:
            report.skip(source, no, f"too long: {size:,} characters of text, more than the "
                        f"{MAX_RECORD_CHARS:,} one record may hold")
            continue
        abstract = clean(" ".join(para))
        if len(abstract) < 20:
            report.skip(source, no, f"too short to be an abstract: {abstract[:40]!r}")
            continue
        yield Paper(id=f"{prefix}-{short_hash(abstract)}", abstract=abstract, venue=venue,
                    year=year, source=f"{source}:{no}")


def _as_list(value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        parts = re.split(r";|,(?![^()]*\))" if ";" in value or "," in value else r"\n", value)
        return tuple(clean(p) for p in parts if clean(p))
    if isinstance(value, list | tuple):
        return tuple(clean(str(v)) for v in value if v is not None and clean(str(v)))
    return (clean(str(value)),)


_FORUM = re.compile(r"[?&]id=([\w-]+)")


def _id_from_links(rec: dict) -> str | None:
    """A stable id from a record's links: OpenReview ``forum?id=X``, else the PDF's file name."""
    for key in ("forum", "url", "pdf"):
        link = rec.get(key)
        if not isinstance(link, str) or not link:
            continue
        m = _FORUM.search(link)
        if m:
            return m.group(1)
        if key == "pdf":
            stem = link.rstrip("/").rsplit("/", 1)[-1]
            if stem.endswith(".pdf") and len(stem) > 8:
                return stem[:-4]
    return None


def paper_from_record(rec: Any, source: str, line: int | None, report: ReadReport) -> Paper | None:
    """One JSON/CSV record as a Paper, or ``None`` (reported) when it cannot be one: whatever
    is wrong with one record, the others are still read."""
    if not isinstance(rec, dict):
        report.skip(source, line, f"not an object: a record must be a JSON object, got {type(rec).__name__}")
        return None
    try:
        return _paper(_no_surrogates(rec, source, line, report), source, line, report)
    except Exception as exc:  # noqa: BLE001  (one record's problem is reported, not raised)
        report.skip(source, line, f"unreadable record: {type(exc).__name__}: {str(exc)[:200]}")
        return None


def _no_surrogates(rec: dict, source: str, line: int | None, report: ReadReport) -> dict:
    """The record with lone UTF-16 surrogates (``"\\ud83d"`` in JSON, which no UTF-8 file can
    hold) replaced by U+FFFD, with a warning."""
    def fix(v: Any) -> Any:
        if isinstance(v, str):
            return _SURROGATE.sub("\ufffd", v)
        if isinstance(v, list):
            return [fix(x) if isinstance(x, str) else x for x in v]
        return v

    out = {fix(k): fix(v) for k, v in rec.items()}
    if out != rec:
        report.warn(source, line, "lone surrogate escapes replaced with U+FFFD")
    return out


def _paper(rec: dict, source: str, line: int | None, report: ReadReport) -> Paper | None:
    raw_abstract = rec.get("abstract")
    raw_title = rec.get("title")
    if raw_abstract is not None and not isinstance(raw_abstract, str):
        report.skip(source, line, "bad abstract: 'abstract' must be a string")
        return None
    size = len(raw_abstract or "") + len(str(raw_title or ""))
    if size > MAX_RECORD_CHARS:
        report.skip(source, line, f"too long: {size:,} characters of text, more than the "
                    f"{MAX_RECORD_CHARS:,} one record may hold")
        return None
    abstract = clean(raw_abstract or "")
    if abstract.lower().strip(" .") in _PLACEHOLDERS:
        abstract = ""
    title = clean(str(raw_title)) if raw_title else ""
    if not abstract:
        if not title:
            report.skip(source, line, "no abstract: the record has neither abstract nor title")
            return None
        report.warn(source, line, "empty abstract: only the title is kept")
    venue_raw = rec.get("venue") or rec.get("venue_string") or rec.get("conference")
    venue, vyear = _venue_year(str(venue_raw)) if venue_raw else (None, None)
    year = rec.get("year")
    try:
        year = _year(year) if year not in (None, "") else vyear
    except (TypeError, ValueError, OverflowError):
        report.warn(source, line, f"bad year {str(year)[:40]!r} ignored (a year is a whole number from 1 to 9999)")
        year = vyear
    if venue is None and venue_raw:
        venue = f"{clean(str(venue_raw))} {year}" if year else clean(str(venue_raw))
    # an id is an identifier, not prose: "nWLt35BU1z_" keeps the underscore that markdown
    # cleaning would take for emphasis
    rid = clean_id(str(rec.get("id") or ""))
    if not rid:
        rid = _id_from_links(rec) or _venue_slug(venue) + "-" + short_hash(title + "\n" + abstract)
    if len(rid) > MAX_ID:
        report.warn(source, line, f"id of {len(rid):,} characters shortened to {MAX_ID}")
        rid = rid[:MAX_ID - 17] + "-" + short_hash(rid, 16)
    github = rec.get("github") or rec.get("code") or None
    url = next((rec[k] for k in ("url", "forum", "site") if isinstance(rec.get(k), str) and rec[k].strip()), None)
    pdf = rec.get("pdf") if isinstance(rec.get("pdf"), str) and rec["pdf"].strip() else None
    area = rec.get("primary_area") or rec.get("area")
    return Paper(
        id=rid,
        abstract=abstract,
        title=title,
        venue=venue,
        year=year,
        authors=_as_list(rec.get("authors")),
        url=clean(url) if url else None,
        pdf=clean(pdf) if pdf else None,
        area=clean(area) if isinstance(area, str) and area.strip() else None,
        github=clean(str(github)) if isinstance(github, str) and github.strip() else None,
        keywords=_as_list(rec.get("keywords")),
        source=f"{source}:{line}" if line is not None else source,
    )


_MAX_JOIN = 50  # lines a record broken by raw newlines may span


def read_jsonl(source: str, text: str, report: ReadReport) -> Iterator[Paper]:
    """JSON Lines. A record broken over several lines by raw newlines inside a string is
    joined back (with a warning); any other bad line is reported and skipped."""
    lines = split_lines(text)
    i = 0
    while i < len(lines):
        no, line = i + 1, lines[i]
        i += 1
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except RecursionError:
            report.skip(source, no, "bad JSON: nested too deeply")
            continue
        except json.JSONDecodeError as exc:
            rec = None
            if "Unterminated string" in exc.msg or "control character" in exc.msg:
                for j in range(i, min(i + _MAX_JOIN, len(lines))):
                    try:
                        rec = json.loads("\n".join(lines[no - 1 : j + 1]), strict=False)
                    except (json.JSONDecodeError, RecursionError):
                        continue
                    report.warn(source, no, f"record spans lines {no}-{j + 1} "
                                "(raw newline inside a string); joined")
                    i = j + 1
                    break
            if rec is None:
                report.skip(source, no, f"bad JSON: {exc.msg} at column {exc.colno}")
                continue
        paper = paper_from_record(rec, source, no, report)
        if paper is not None:
            yield paper


def read_json(source: str, text: str, report: ReadReport) -> Iterator[Paper]:
    try:
        doc = json.loads(text)
    except RecursionError:
        report.skip(source, 1, "bad JSON: nested too deeply; the whole document was skipped")
        return
    except json.JSONDecodeError as exc:
        report.skip(source, exc.lineno, f"bad JSON: {exc.msg} at column {exc.colno}; "
                    "the whole document was skipped (is it truncated?)")
        return
    if isinstance(doc, dict):
        doc = doc.get("papers", doc.get("records", [doc]))
    if not isinstance(doc, list):
        report.skip(source, 1, "bad JSON: expected a list of paper objects")
        return
    line_of = _json_record_lines(text, len(doc))
    for i, rec in enumerate(doc):
        paper = paper_from_record(rec, source, line_of[i] if i < len(line_of) else None, report)
        if paper is not None:
            yield paper


def _json_record_lines(text: str, n: int) -> list[int]:
    """Best-effort line numbers of the top-level objects of a JSON array."""
    lines, depth, line, in_str, esc = [], 0, 1, False, False
    for ch in text:
        if ch == "\n":
            line += 1
        if in_str:
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == '"':
                in_str = False
            continue
        if ch == '"':
            in_str = True
        elif ch in "[{":
            depth += 1
            if depth == 2:
                lines.append(line)
                if len(lines) >= n:
                    break
        elif ch in "]}":
            depth -= 1
    return lines


def read_csv(source: str, text: str, report: ReadReport) -> Iterator[Paper]:
    sample = text[:4096]
    delimiter = "\t" if sample.count("\t") > sample.count(",") else ","
    if csv.field_size_limit() <= MAX_RECORD_CHARS:  # a field may be as long as a record (131,072 by default)
        csv.field_size_limit(MAX_RECORD_CHARS + 1)
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    try:
        header = [h.strip().lower() for h in next(reader)]
    except StopIteration:
        report.skip(source, None, "empty: no header row")
        return
    except csv.Error as exc:
        report.skip(source, 1, f"bad CSV: {exc}")
        return
    if "abstract" not in header and "title" not in header:
        report.skip(source, 1, "bad CSV: the header has neither an 'abstract' nor a 'title' column")
        return
    while True:
        line = reader.line_num + 1
        try:
            row = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            report.skip(source, line, f"bad CSV: {exc}")
            continue
        if not any(c.strip() for c in row):
            continue
        if len(row) != len(header):
            report.skip(source, line, f"ragged row: {len(row)} fields where the header has {len(header)}")
            continue
        paper = paper_from_record(dict(zip(header, row, strict=True)), source, line, report)
        if paper is not None:
            yield paper


_READERS = {"txt": read_text, "jsonl": read_jsonl, "json": read_json, "csv": read_csv}


def read_source(name: str, report: ReadReport, fmt: str | None = None) -> Iterator[Paper]:
    """Read one input (a path, or ``-`` for stdin)."""
    if name == "-":
        data = sys.stdin.buffer.read()
        source = "<stdin>"
    else:
        path = Path(name)
        if not path.exists():
            raise InputError(f"{name}: no such file")
        if path.is_dir():
            raise InputError(f"{name}: is a folder; give the paper list files inside it")
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise InputError(f"{name}: cannot read ({exc.strerror})") from None
        source = name
    text = decode(data, source, report)
    if not text.strip():
        report.skip(source, None, "empty: the input has no text")
        return
    fmt = fmt or detect_format(name if name != "-" else "", text)
    if fmt not in _READERS:
        raise InputError(f"unknown format {fmt!r}; use one of {', '.join(FORMATS)}")
    yield from _READERS[fmt](source, text, report)


def check_inputs(inputs: Iterable[str]) -> list[str]:
    """The inputs, when each is ``-`` or a readable file; else an :class:`InputError` naming
    every one that is not (checked before anything is read or written)."""
    inputs = list(inputs)
    bad = []
    for name in inputs:
        if name == "-":
            continue
        path = Path(name)
        if path.is_dir():
            bad.append(f"{name}: is a folder; give the paper list files inside it")
        elif not path.is_file():
            bad.append(f"{name}: no such file")
        else:
            try:
                with path.open("rb"):
                    pass
            except OSError as exc:
                bad.append(f"{name}: cannot read ({exc.strerror})")
    if not inputs:
        bad.append("no inputs given")
    if bad:
        raise InputError("; ".join(bad) + ("; nothing was read or written" if inputs else ""))
    return inputs


def read_papers(inputs: Iterable[str], report: ReadReport | None = None,
                fmt: str | None = None) -> Iterator[Paper]:
    """Read several inputs in order; duplicate paper ids are reported and skipped.

    An input that cannot be opened at all is reported and skipped too, so one bad file
    does not lose the others.
    """
    report = report if report is not None else ReadReport()
    seen: dict[str, str] = {}
    for name in inputs:
        try:
            for paper in read_source(name, report, fmt):
                if paper.id in seen:
                    src, _, line = (paper.source or name).rpartition(":")
                    report.skip(src or name, int(line) if line.isdigit() else None,
                                f"duplicate: paper {paper.id} already read from {seen[paper.id]}")
                    continue
                seen[paper.id] = paper.source or name
                report.read += 1
                yield paper
        except InputError as exc:
            report.skip(name, None, f"unreadable: {exc}")
