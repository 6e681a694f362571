#!/usr/bin/env python
"""Calibrate the confidence of extracted facts on held-out gold papers.

    python scripts/calibrate.py eval/gold/papers.jsonl --split heldout [--model default] [--write]

Extracts the gold papers of ``--split`` (papers the models never trained on) with the current
pipeline, its shipped calibration switched off, and collects (raw score, right or wrong) for
every PROPOSES and typed edge, matched as ``kg eval`` matches (:func:`kg.evaluate.labelled_facts`).
Per kind it then

- fits an isotonic mapping on one half of the papers and measures it on the other, and the
  other way round (two folds by paper id), so the "calibrated" table is on papers the mapping
  did not see;
- fits the mapping on all the papers and, with ``--write``, writes it to
  ``kg/data/calibration/calibration.json`` (``--out`` elsewhere), which extraction then applies.

It prints, in markdown, a reliability table per kind (bins, count, mean score, fraction right,
ECE) before and after. A kind with fewer than ``--min-facts`` facts is reported, not fitted.
"""

from __future__ import annotations

import argparse
import os
import sys
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def folds(facts: list[tuple[str, str, float, bool]]) -> list[tuple[float, bool, float]]:
    """(raw, right, calibrated) per fact, each calibrated by the mapping fitted on the other fold."""
    from kg.calibration import fit_isotonic

    out = []
    for k in (0, 1):
        # a salted hash: the development papers are those whose plain crc32 is 0 mod 10 (all even)
        train = [(s, r) for pid, _, s, r in facts if zlib.crc32(f"calibration:{pid}".encode()) % 2 != k]
        test = [(s, r) for pid, _, s, r in facts if zlib.crc32(f"calibration:{pid}".encode()) % 2 == k]
        if not train or not test:
            continue
        m = fit_isotonic([s for s, _ in train], [r for _, r in train])
        out += [(s, r, m(s)) for s, r in test]
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("gold", type=Path, help="paper-level gold (eval/gold/papers.jsonl)")
    ap.add_argument("--split", action="append", help="held-out split(s) to calibrate on (default: heldout)")
    ap.add_argument("--papers", type=Path, default=ROOT.parent / "shared" / "data" / "papers")
    ap.add_argument("--model", default=None, help="pipeline: default, fast, off or a span model folder")
    ap.add_argument("--bins", type=int, default=10)
    ap.add_argument("--min-facts", type=int, default=30)
    ap.add_argument("--write", action="store_true", help="write the mappings into the package data")
    ap.add_argument("--out", type=Path, default=None, help="write the mappings here instead")
    args = ap.parse_args(argv)

    os.environ["KG_CALIBRATION"] = "off"  # raw scores: the shipped mapping is what is being refitted
    from kg.calibration import CALIBRATION_FILE, fit_isotonic, reliability, write
    from kg.evaluate import gold_papers, labelled_facts, read_paper_gold
    from kg.extract import Extractor, resolve_pipeline

    rows = [r for s in (args.split or ["heldout"]) for r in read_paper_gold(args.gold, s)]
    if not rows:
        print(f"no gold papers in split(s) {args.split or ['heldout']}", file=sys.stderr)
        return 2
    cnn, enc = resolve_pipeline(args.model)
    ex = Extractor(spans_model=str(cnn or ""), encoder=str(enc or ""))
    exs = list(ex.extract_all(gold_papers(rows, args.papers)))
    facts = [(row["id"], kind, s, right) for row, e in zip(rows, exs, strict=True)
             for kind, s, right in labelled_facts([row], [e])]

    print(f"# Reliability of confidence: {len(rows)} gold papers ({', '.join(args.split or ['heldout'])}), "
          f"pipeline {args.model or 'default'}\n")
    mappings = {}
    for kind in sorted({k for _, k, _, _ in facts}):
        mine = [f for f in facts if f[1] == kind]
        raw = reliability([s for _, _, s, _ in mine], [r for *_, r in mine], args.bins)
        print(raw.markdown(f"{kind}, raw score"))
        if len(mine) < args.min_facts:
            print(f"{kind}: {len(mine)} facts, fewer than {args.min_facts}: not fitted\n")
            continue
        held = folds(mine)
        cal = reliability([c for *_, c in held], [r for _, r, _ in held], args.bins)
        print(cal.markdown(f"{kind}, calibrated (two folds by paper, each fitted on the other)"))
        mappings[kind] = fit_isotonic([s for _, _, s, _ in mine], [r for *_, r in mine])
    if args.write or args.out:
        path = write(mappings, args.out or CALIBRATION_FILE,
                     {"gold": args.gold.name, "splits": args.split or ["heldout"], "papers": len(rows),
                      "pipeline": args.model or "default", "facts": {k: sum(f[1] == k for f in facts) for k in mappings}})
        print(f"wrote {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
