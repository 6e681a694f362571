#!/usr/bin/env python3
"""The mention-level gold: its draw, its batches, the text annotators read, and span location.

Three draws, all reproducible and all excluding every paper of the paper-level draws
(``sample.py``) and each other:

* **Test draw** (``spantest``, seed 2031, :data:`TEST_N` papers): drawn first, before any
  training; annotated blind and scored once.
* **Train draw** (``spantrain``, seed 2030, :data:`TRAIN_N` papers): training data for the
  learned recogniser, in draw order, so that the first N papers are the learning-curve subset N.
* **Second test draw** (``spantest2``, seed 2033, :data:`TEST2_N` papers): drawn after the
  first two and excluding all of them (every paper of the train draw, annotated or not), before
  the contextual encoder was trained; annotated blind and scored once, when that work ends.
* **Third test draw** (``spantest3``, seed 2035, :data:`TEST3_N` papers): drawn after the three
  above and excluding all of them, once the second test draw had been scored; annotated blind
  and committed before any model it judges was trained, and scored once.

Both draw from all shared lists and years, weighted towards recent papers (weight 1 up to 2018,
2 for 2019-2022, 4 from 2023), without replacement (Efraimidis-Spirakis keys ``u ** (1 / w)``),
from records with an abstract of at least 300 characters and a title not seen before.

Batches: train papers ``50 k .. 50 k + 49`` are batch ``b{k:03d}``, test papers ``t{k:03d}``,
second-test papers ``25 k .. 25 k + 24`` are ``u{k:03d}``, third-test ones ``w{k:03d}``;
``d{k:03d}`` is a second, independent annotation of the papers of ``b{k:03d}``, ``v{k:03d}`` one
of the papers of ``u{k:03d}`` and ``x{k:03d}`` one of those of ``w{k:03d}`` (agreement).

Usage::

    python eval/spans.py draw [--split spantest|spantrain]     # source<TAB>id<TAB>split<TAB>batch
    python eval/spans.py show b003                             # the text annotators read
"""
from __future__ import annotations

import argparse
import json
import random
import re
import sys
from functools import cache
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))
import sample  # noqa: E402

from kg.text import clean  # noqa: E402

FILES = ("icml2024.jsonl", "iclr2024.jsonl", "neurips2023.jsonl", "paperlists-2010-2025.jsonl")
TEST_SEED, TEST_SPLIT, TEST_N = 2031, "spantest", 150
TRAIN_SEED, TRAIN_SPLIT, TRAIN_N = 2030, "spantrain", 3000
TEST2_SEED, TEST2_SPLIT, TEST2_N = 2033, "spantest2", 150
TEST3_SEED, TEST3_SPLIT, TEST3_N = 2035, "spantest3", 150
#: the blind splits, which no training step may read
TEST_SPLITS = (TEST_SPLIT, TEST2_SPLIT, TEST3_SPLIT)
#: batch prefix -> (split, prefix of the batch it annotates)
PREFIXES = {"b": (TRAIN_SPLIT, "b"), "t": (TEST_SPLIT, "t"), "u": (TEST2_SPLIT, "u"), "w": (TEST3_SPLIT, "w"),
            "d": (TRAIN_SPLIT, "b"), "v": (TEST2_SPLIT, "u"), "x": (TEST3_SPLIT, "w")}
BATCH = 50
#: the later test draws are annotated in smaller batches (six annotators, 25 papers each)
BATCH_OF = {"u": 25, "v": 25, "w": 25, "x": 25}
GOLD_DIR = HERE / "gold" / "spans"
#: the shipped span model is trained on the first MODEL_BATCHES training batches (b000-b040);
#: raise it and run ``make model`` to train on batches annotated since
MODEL_BATCHES = 41


def weight(year: int) -> int:
    """Recent papers weigh more: the product is read mostly on recent lists."""
    return 4 if year >= 2023 else 2 if year >= 2019 else 1


def _year(rec: dict, fname: str) -> int:
    if rec.get("year"):
        return int(rec["year"])
    m = re.search(r"(20\d\d)", fname)
    return int(m.group(1)) if m else 0


def _title_key(rec: dict) -> str:
    return re.sub(r"\W+", " ", (rec.get("title") or "").lower()).strip()


@cache
def _pool(data_dir: Path) -> tuple[tuple[str, dict], ...]:
    """Every eligible record of the shared lists, in file order, deduplicated by id and title,
    without the papers of the paper-level draws."""
    taken = {sample.paper_id(r) for draw in sample._draws(data_dir) for _, r in draw}
    seen_ids, seen_titles, out = set(taken), set(), []
    for fname in FILES:
        for rec in sample.load(data_dir / fname):
            if len((rec.get("abstract") or "").strip()) < sample.MIN_ABSTRACT_CHARS:
                continue
            pid, tkey = sample.paper_id(rec), _title_key(rec)
            if pid in seen_ids or (tkey and tkey in seen_titles):
                continue
            seen_ids.add(pid)
            seen_titles.add(tkey)
            out.append((fname, rec))
    return tuple(out)


def _weighted(pool: list[tuple[str, dict]], seed: int, n: int) -> list[tuple[str, dict]]:
    rng = random.Random(seed)
    keyed = [(rng.random() ** (1.0 / weight(_year(r, f))), i) for i, (f, r) in enumerate(pool)]
    keyed.sort(key=lambda t: (-t[0], t[1]))
    return [pool[i] for _, i in keyed[:n]]


@cache
def draws(data_dir: Path = sample.DEFAULT_DATA) -> dict[str, list[tuple[str, dict]]]:
    """``{"spantest": [...], "spantrain": [...], "spantest2": [...], "spantest3": [...]}``:
    ``(source_file, record)`` in draw order. Each later draw leaves out the papers of the earlier
    ones, so adding one changes none before it."""
    pool = list(_pool(Path(data_dir)))
    test = _weighted(pool, TEST_SEED, TEST_N)
    test_ids = {sample.paper_id(r) for _, r in test}
    rest = [(f, r) for f, r in pool if sample.paper_id(r) not in test_ids]
    train = _weighted(rest, TRAIN_SEED, TRAIN_N)
    train_ids = {sample.paper_id(r) for _, r in train}
    rest2 = [(f, r) for f, r in rest if sample.paper_id(r) not in train_ids]
    test2 = _weighted(rest2, TEST2_SEED, TEST2_N)
    test2_ids = {sample.paper_id(r) for _, r in test2}
    rest3 = [(f, r) for f, r in rest2 if sample.paper_id(r) not in test2_ids]
    return {TEST_SPLIT: test, TRAIN_SPLIT: train, TEST2_SPLIT: test2, TEST3_SPLIT: _weighted(rest3, TEST3_SEED, TEST3_N)}


def batch_size(prefix: str) -> int:
    return BATCH_OF.get(prefix[0], BATCH)


def batch_of(split: str, index: int) -> str:
    prefix = next(p for p, (s, own) in PREFIXES.items() if s == split and p == own)
    return prefix + f"{index // batch_size(prefix):03d}"


def split_of_batch(name: str) -> str:
    """The split of a batch file's papers: ``t001`` -> ``spantest``, ``v000`` -> ``spantest2``,
    ``w002`` -> ``spantest3``."""
    return PREFIXES[name[0]][0]


def batch(name: str, data_dir: Path = sample.DEFAULT_DATA) -> list[tuple[str, dict]]:
    """The papers of batch ``b007``, ``t001``, ``u002``, ``w003``, ``d000`` (the papers of
    ``b000``), ``v000`` (those of ``u000``) or ``x000`` (those of ``w000``)."""
    m = re.fullmatch(r"([%s])(\d{3})" % "".join(PREFIXES), name)
    if not m:
        raise SystemExit(f"{name}: a batch is one of {', '.join(p + '###' for p in PREFIXES)}")
    split = PREFIXES[m.group(1)][0]
    k, n = int(m.group(2)), batch_size(m.group(1))
    return draws(Path(data_dir))[split][k * n:(k + 1) * n]


def texts(rec: dict) -> tuple[str, str]:
    """``(title, abstract)`` exactly as kg prints them (normalised)."""
    return clean(str(rec.get("title") or "")), clean(rec.get("abstract") or "")


# ------------------------------------------------------------------ locating mentions

def form_pattern(form: str) -> re.Pattern[str]:
    """Where a surface form occurs: whole words, an optional plural ``s``/``es``; case-insensitive
    for forms whose only capital is the first letter ("Reinforcement learning"), exact otherwise
    (acronyms and proper names: "SAM" is not "sam")."""
    flags = re.IGNORECASE if not any(c.isupper() for c in form[1:]) else 0
    return re.compile(r"(?<![\w])" + re.escape(form) + r"(?:e?s)?(?![\w])", flags)


def locate(form: str, text: str) -> list[tuple[int, int]]:
    return [(m.start(), m.end()) for m in form_pattern(form).finditer(text)]


def spans(row: dict, title: str, abstract: str) -> dict[str, list[tuple[int, int, str]]]:
    """Mention spans of a gold row in its title and abstract: every occurrence of every form
    (mentions, name and aliases) of every entity. Overlaps are kept; :func:`flat` picks one
    reading per token for a tagger."""
    out: dict[str, list[tuple[int, int, str]]] = {"title": [], "abstract": []}
    for ent in row["entities"]:
        forms = {f for f in [ent["name"], *ent.get("aliases", ()), *ent.get("mentions", ())] if f.strip()}
        for field, text in (("title", title), ("abstract", abstract)):
            found = {(s, e, ent["label"]) for f in forms for s, e in locate(f, text)}
            out[field].extend(sorted(found))
    return {k: sorted(set(v)) for k, v in out.items()}


def flat(found: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """Non-overlapping spans: longer first, then earlier."""
    taken: list[tuple[int, int, str]] = []
    for s, e, lab in sorted(found, key=lambda t: (-(t[1] - t[0]), t[0])):
        if all(e <= ts or s >= te for ts, te, _ in taken):
            taken.append((s, e, lab))
    return sorted(taken)


def read_rows(paths: list[Path]) -> list[dict]:
    rows = []
    for p in paths:
        for line in p.read_text(encoding="utf-8").splitlines():
            if line.strip():
                rows.append(json.loads(line))
    return rows


def gold_files(prefix: str = "b", complete: bool = True) -> list[Path]:
    """The batch files of a kind (``b``, ``t``, ``d``); with ``complete``, only those that hold
    every paper of their batch (a batch being annotated is not used yet)."""
    files = sorted(GOLD_DIR.glob(f"{prefix}[0-9][0-9][0-9].jsonl"))
    if complete:
        files = [f for f in files if sum(1 for x in f.read_text(encoding="utf-8").splitlines() if x.strip())
                 == batch_size(prefix)]
    return files


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("draw", help="print the draw: source, id, split, batch")
    d.add_argument("--split", choices=[TRAIN_SPLIT, *TEST_SPLITS], default=None)
    s = sub.add_parser("show", help="print the title and abstract of each paper of a batch (or of ids)")
    s.add_argument("batch", nargs="+", help="a batch name (b003) or paper ids")
    s.add_argument("--part", default=None, metavar="I/N",
                   help="only the I-th of N equal parts of the batch, in draw order (1/2: the first half)")
    for p in (d, s):
        p.add_argument("--data", type=Path, default=sample.DEFAULT_DATA)
    args = ap.parse_args()
    if args.cmd == "draw":
        for split, drawn in draws(args.data).items():
            if args.split in (None, split):
                for i, (fname, rec) in enumerate(drawn):
                    print(f"{fname}\t{sample.paper_id(rec)}\t{split}\t{batch_of(split, i)}")
    else:
        if re.fullmatch(r"[%s]\d{3}" % "".join(PREFIXES), args.batch[0]):
            chosen = batch(args.batch[0], args.data)
            if args.part:
                i, n = (int(x) for x in args.part.split("/"))
                chosen = chosen[(i - 1) * len(chosen) // n:i * len(chosen) // n]
        else:
            want = set(args.batch)
            chosen = [(f, r) for f in FILES for r in sample.load(args.data / f) if sample.paper_id(r) in want]
        for fname, rec in chosen:
            title, abstract = texts(rec)
            print(f"=== id: {sample.paper_id(rec)}   source: {fname}")
            print(f"TITLE: {title}")
            print(f"ABSTRACT: {abstract}\n")


if __name__ == "__main__":
    main()
