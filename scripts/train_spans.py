#!/usr/bin/env python
"""Train kg's default span model from kg's own mention-level gold (``make model``).

    python scripts/train_spans.py [--out kg/data/spans] [--papers N] [--seed 0] [--max-minutes 25]

1. Reads the annotated training batches ``eval/gold/spans/b###.jsonl`` in draw order (the blind
   test batches ``t###`` and the second annotations ``d###`` are never read). ``--papers N``
   trains on the first N annotated papers of the draw that are not development papers: the
   learning-curve subsets, all measured on the same development papers.
2. Places every mention form in the title and abstract (``eval/spans.py``: all occurrences,
   longest reading first) and writes spaCy DocBins, the title and the abstract as two docs,
   tokenised as kg tokenises. Every tenth paper (stable hash of its id) is the training-time dev
   set that picks the checkpoint.
3. Trains ``schema/spans/config.cfg`` (hash embeddings + in-domain word2vec vectors from
   ``scripts/train_vectors.py`` + CNN + NER) with a fixed seed, and writes the best checkpoint to
   ``--out`` with its meta (licence MIT: the labels are kg's own annotations; the vectors come
   from the shared abstracts' word statistics).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
import zlib
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "eval"))
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT))
CONFIG = ROOT / "schema" / "spans" / "config.cfg"
VECTORS = ROOT / "build" / "vectors" / "model"
OUT = ROOT / "kg" / "data" / "spans"
PAPERS = ROOT.parent / "shared" / "data" / "papers"


def is_dev(pid: str, every: int = 10) -> bool:
    """Every tenth paper (stable hash of its id) is the development set: it picks the span
    model's checkpoint and measures the selector, and trains neither."""
    return zlib.crc32(pid.encode()) % every == 0


def fold_of(pid: str, folds: int = 2) -> int:
    """The cross-fitting fold of a training paper (``scripts/train_select.py``)."""
    return zlib.crc32(f"fold:{pid}".encode()) % folds


def training_rows(limit: int = 0, papers_dir: Path = PAPERS, all_batches: bool = False) -> list[tuple[dict, dict]]:
    """``(gold row, paper record)`` of the annotated papers of the training draw, in draw order:
    every development paper (:func:`is_dev`) and the first ``limit`` others (0: all), so that
    the learning-curve subsets share one development set. The span CNN reads the first
    ``spans.MODEL_BATCHES`` batches, the encoder's decisions (``all_batches``) every one."""
    import sample
    import spans

    files = spans.gold_files("b")
    rows = {r["id"]: r for r in spans.read_rows(files if all_batches else files[:spans.MODEL_BATCHES])}
    out, n = [], 0
    for _, rec in spans.draws(papers_dir)[spans.TRAIN_SPLIT]:
        row = rows.get(sample.paper_id(rec))
        if row is None:
            continue
        if is_dev(row["id"]):
            out.append((row, rec))
        elif not limit or n < limit:
            out.append((row, rec))
            n += 1
    return out


def to_docs(pairs: list[tuple[dict, dict]], nlp, stats: Counter) -> list:
    import spans

    docs = []
    for row, rec in pairs:
        title, abstract = spans.texts(rec)
        found = spans.spans(row, title, abstract)
        for field, text in (("title", title), ("abstract", abstract)):
            if not text:
                continue
            doc = nlp.make_doc(text)
            ents, missing = [], []
            taken = bytearray(len(doc) + 1)
            for s, e, lab in spans.flat(found[field]):
                stats["mentions"] += 1
                sp = doc.char_span(s, e, label=lab)
                if sp is None:  # not on token bounds: the tokens it touches are unknown, not outside
                    stats["misaligned"] += 1
                    sp = doc.char_span(s, e, alignment_mode="expand")
                    if sp is None or any(taken[sp.start:sp.end]):
                        continue
                    missing.append(sp)
                elif any(taken[sp.start:sp.end]):
                    continue
                else:
                    ents.append(sp)
                taken[sp.start:sp.end] = b"\x01" * len(sp)
            doc.set_ents(ents, missing=missing, default="outside")
            docs.append(doc)
    return docs


def train(out: Path = OUT, papers: int = 0, vectors: Path = VECTORS, seed: int = 0, epochs: int = 30,
          max_minutes: float = 0.0, config: Path = CONFIG, overrides: dict | None = None,
          quiet: bool = False, leave_out: tuple[int, int] | None = None,
          init_tok2vec: Path | None = None) -> dict:
    """``leave_out=(k, n)``: train without the papers of fold k of n (cross-fitting)."""
    import spacy
    from spacy.tokens import DocBin
    from spacy.training.initialize import init_nlp
    from spacy.training.loop import train as train_loop
    from spacy.util import load_config

    from kg.extract.ner import TrainingDeadline
    from kg.extract.pipeline import glue_tokenizer
    from kg.extract.spans import SPANS_VERSION

    if not (vectors / "vocab").is_dir():
        raise SystemExit(f"{vectors}: no vectors; run python scripts/train_vectors.py first")
    pairs = training_rows(papers)
    if len(pairs) < 10:
        raise SystemExit(f"only {len(pairs)} annotated training papers in eval/gold/spans")
    tr = [p for p in pairs if not is_dev(p[0]["id"])
          and (leave_out is None or fold_of(p[0]["id"], leave_out[1]) != leave_out[0])]
    dv = [p for p in pairs if is_dev(p[0]["id"])]
    blank = spacy.blank("en")
    glue_tokenizer(blank)
    stats: Counter = Counter()
    work = Path(tempfile.mkdtemp(prefix="kg-spans-"))
    log = open(work / "train.log", "w") if quiet else sys.stderr  # noqa: SIM115
    try:
        DocBin(docs=to_docs(tr, blank, stats)).to_disk(work / "train.spacy")
        DocBin(docs=to_docs(dv, blank, Counter())).to_disk(work / "dev.spacy")
        print(f"{len(tr)} train / {len(dv)} dev papers; {stats['mentions']} train mentions, "
              f"{stats['misaligned']} not on token bounds", file=log)
        ov = {"paths.train": str(work / "train.spacy"), "paths.dev": str(work / "dev.spacy"),
              "paths.vectors": str(vectors), "training.max_epochs": epochs, "system.seed": seed,
              "paths.init_tok2vec": str(init_tok2vec) if init_tok2vec else None,
              "training.before_update": {"@callbacks": "kg.deadline.v1", "minutes": max_minutes}}
        ov.update(overrides or {})
        cfg = load_config(config, overrides=ov, interpolate=False)
        t0 = time.monotonic()
        nlp = init_nlp(cfg)
        glue_tokenizer(nlp)
        (work / "model").mkdir()
        stopped = "patience or max epochs"
        old = sys.stdout
        sys.stdout = log
        try:
            train_loop(nlp, work / "model", stdout=log, stderr=log)
        except TrainingDeadline:
            stopped = "time limit"
        finally:
            sys.stdout = old
        seconds = time.monotonic() - t0
        best = work / "model" / "model-best"
        model = spacy.load(best if best.exists() else work / "model" / "model-last")
        scores = {k: v for k, v in (model.meta.get("performance") or {}).items() if k.startswith("ents")}
        model.meta.update({
            "name": "kg_spans", "version": f"{SPANS_VERSION}.0.0",
            "description": "kg's span model: Method, Technique, Model, Task, Dataset, Metric and "
                           "Software mentions in ML abstracts, trained on kg's own annotations.",
            "license": "MIT", "author": "kg (scripts/train_spans.py)",
            "sources": [{"name": "kg mention-level gold (eval/gold/spans)", "license": "MIT"},
                        {"name": "word2vec vectors from the shared conference abstracts "
                                 "(scripts/train_vectors.py)"}],
            "kg": {"spans_version": SPANS_VERSION, "train_papers": len(tr), "dev_papers": len(dv),
                   "seed": seed, "trained_seconds": round(seconds, 1), "stopped_by": stopped,
                   "dev_scores": scores},
        })
        out = Path(out)
        if out.exists():
            shutil.rmtree(out)
        out.parent.mkdir(parents=True, exist_ok=True)
        model.to_disk(out)
        from train_ner import strip_training_callbacks

        strip_training_callbacks(out / "config.cfg", ("train", "dev", "vectors", "init_tok2vec"))
        summary = {"out": str(out), "train_papers": len(tr), "dev_papers": len(dv), "seconds": round(seconds, 1),
                   "stopped_by": stopped, **{k: v for k, v in scores.items() if k != "ents_per_type"},
                   "per_type": {k: round(v["f"], 3) for k, v in (scores.get("ents_per_type") or {}).items()}}
        print(json.dumps(summary), file=log)
        return summary
    finally:
        if quiet:
            log.close()
        shutil.rmtree(work, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--papers", type=int, default=0, help="first N annotated papers of the draw (0: all)")
    ap.add_argument("--vectors", type=Path, default=VECTORS)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--epochs", type=int, default=30)
    ap.add_argument("--max-minutes", type=float, default=0.0,
                    help="stop after this much wall time (0: none; a limit makes the result depend on the machine)")
    ap.add_argument("--config", type=Path, default=CONFIG)
    ap.add_argument("--leave-out", default=None, metavar="K/N", help="train without fold K of N")
    ap.add_argument("--init-tok2vec", type=Path, default=None, help="pretrained tok2vec weights (spacy pretrain)")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="config override, e.g. components.tok2vec.model.encode.width=64")
    a = ap.parse_args(argv)
    ov = {}
    for kv in a.set:
        k, _, v = kv.partition("=")
        ov[k] = json.loads(v) if v[:1] in "0123456789[{-tf\"" else v
    leave = tuple(int(x) for x in a.leave_out.split("/")) if a.leave_out else None
    print(json.dumps(train(a.out, a.papers, a.vectors, a.seed, a.epochs, a.max_minutes, a.config, ov,
                           leave_out=leave, init_tok2vec=a.init_tok2vec)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
