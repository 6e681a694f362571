#!/usr/bin/env python
"""Train kg's optional span model (``kg_ner``) from SciER train, on demand.

SciER is GPL-3.0: the trained weights are a GPL-3.0-derived work, so kg never ships them.
This script builds them where you say (default ``~/.cache/kg/ner-scier-<version>``):

    python scripts/train_ner.py --out ~/.cache/kg/ner-scier-1 [--epochs 20] [--max-minutes 10]

It converts ``train.jsonl`` (space-tokenised sentences with ``ner`` [text, type] lists) to
spaCy DocBin on the same detokenised, cleaned text that ``kg eval`` feeds the extractor,
holds out every tenth document (by ``doc_id``) of train as the training dev set (SciER dev
stays the evaluation set and is never read here), trains ``schema/ner/config.cfg`` with
spaCy and copies the best checkpoint to ``--out`` with a GPL-3.0 note in its meta.
Then enable it with ``KG_NER_MODEL=DIR`` (see ``schema/ner/README.md``).
"""

from __future__ import annotations

import argparse
import difflib
import json
import re
import shutil
import sys
import tempfile
import time
import zlib
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCIER = ROOT.parent / "shared" / "data" / "gold" / "scier"
CONFIG = ROOT / "schema" / "ner" / "config.cfg"
LABELS = ("Method", "Task", "Dataset")


def is_holdout(doc_id: str, every: int = 10) -> bool:
    """Every ``every``-th document of train (by a stable hash of its id) is held out."""
    return every > 0 and zlib.crc32(str(doc_id).encode()) % every == 0


def _char_map(src: str, dst: str) -> list[int | None]:
    """For each character of ``src``, its position in ``dst`` (None if it has none).
    ``dst`` is ``src`` with whitespace changed and, rarely, other characters cleaned away;
    non-space characters are aligned in order, falling back to difflib where they differ."""
    s_pos = [i for i, c in enumerate(src) if not c.isspace()]
    d_pos = [i for i, c in enumerate(dst) if not c.isspace()]
    s_ns = "".join(src[i] for i in s_pos)
    d_ns = "".join(dst[i] for i in d_pos)
    out: list[int | None] = [None] * len(src)
    if s_ns == d_ns:
        for a, b in zip(s_pos, d_pos, strict=True):
            out[a] = b
        return out
    sm = difflib.SequenceMatcher(None, s_ns, d_ns, autojunk=False)
    for a, b, n in sm.get_matching_blocks():
        for k in range(n):
            out[s_pos[a + k]] = d_pos[b + k]
    return out


def convert_row(row: dict, nested: bool = False) -> tuple[str, list[tuple[int, int, str]], int]:
    """(text, char spans, mentions lost) for one SciER sentence.

    Every occurrence of a listed mention string (as whole tokens) is a candidate span; where
    spans overlap (SciER nests "LSTM" in "BI-LSTM"), the longest wins, as NER needs one
    reading per token (``nested=True`` keeps them all, for a span categorizer). The text is ``clean(detokenize(sentence))``, exactly what ``kg eval``
    extracts from."""
    from kg.evaluate import detokenize
    from kg.text import clean

    sent = row["sentence"]
    text = clean(detokenize(sent))
    toks = [(m.start(), m.end(), m.group()) for m in re.finditer(r"\S+", sent)]
    words = [t[2] for t in toks]
    cmap = _char_map(sent, text)
    cands: list[tuple[int, int, str]] = []  # token start, token end, label
    lost = 0
    for mtext, label in dict.fromkeys((t, lab) for t, lab in row["ner"] if lab in LABELS):
        mw = mtext.split()
        hits = [i for i in range(len(words) - len(mw) + 1) if words[i:i + len(mw)] == mw]
        lost += not hits
        cands += [(i, i + len(mw), label) for i in hits]
    cands.sort(key=lambda c: (-(c[1] - c[0]), c[0]))
    taken: set[int] = set()
    spans = []
    for i, j, label in cands:
        if not nested and taken & set(range(i, j)):
            continue
        s, e = cmap[toks[i][0]], cmap[toks[j - 1][1] - 1]
        if s is None or e is None:
            lost += 1
            continue
        taken |= set(range(i, j))
        spans.append((s, e + 1, label))
    return text, sorted(spans), lost


def to_docbin(rows: list[dict], nlp, stats: Counter):
    from spacy.tokens import DocBin

    db = DocBin(store_user_data=False)
    for row in rows:
        text, spans, lost = convert_row(row)
        doc = nlp.make_doc(text)
        _, all_spans, _ = convert_row(row, nested=True)  # for a spancat config ("sc" key)
        doc.spans["sc"] = [sp for sp in (doc.char_span(s, e, label=lab) for s, e, lab in all_spans)
                           if sp is not None]
        ents, missing = [], []
        for s, e, label in spans:
            sp = doc.char_span(s, e, label=label)
            if sp is None:  # the tokenizer splits differently: leave those tokens unknown
                sp = doc.char_span(s, e, alignment_mode="expand")
                if sp is not None:
                    missing.append(sp)
                stats["misaligned"] += 1
            else:
                ents.append(sp)
        stats["mentions"] += len(spans)
        stats["lost"] += lost
        doc.set_ents(ents, missing=missing, default="outside")
        db.add(doc)
    return db


def read_jsonl(path: Path, limit: int = 0) -> list[dict]:
    rows = []
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                rows.append(json.loads(line))
                if limit and len(rows) >= limit:
                    break
    return rows


# --arch spancat: the same tok2vec with a span categorizer over 1-8-token n-grams instead of
# the transition-based NER; it also learns SciER's nested mentions. Measured: a little more
# accurate, about 2.6x slower (see schema/ner/README.md).
SPANCAT = """
[components]

[components.spancat]
factory = "spancat"
max_positive = 1
scorer = {"@scorers":"spacy.spancat_scorer.v1"}
spans_key = "sc"
threshold = 0.5

[components.spancat.model]
@architectures = "spacy.SpanCategorizer.v1"

[components.spancat.model.reducer]
@layers = "spacy.mean_max_reducer.v1"
hidden_size = 128

[components.spancat.model.scorer]
@layers = "spacy.LinearLogistic.v1"
nO = null
nI = null

[components.spancat.model.tok2vec]
@architectures = "spacy.Tok2VecListener.v1"
width = ${components.tok2vec.model.encode.width}
upstream = "*"

[components.spancat.suggester]
@misc = "spacy.ngram_suggester.v1"
sizes = [1,2,3,4,5,6,7,8]
"""


def use_spancat(cfg):
    """Swap the config's ``ner`` for a span categorizer (``--arch spancat``)."""
    from thinc.api import Config

    cfg["nlp"]["pipeline"] = ["tok2vec", "spancat"]
    del cfg["components"]["ner"]
    cfg["components"]["spancat"] = Config().from_str(SPANCAT, interpolate=False)["components"]["spancat"]
    cfg["training"]["score_weights"] = {"spans_sc_f": 1.0, "spans_sc_p": 0.0, "spans_sc_r": 0.0,
                                        "spans_sc_per_type": None}
    return cfg


META_NOTE = ("GPL-3.0-derived: trained from the SciER training set (train.jsonl, GPL-3.0) by kg's "
             "scripts/train_ner.py. Do not redistribute under another licence; not part of kg's "
             "MIT-licensed source.")


def train(out: Path, scier: Path = SCIER, epochs: int = 20, max_minutes: float = 10.0,
          limit: int = 0, holdout_every: int = 10, config: Path = CONFIG, seed: int = 0,
          quiet: bool = False, overrides: dict | None = None, arch: str = "ner") -> dict:
    """Convert, train and save the pipeline in ``out``; returns a summary."""
    import spacy
    from spacy.cli.train import train as spacy_train  # noqa: F401  (documents the entry point)
    from spacy.training.initialize import init_nlp
    from spacy.training.loop import train as train_loop
    from spacy.util import load_config

    from kg.extract.ner import NER_VERSION, TrainingDeadline

    train_file = scier / "train.jsonl"
    if not train_file.exists():
        raise SystemExit(f"{train_file}: SciER train set not found (pass --scier DIR)")
    rows = read_jsonl(train_file, limit)
    tr = [r for r in rows if not is_holdout(r.get("doc_id", ""), holdout_every)]
    dv = [r for r in rows if is_holdout(r.get("doc_id", ""), holdout_every)]
    if not dv:  # tiny runs: hold out the last tenth of sentences instead
        k = max(1, len(rows) // 10)
        tr, dv = rows[:-k], rows[-k:]
    stats: Counter = Counter()
    blank = spacy.blank("en")
    out = Path(out).expanduser()
    work = Path(tempfile.mkdtemp(prefix="kg-ner-"))
    log = sys.stderr if not quiet else open(work / "train.log", "w")  # noqa: SIM115
    try:
        to_docbin(tr, blank, stats).to_disk(work / "train.spacy")
        dev_stats: Counter = Counter()
        to_docbin(dv, blank, dev_stats).to_disk(work / "dev.spacy")
        print(f"converted {len(tr)} train / {len(dv)} held-out sentences; "
              f"{stats['mentions']} mentions, {stats['lost']} not located, "
              f"{stats['misaligned']} not on token bounds", file=log)
        ov = {"paths.train": str(work / "train.spacy"), "paths.dev": str(work / "dev.spacy"),
              "training.max_epochs": epochs, "system.seed": seed,
              "training.before_update": {"@callbacks": "kg.deadline.v1", "minutes": max_minutes}}
        ov.update(overrides or {})
        cfg = load_config(config, overrides=ov, interpolate=False)
        if arch == "spancat":
            cfg = use_spancat(cfg)
        t0 = time.monotonic()
        nlp = init_nlp(cfg)
        (work / "model").mkdir()
        stopped = "patience or max epochs"
        old_out = sys.stdout
        sys.stdout = log
        try:
            train_loop(nlp, work / "model", stdout=log, stderr=log)
        except TrainingDeadline:
            stopped = "time limit"
        finally:
            sys.stdout = old_out
        seconds = time.monotonic() - t0
        best = work / "model" / "model-best"
        if not best.exists():
            best = work / "model" / "model-last"
        model = spacy.load(best)
        scores = {k: v for k, v in (model.meta.get("performance") or {}).items() if k.startswith(("ents", "spans"))}
        model.meta.update({
            "name": "kg_ner_scier", "version": f"{NER_VERSION}.0.0",
            "description": "kg's optional span model (Method, Task, Dataset). " + META_NOTE,
            "license": "GPL-3.0", "author": "kg (scripts/train_ner.py)",
            "sources": [{"name": "SciER (train split)", "license": "GPL-3.0",
                         "url": "https://github.com/edzq/SciER"}],
            "kg": {"ner_version": NER_VERSION, "trained_seconds": round(seconds, 1),
                   "stopped_by": stopped, "train_sentences": len(tr), "holdout_sentences": len(dv),
                   "holdout_every": holdout_every, "heldout_scores": scores, "arch": arch},
        })
        if out.exists():
            shutil.rmtree(out)
        out.parent.mkdir(parents=True, exist_ok=True)
        model.to_disk(out)
        strip_training_callbacks(out / "config.cfg")
        (out / "NOTICE.txt").write_text(META_NOTE + "\nSciER licence: GPL-3.0 (see "
                                        f"{scier / 'LICENSE'}).\n", encoding="utf-8")
        summary = {"out": str(out), "arch": arch, "seconds": round(seconds, 1), "stopped_by": stopped,
                   "train_sentences": len(tr), "holdout_sentences": len(dv), **scores}
        print(json.dumps(summary), file=log)
        return summary
    finally:
        if quiet:
            log.close()
        shutil.rmtree(work, ignore_errors=True)


def strip_training_callbacks(path: Path, clear_paths: tuple[str, ...] = ()) -> None:
    """The saved config should load without kg's training-only callback (and, for
    ``clear_paths``, without the training run's file paths)."""
    from thinc.api import Config

    cfg = Config().from_disk(path, interpolate=False)
    cfg["training"]["before_update"] = None
    for k in clear_paths:
        cfg["paths"][k] = None
    cfg.to_disk(path)


def main(argv: list[str] | None = None) -> int:
    from kg.extract.ner import DEFAULT_MODEL_DIR

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=DEFAULT_MODEL_DIR,
                    help=f"folder for the trained pipeline (default {DEFAULT_MODEL_DIR})")
    ap.add_argument("--scier", type=Path, default=SCIER, help="folder with SciER train.jsonl")
    ap.add_argument("--epochs", type=int, default=20, help="maximum epochs (default 20)")
    ap.add_argument("--max-minutes", type=float, default=10.0,
                    help="stop training after this many minutes (default 10; 0 = no limit)")
    ap.add_argument("--limit", type=int, default=0, help="use only the first N train sentences")
    ap.add_argument("--config", type=Path, default=CONFIG, help="spaCy training config")
    ap.add_argument("--arch", choices=("ner", "spancat"), default="ner",
                    help="ner (default, fast) or spancat (slightly better, ~2.6x slower)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="config override, e.g. --set components.tok2vec.model.encode.width=64")
    ap.add_argument("--quiet", action="store_true", help="no training log on stderr")
    a = ap.parse_args(argv)
    overrides = {}
    for item in a.set:
        key, _, val = item.partition("=")
        try:
            overrides[key] = json.loads(val)
        except json.JSONDecodeError:
            overrides[key] = val
    summary = train(a.out, a.scier, a.epochs, a.max_minutes, a.limit, config=a.config,
                    seed=a.seed, quiet=a.quiet, overrides=overrides, arch=a.arch)
    print(json.dumps(summary, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
