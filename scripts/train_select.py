#!/usr/bin/env python
"""Train the selector (``kg/extract/select.py``) over the readings of rules, lexicons and span model.

    python scripts/train_select.py --model kg/data/spans --folds build/folds [--papers N]

The selector must learn how far to trust the span model on text the model has not seen, so its
training readings come from cross-fitting: the training papers are split in two folds
(``train_spans.fold_of``) and each fold is read by a span model trained without it
(``build/folds/0`` and ``build/folds/1``, made by ``train_spans.py --leave-out K/2``). Every
distinct stretch that some rule or the model offers is an example, labelled with the gold
mention of exactly those bounds (``eval/spans.py``), or none.

The L2 penalty and the threshold on P(no entity) are chosen by mention-level F1 of the greedy
choice on the other fold (fit on one fold, score the other, both ways); then the weights are fitted
on both folds and saved into ``MODEL/select`` (so the span model and the selector that learned
to read it travel together). The development papers (``train_spans.is_dev``) are not used.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT / "eval"))
sys.path.insert(0, str(ROOT))


def examples(pairs, spans_model: Path, encoder: Path | None = None) -> list[dict]:
    """Per doc: the stretches, their features and gold labels."""
    import spans as gold_spans

    from kg.extract import Extractor
    from kg.extract.docutil import doc_text
    from kg.extract.rules import EXACT
    from kg.extract.select import NONE, stretch_features
    from kg.records import Paper

    ex = Extractor(spans_model=str(spans_model or ""), encoder=str(encoder or ""))
    merger = ex.nlp.get_pipe("kg_entities")
    saved, merger.selector = merger.selector, None
    out = []
    try:
        for row, rec in pairs:
            title, abstract = gold_spans.texts(rec)
            found = gold_spans.spans(row, title, abstract)
            adoc, tdoc = ex.annotate(Paper(id=row["id"], title=title, abstract=abstract))
            for field, text in (("title", title), ("abstract", abstract)):
                if not text:
                    continue
                doc = tdoc if field == "title" else adoc
                cands, _ = merger.candidates(doc, doc_text(doc))
                stretches, feats = stretch_features(doc, text, cands)
                gold = {(s, e): lab for s, e, lab in gold_spans.flat(found[field])}
                labels = [gold.get(k, NONE) for k, _ in stretches]
                out.append({"id": row["id"], "text": text, "stretches": [k for k, _ in stretches],
                            "exact": [any(c[4] in EXACT for c in g) for _, g in stretches],
                            "feats": feats, "labels": labels, "gold": gold})
    finally:
        merger.selector = saved
    return out


def greedy_f1(docs: list[dict], probs_by_doc: list, threshold: float) -> float:
    """Mention-level F1 (exact bounds and label) of the selector's greedy choice."""
    import numpy as np

    from kg.extract.select import CLASSES

    tp = fp = fn = 0
    for d, p in zip(docs, probs_by_doc, strict=True):
        p = p.copy()
        p[[i for i, x in enumerate(d["exact"]) if x], 0] = 0.0
        order = sorted(range(len(d["stretches"])), key=lambda i: (p[i, 0], d["stretches"][i]))
        taken = bytearray(len(d["text"]) + 1)
        chosen = set()
        for i in order:
            if p[i, 0] >= threshold:
                break
            s, e = d["stretches"][i]
            if any(taken[s:e]):
                continue
            taken[s:e] = b"\x01" * (e - s)
            chosen.add((s, e, CLASSES[1 + int(np.argmax(p[i, 1:]))]))
        gold = {(s, e, lab) for (s, e), lab in d["gold"].items()}
        tp += len(chosen & gold)
        fp += len(chosen - gold)
        fn += len(gold - chosen)
    return 2 * tp / (2 * tp + fp + fn) if tp else 0.0


def _probs(index, weights, docs):
    from kg.extract.select import Selector

    sel = Selector(index, weights, 1.0)
    return [sel.probs(d["feats"]) if d["feats"] else None for d in docs]


def present(encoder_folds: Path | None, k: int) -> bool:
    """Whether fold ``k`` has a reader: always for the span model's folds; with encoders, when
    ``ENCODER_FOLDS/k`` holds one. The decisions can be trained on one fold (the papers the
    encoder of ``--leave-out 0/2`` never saw), at half the training cost of two."""
    from kg.extract.encoder import available

    return encoder_folds is None or available(encoder_folds / str(k))


def train(model: Path, folds_dir: Path, papers: int = 0, l2s=(0.3, 1.0, 3.0), encoder: Path | None = None,
          encoder_folds: Path | None = None) -> dict:
    """With ``encoder`` and ``encoder_folds``, the readings include the contextual encoder's
    (each fold read by the encoder that did not train on it) and the selector goes into
    ``ENCODER/select``; the training papers are then every annotated batch's."""
    import numpy as np
    from train_spans import fold_of, is_dev, training_rows

    from kg.extract.select import Selector, fit

    t0 = time.monotonic()
    pairs = [p for p in training_rows(papers, all_batches=encoder is not None) if not is_dev(p[0]["id"])]
    by_fold = [[p for p in pairs if fold_of(p[0]["id"]) == k] for k in (0, 1)]
    readers = [(folds_dir / str(k) if folds_dir else None, encoder_folds / str(k) if encoder_folds else None)
               for k in (0, 1)]
    docs = [examples(by_fold[k], *readers[k]) for k in (0, 1) if present(encoder_folds, k)]
    if len(docs) == 1:  # one cross-fitting encoder: its held-out papers, halved for the cross-fit
        docs = [[d for d in docs[0] if zlib.crc32(f"half:{d['id']}".encode()) % 2 == k] for k in (0, 1)]
    flat = [[(f, lab) for d in ds for f, lab in zip(d["feats"], d["labels"], strict=True)] for ds in docs]
    best = (-1.0, None, None)
    grid = []
    for l2 in l2s:
        fitted = [fit([f for f, _ in flat[k]], [lab for _, lab in flat[k]], l2=l2) for k in (0, 1)]
        # fit on fold k, score the other fold
        other = [_probs(*fitted[k], docs[1 - k]) for k in (0, 1)]
        for t in (0.3, 0.4, 0.5, 0.6, 0.7, 0.8):
            f1 = np.mean([greedy_f1([d for d in docs[1 - k] if d["feats"]],
                                    [p for p in other[k] if p is not None], t) for k in (0, 1)])
            grid.append({"l2": l2, "threshold": t, "f1": round(float(f1), 4)})
            if f1 > best[0]:
                best = (float(f1), l2, t)
    f1, l2, t = best
    allf = flat[0] + flat[1]
    index, weights = fit([f for f, _ in allf], [lab for _, lab in allf], l2=l2)
    sel = Selector(index, weights, t)
    meta = {"papers": len({d["id"] for ds in docs for d in ds}), "examples": len(allf), "features": len(index), "l2": l2,
            "cross_fitted_f1": round(f1, 4), "grid": grid, "seconds": round(time.monotonic() - t0, 1)}
    sel.save(Path(encoder) / "select" if encoder else Path(model) / "select" if folds_dir else Path(model), meta)
    return {k: v for k, v in meta.items() if k != "grid"} | {"threshold": t}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", type=Path, default=ROOT / "kg" / "data" / "spans",
                    help="the span model folder the selector goes into (MODEL/select)")
    ap.add_argument("--folds", type=Path, default=ROOT / "build" / "folds",
                    help="folder with the two cross-fitting span models 0/ and 1/")
    ap.add_argument("--papers", type=int, default=0)
    ap.add_argument("--encoder", type=Path, default=None,
                    help="the contextual encoder folder the selector goes into (ENCODER/select)")
    ap.add_argument("--encoder-folds", type=Path, default=ROOT / "build" / "encoder-folds",
                    help="with --encoder: the two cross-fitting encoders 0/ and 1/")
    ap.add_argument("--rules-only", action="store_true",
                    help="readings of the rules alone (no span model); the selector goes into --model itself")
    a = ap.parse_args(argv)
    # the encoder's pipeline reads no span CNN: its selector learns the encoder's readings and the rules'
    print(json.dumps(train(a.model, None if a.rules_only or a.encoder else a.folds, a.papers, encoder=a.encoder,
                           encoder_folds=a.encoder_folds if a.encoder else None)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
