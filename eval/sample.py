#!/usr/bin/env python3
"""Reproducible sampler for the paper-level entity gold set.

Prints one line per sampled paper: ``source_file<TAB>id``.

Sampling (fixed seed ``random.Random(2026)``, files visited in the order below):

* ``icml2024.jsonl``, ``iclr2024.jsonl``, ``neurips2023.jsonl``: 24 papers each, uniformly.
* ``paperlists-2010-2025.jsonl``: 12 papers from 2010-2020 and 12 from 2021-2025,
  so the older venues are present but recent papers are not drowned out.

Records whose abstract is empty or shorter than 300 characters are skipped.

``iclr2024.jsonl`` has no ``id`` field; its paper id is the 40-hex name of the
OpenReview PDF in the ``pdf`` field (``https://openreview.net/pdf/<id>.pdf``).
:func:`paper_id` is the single place that rule lives; ``check_gold.py`` imports it.

Split: ``tune`` when ``int(sha256(id)[:8], 16) % 10 < 6``, else ``heldout``
(about 60 / 40, independent of sampling order).

Fresh draw (:func:`sample_fresh`): a second, independent draw of 40 papers for the ``fresh``
split, made after ``heldout`` had been looked at during development. Seed
``random.Random(2027)``, same files, filters and abstract rule, the same proportions scaled to 40
(10 + 10 + 10 + 5 + 5, see ``FRESH_PLAN``), and no paper of the first draw. Every paper of this
draw is in split ``fresh``; the hash split does not apply to it.

Train draw (:func:`sample_train`): a third draw of 80 papers for the ``train`` split, where rules
and learned components may be fitted freely. Seed ``random.Random(2028)``, same files, filters and
abstract rule, ``TRAIN_PLAN`` (20 + 20 + 20 + 10 + 10), and no paper of the first two draws.

Bulk draw (:func:`sample_bulk`): 320 more papers for the ``bulk`` split, annotated the same way
so that data-driven parts (lexicon growth by annotation rate, a trained span model) have
enough examples. Seed ``random.Random(2029)``, ``BULK_PLAN`` (80 + 80 + 80 + 40 + 40), and no
paper of the earlier draws. Development data, like ``train``.

Usage::

    python eval/sample.py                 # source_file<TAB>id
    python eval/sample.py --with-split    # source_file<TAB>id<TAB>split
    python eval/sample.py --fresh         # the fresh draw (with --with-split: split "fresh")
    python eval/sample.py --train         # the train draw (with --with-split: split "train")
    python eval/sample.py --bulk          # the bulk draw (with --with-split: split "bulk")
    python eval/sample.py --data DIR      # paper lists elsewhere (default ../shared/data/papers)
"""
from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
from functools import cache
from pathlib import Path

SEED = 2026
MIN_ABSTRACT_CHARS = 300
DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "papers"


def _plan(per_list: int, per_era: int) -> list[tuple[str, str, int]]:
    """(file, filter name, count) for one draw; order matters for reproducibility."""
    return [
        ("icml2024.jsonl", "all", per_list),
        ("iclr2024.jsonl", "all", per_list),
        ("neurips2023.jsonl", "all", per_list),
        ("paperlists-2010-2025.jsonl", "2010-2020", per_era),
        ("paperlists-2010-2025.jsonl", "2021-2025", per_era),
    ]


PLAN = _plan(24, 12)
FRESH_SEED, FRESH_SPLIT, FRESH_PLAN = 2027, "fresh", _plan(10, 5)
TRAIN_SEED, TRAIN_SPLIT, TRAIN_PLAN = 2028, "train", _plan(20, 10)
BULK_SEED, BULK_SPLIT, BULK_PLAN = 2029, "bulk", _plan(80, 40)
# the draws in the order they were made: each excludes every paper of the draws before it
_DRAWS = [(SEED, PLAN), (FRESH_SEED, FRESH_PLAN), (TRAIN_SEED, TRAIN_PLAN), (BULK_SEED, BULK_PLAN)]


def paper_id(record: dict) -> str:
    """The paper id of a record: its ``id``, else the OpenReview PDF name (ICLR 2024)."""
    if record.get("id"):
        return str(record["id"])
    pdf = record.get("pdf") or ""
    stem = pdf.rstrip("/").rsplit("/", 1)[-1]
    if stem.endswith(".pdf"):
        stem = stem[: -len(".pdf")]
    if not stem:
        raise ValueError(f"record without id or pdf: {record.get('title')!r}")
    return stem


def split_of(pid: str) -> str:
    """Deterministic ~60/40 tune/heldout split by hash of the paper id."""
    return "tune" if int(hashlib.sha256(pid.encode()).hexdigest()[:8], 16) % 10 < 6 else "heldout"


def load(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def _keep(record: dict, flt: str) -> bool:
    if len((record.get("abstract") or "").strip()) < MIN_ABSTRACT_CHARS:
        return False
    if flt == "all":
        return True
    lo, hi = (int(x) for x in flt.split("-"))
    return lo <= int(record.get("year") or 0) <= hi


@cache
def _draws(data_dir: Path) -> tuple[list[tuple[str, dict]], ...]:
    """All draws of :data:`_DRAWS`, each file read once."""
    files: dict[str, list[dict]] = {}
    seen: set[str] = set()
    out = []
    for seed, plan in _DRAWS:
        rng = random.Random(seed)
        drawn: list[tuple[str, dict]] = []
        for fname, flt, n in plan:
            if fname not in files:
                files[fname] = load(data_dir / fname)
            pool = [r for r in files[fname] if _keep(r, flt) and paper_id(r) not in seen]
            for rec in rng.sample(pool, n):
                seen.add(paper_id(rec))
                drawn.append((fname, rec))
        out.append(drawn)
    return tuple(out)


def sample(data_dir: Path = DEFAULT_DATA) -> list[tuple[str, dict]]:
    """Return ``(source_file, record)`` pairs in a fixed order."""
    return list(_draws(Path(data_dir))[0])


def sample_fresh(data_dir: Path = DEFAULT_DATA) -> list[tuple[str, dict]]:
    """The ``fresh`` draw: ``FRESH_PLAN`` with ``FRESH_SEED``, excluding every paper of :func:`sample`.

    The excluded ids are those of the first draw, which are exactly the ``tune``/``heldout`` ids
    of the gold file; they are taken from the draw rather than read from the gold file so that
    the fresh draw does not change when rows are added to that file.
    """
    return list(_draws(Path(data_dir))[1])


def sample_train(data_dir: Path = DEFAULT_DATA) -> list[tuple[str, dict]]:
    """The ``train`` draw: ``TRAIN_PLAN`` with ``TRAIN_SEED``, excluding both earlier draws."""
    return list(_draws(Path(data_dir))[2])


def sample_bulk(data_dir: Path = DEFAULT_DATA) -> list[tuple[str, dict]]:
    """The ``bulk`` draw: ``BULK_PLAN`` with ``BULK_SEED``, excluding the three earlier draws."""
    return list(_draws(Path(data_dir))[3])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--with-split", action="store_true")
    ap.add_argument("--fresh", action="store_true", help="print the fresh draw (split 'fresh')")
    ap.add_argument("--train", action="store_true", help="print the train draw (split 'train')")
    ap.add_argument("--bulk", action="store_true", help="print the bulk draw (split 'bulk')")
    args = ap.parse_args()
    lines = []
    if args.fresh:
        drawn = sample_fresh(args.data)
    elif args.train:
        drawn = sample_train(args.data)
    elif args.bulk:
        drawn = sample_bulk(args.data)
    else:
        drawn = sample(args.data)
    for fname, rec in drawn:
        pid = paper_id(rec)
        split = (FRESH_SPLIT if args.fresh else TRAIN_SPLIT if args.train
                 else BULK_SPLIT if args.bulk else split_of(pid))
        lines.append(f"{fname}\t{pid}" + (f"\t{split}" if args.with_split else ""))
    try:
        sys.stdout.write("\n".join(lines) + "\n")
        sys.stdout.flush()
    except BrokenPipeError:  # e.g. piped into `head`
        sys.stderr.close()


if __name__ == "__main__":
    main()
