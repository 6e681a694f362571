#!/usr/bin/env python
"""Calibrate the confidence of extracted facts on held-out gold papers.

    python scripts/calibrate.py eval/gold/papers.jsonl --split heldout [--model default] [--write]
    python scripts/calibrate.py eval/gold/spans --split spantrain --development --model default --write

Extracts the gold papers of ``--split`` (papers the models never trained on; with
``--development``, only the development papers of the mention-level training draw, which no
model trains on) with the pipeline, its shipped calibration switched off, and collects (raw
score, right or wrong) for every PROPOSES and typed edge, matched as ``kg eval`` matches
(:func:`kg.evaluate.labelled_facts`). Per kind it then

- fits an isotonic mapping on one half of the papers and measures it on the other, and the
  other way round (two folds by paper id), so the "calibrated" table is on papers the mapping
  did not see;
- fits the mapping on all the papers and, with ``--write``, writes it next to the pipeline's
  decisions (:func:`kg.calibration.pipeline_file`; ``--out`` elsewhere), which extraction then
  applies. Only a kind whose held-out expected calibration error the mapping lowers is written:
  the others keep their raw score.

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


def views(facts: list[tuple[float, bool, float]], kind: str,
          thresholds=(0.0, 0.5, 0.6, 0.7, 0.8, 0.9)) -> str:
    """What ``--min-confidence`` keeps of ``(raw, right, confidence)`` facts: how many, the
    fraction right, and the share of the right facts kept (recall relative to no cut)."""
    right = sum(r for _, r, _ in facts) or 1
    rows = [f"**{kind}, views by confidence**\n", "| --min-confidence | facts | precision | right facts kept |",
            "|---:|---:|---:|---:|"]
    for t in thresholds:
        kept = [r for _, r, c in facts if c >= t]
        if kept:
            rows.append(f"| {t:.1f} | {len(kept)} | {sum(kept) / len(kept):.3f} | {sum(kept) / right:.3f} |")
    return "\n".join(rows) + "\n"


def development_ids(papers: Path) -> set[str]:
    """The development papers of the mention-level training draw: read by no training step."""
    sys.path[:0] = [str(ROOT / "scripts"), str(ROOT / "eval")]
    from train_encoder import all_rows, split_rows

    return {r["id"] for r, _ in split_rows(all_rows(papers))[1]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("gold", type=Path, help="paper-level gold (eval/gold/papers.jsonl)")
    ap.add_argument("--split", action="append", help="held-out split(s) to calibrate on (default: heldout)")
    ap.add_argument("--development", action="store_true",
                    help="only the development papers of the training draw (scripts/train_encoder.py split_rows)")
    ap.add_argument("--papers", type=Path, default=ROOT.parent / "shared" / "data" / "papers")
    ap.add_argument("--model", default=None, help="pipeline: default, fast, off or a span model folder")
    ap.add_argument("--bins", type=int, default=10)
    ap.add_argument("--min-facts", type=int, default=30)
    ap.add_argument("--write", action="store_true", help="write the mappings into the package data")
    ap.add_argument("--out", type=Path, default=None, help="write the mappings here instead")
    args = ap.parse_args(argv)

    os.environ["KG_CALIBRATION"] = "off"  # raw scores: the shipped mapping is what is being refitted
    from kg.calibration import fit_isotonic, pipeline_file, reliability, write
    from kg.evaluate import gold_papers, labelled_facts, read_paper_gold
    from kg.extract import Extractor, resolve_pipeline

    rows = [r for s in (args.split or ["heldout"]) for r in read_paper_gold(args.gold, s)]
    if args.development:
        dev = development_ids(args.papers)
        rows = [r for r in rows if r["id"] in dev]
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
    mappings, eces = {}, {}
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
        print(views(held if cal.ece < raw.ece else [(s, r, s) for _, _, s, r in mine], kind))
        if cal.ece >= raw.ece:
            print(f"{kind}: the mapping does not lower the held-out ECE ({raw.ece:.3f} -> {cal.ece:.3f}): not written\n")
            continue
        mappings[kind] = fit_isotonic([s for _, _, s, _ in mine], [r for *_, r in mine])
        eces[kind] = {"raw": raw.ece, "held_out": cal.ece}
    if args.write or args.out:
        path = write(mappings, args.out or pipeline_file(enc or cnn),
                     {"gold": args.gold.name, "splits": args.split or ["heldout"],
                      "development_only": args.development, "papers": len(rows),
                      "pipeline": args.model or "default", "facts": {k: sum(f[1] == k for f in facts) for k in mappings},
                      "ece": eces})
        print(f"wrote {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
