#!/usr/bin/env python
"""Train the role decision (``kg/extract/roles.py``) for a span model.

    python scripts/train_roles.py --model kg/data/spans --folds build/folds

Its examples are the entities of the papers ``scripts/train_propose.py`` learns from (the
paper-level development gold read by ``--model``, and with ``--folds`` the mention-level training
papers, each read by the span model that did not train on it), with the proposal decision of
``--model``: every mentioned entity that is not proposed is an example, ``compared`` when the gold
has a COMPARED_WITH edge to it, ``role`` when it has another relation to it, else ``none``. The
L2 penalty and threshold are chosen by relation F1 (type and target per paper) in two-fold
cross-validation by paper; the model is then fitted on all, and the calibration of its
confidence (precision per confidence bin, cross-validated) is saved with it in ``MODEL/roles``.
The blind splits and the mention-level development papers are never read.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))
PAPERS = ROOT.parent / "shared" / "data" / "papers"


class _Recorder:
    """Stands in for the role model: records each candidate, says no role is stated."""

    def __init__(self):
        self.seen: list = []

    def decide(self, entity, feats):
        self.seen.append((entity, feats))
        return "none", 1.0


def examples(model: Path, folds: Path | None, encoder: Path | None = None,
             encoder_folds: Path | None = None) -> list[dict]:
    from train_propose import sources

    from kg.evaluate import _keys, gold_papers, norm
    from kg.extract import Extractor
    from kg.extract.adapter import doc_to_extraction
    from kg.extract.propose import ProposalModel
    from kg.schema import MENTION_RELATION

    proposer = ProposalModel.load((encoder or model) / "propose")  # the shipped decision, for every reading
    out = []
    for rows, reader, enc in sources(model, folds, encoder, encoder_folds):
        ex = Extractor(spans_model=str(reader) if str(reader) not in ("", ".") else "", encoder=str(enc or ""))
        papers = gold_papers(rows, PAPERS)
        for row, p in zip(rows, papers, strict=True):
            rec = _Recorder()
            doc, tdoc = ex.annotate(p)
            doc_to_extraction(doc, p, tdoc, proposer, rec)
            keys = {g["name"]: _keys(g["name"], g.get("aliases", ())) for g in row["entities"]}
            gold: dict[str, set[str]] = {}  # gold target key -> relation types
            for r in row.get("relations", ()):
                for k in keys.get(r["target"], {norm(r["target"])}):
                    gold.setdefault(k, set()).add(r["type"])
            cands = []
            for e, feats in rec.seen:
                types = set().union(*[gold.get(k, set()) for k in _keys(e.name, e.aliases)])
                y = "compared" if "COMPARED_WITH" in types else "role" if types - {"COMPARED_WITH"} else "none"
                cands.append((feats, y, MENTION_RELATION[e.type], sorted(_keys(e.name, e.aliases))))
            grel = {(t, k) for k, ts in gold.items() for t in ts}
            out.append({"id": row["id"], "cands": cands, "gold": sorted(grel)})
    return out


def score(papers: list[dict], decisions: list[list[tuple[str, float]]]) -> dict:
    """Relation P/R/F1 (type and target per paper, any source) and USES precision, as
    ``kg eval`` counts them."""
    tp = fp = fn = 0
    utp = ufp = 0
    for p, dec in zip(papers, decisions, strict=True):
        gold = {tuple(g) for g in p["gold"]}
        hit_gold: set = set()
        for (_, _, rtype, keys), (kind, _) in zip(p["cands"], dec, strict=True):
            if kind == "none":
                continue
            t = "COMPARED_WITH" if kind == "compared" else rtype
            hits = {(t, k) for k in keys} & gold
            if hits and not hits <= hit_gold:
                tp += 1
                hit_gold |= hits
            else:
                fp += 1
            if t == "USES":
                utp += bool(hits)
                ufp += not hits
        fn += len({(t, k) for t, k in gold}) - len(hit_gold)
    prec = tp / (tp + fp) if tp + fp else 0.0
    rec = tp / (tp + fn) if tp + fn else 0.0
    return {"precision": round(prec, 4), "recall": round(rec, 4),
            "f1": round(2 * prec * rec / (prec + rec), 4) if prec + rec else 0.0,
            "uses_precision": round(utp / (utp + ufp), 4) if utp + ufp else 0.0}


def calibration(papers: list[dict], scores: list[list[tuple[str, float]]], threshold: float, step: float = 0.05
                ) -> list[dict]:
    """Precision of the stated roles per score bin (from the threshold up, bins of ``step``
    merged until each holds 50 edges), made monotone (pool adjacent violators): the edge's
    confidence for a score is the precision of its bin."""
    pairs = sorted((conf, y == kind) for p, sc in zip(papers, scores, strict=True)
                   for (_, y, _, _), (kind, conf) in zip(p["cands"], sc, strict=True) if conf >= threshold)
    bins: list[list] = []  # [from, to, edges, right]
    lo = threshold
    while lo < 1.0:
        hi = round(lo + step, 4)
        inside = [ok for c, ok in pairs if lo <= c < (hi if hi < 1.0 else 1.01)]
        if inside:
            if bins and bins[-1][2] < 50:
                bins[-1][1], bins[-1][2], bins[-1][3] = hi, bins[-1][2] + len(inside), bins[-1][3] + sum(inside)
            else:
                bins.append([lo, hi, len(inside), sum(inside)])
        lo = hi
    blocks = [[b[2], b[3], [b]] for b in bins]
    i = 0
    while i < len(blocks) - 1:  # pool adjacent violators
        if blocks[i][1] / blocks[i][0] > blocks[i + 1][1] / blocks[i + 1][0]:
            a, b = blocks[i], blocks.pop(i + 1)
            a[0], a[1], a[2] = a[0] + b[0], a[1] + b[1], a[2] + b[2]
            i = max(0, i - 1)
        else:
            i += 1
    out = []
    for n, ok, members in blocks:
        for b in members:
            out.append({"from": round(b[0], 4), "to": round(min(b[1], 1.0), 4), "edges": b[2],
                        "precision": round(b[3] / b[2], 3), "calibrated": round(ok / n, 3)})
    return out


#: the features of the encoder's view of an entity, with its label and what the comparison rule said
ENCODER_VIEW = ("bias", "label=", "encr", "no-encr", "cmp=")


def _only(feats: list[str], keep: tuple[str, ...] | None) -> list[str]:
    return feats if keep is None else [f for f in feats if f.startswith(keep)]


def f_beta(s: dict, beta: float = 0.5) -> float:
    """F0.5: a wrong typed edge costs more than a missed one (a missed role is still a MENTIONS
    edge; a wrong USES says something false)."""
    p, r = s["precision"], s["recall"]
    return (1 + beta * beta) * p * r / (beta * beta * p + r) if p + r else 0.0


def train(model: Path, folds: Path | None, l2s=(3.0, 10.0, 30.0, 100.0), thresholds=(0.4, 0.5, 0.6, 0.7),
          encoder: Path | None = None, encoder_folds: Path | None = None) -> dict:
    """The L2 penalty and threshold with the best cross-validated F0.5 (:func:`f_beta`)."""
    from kg.extract.roles import RoleModel

    t0 = time.monotonic()
    papers = examples(model, folds, encoder, encoder_folds)
    halves = [[p for p in papers if zlib.crc32(p["id"].encode()) % 2 == k] for k in (0, 1)]
    everything = halves[0] + halves[1]
    grid, best = [], None
    # with the encoder, its view alone (and the label) competes with every feature
    subsets = {"all": None, "encoder": ENCODER_VIEW} if encoder else {"all": None}
    for subset, keep in subsets.items():
        for l2 in l2s:
            fitted = [RoleModel.fit([_only(f, keep) for p in halves[1 - k] for f, *_ in p["cands"]],
                                    [y for p in halves[1 - k] for _, y, *_ in p["cands"]], l2=l2) for k in (0, 1)]
            scores = [[fitted[k].score(f) for f, *_ in p["cands"]] for k in (0, 1) for p in halves[k]]
            for t in thresholds:
                decs = [[(kind, c) if c >= t else ("none", 1 - c) for kind, c in sc] for sc in scores]
                s = score(everything, decs)
                grid.append({"features": subset, "l2": l2, "threshold": t, **s, "f0.5": round(f_beta(s), 4)})
                print(json.dumps(grid[-1]), file=sys.stderr)
                if best is None or grid[-1]["f0.5"] > best[0]["f0.5"]:
                    best = (grid[-1], l2, t, scores, keep)
    s, l2, t, scores, keep = best
    final = RoleModel.fit([_only(f, keep) for p in papers for f, *_ in p["cands"]],
                          [y for p in papers for _, y, *_ in p["cands"]], l2=l2, threshold=t)
    rules = [[("compared", .6) if "cmp=COMPARED_WITH" in f or "cmp=OUTPERFORMS" in f
              else ("role", .6) if "with-proposal" in f else ("none", .6) for f, *_ in p["cands"]] for p in everything]
    meta = {"papers": len(papers), "examples": sum(len(p["cands"]) for p in papers), "l2": l2,
            "cross_validated": s, "calibration": calibration(everything, scores, t), "grid": grid,
            "rules": score(everything, rules),
            "every_mention_typed": score(everything, [[("role", 1.0)] * len(p["cands"]) for p in everything]),
            "seconds": round(time.monotonic() - t0, 1)}
    final.save((encoder or model) / "roles", meta)
    return meta


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", type=Path, default=ROOT / "kg" / "data" / "spans")
    ap.add_argument("--folds", type=Path, default=None, help="cross-fitting span models (build/folds)")
    ap.add_argument("--encoder", type=Path, default=None,
                    help="the contextual encoder: its view is a feature, and the decision goes into ENCODER/roles")
    ap.add_argument("--encoder-folds", type=Path, default=ROOT / "build" / "encoder-folds",
                    help="with --encoder and --folds: the two cross-fitting encoders 0/ and 1/")
    args = ap.parse_args()
    meta = train(args.model, args.folds, encoder=args.encoder,
                 encoder_folds=args.encoder_folds if args.encoder else None)
    print(json.dumps({k: v for k, v in meta.items() if k != "grid"}, indent=1))


if __name__ == "__main__":
    main()
