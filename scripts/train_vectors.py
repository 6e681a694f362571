#!/usr/bin/env python
"""In-domain static word vectors for kg's span model, from the shared abstracts.

    python scripts/train_vectors.py [--out build/vectors] [--dim 100] [--rows 30000]

Tokenises every title and abstract of the shared paper lists with kg's own tokenizer (the
blank English one with kg's glued-sentence infix), leaves out the papers of the blind
evaluation splits (``fresh``, ``heldout`` and the mention-level test draws), trains word2vec
(gensim, skip-gram, one worker and a fixed seed, so the vectors are reproducible) and writes the
``rows`` most frequent words as a spaCy vectors folder (``spacy init vectors`` format), which the
span model's training config reads as ``paths.vectors``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "eval"))
sys.path.insert(0, str(ROOT))
PAPERS = ROOT.parent / "shared" / "data" / "papers"
FILES = ("icml2024.jsonl", "iclr2024.jsonl", "neurips2023.jsonl", "paperlists-2010-2025.jsonl")


def blind_ids() -> set[str]:
    """Ids of the papers no training step may read: the blind evaluation splits."""
    import sample
    import spans

    gold = [json.loads(x) for x in (ROOT / "eval" / "gold" / "papers.jsonl").read_text().splitlines() if x.strip()]
    out = {r["id"] for r in gold if r["split"] in ("fresh", "heldout")}
    for split in spans.TEST_SPLITS:
        out |= {sample.paper_id(r) for _, r in spans.draws(PAPERS)[split]}
    return out


def sentences(papers_dir: Path = PAPERS):
    """Token lists, one per title and per abstract sentence, in file order."""
    import sample
    import spacy

    from kg.extract.docutil import sentence_chars
    from kg.extract.pipeline import glue_tokenizer
    from kg.text import clean

    nlp = spacy.blank("en")
    glue_tokenizer(nlp)
    skip = blind_ids()
    for fname in FILES:
        for rec in sample.load(papers_dir / fname):
            if sample.paper_id(rec) in skip:
                continue
            title, abstract = clean(str(rec.get("title") or "")), clean(rec.get("abstract") or "")
            if title:
                yield [t.text for t in nlp.make_doc(title)]
            for a, b in sentence_chars(abstract) if abstract else ():
                yield [t.text for t in nlp.make_doc(abstract[a:b])]


def train(out: Path, dim: int = 100, rows: int = 30000, epochs: int = 5, seed: int = 0) -> dict:
    from gensim.models import Word2Vec

    t0 = time.monotonic()
    sents = list(sentences())
    w2v = Word2Vec(sents, vector_size=dim, window=5, min_count=3, sg=1, workers=1, seed=seed,
                   epochs=epochs, sample=1e-4)
    words = w2v.wv.index_to_key[:rows]
    out.mkdir(parents=True, exist_ok=True)
    txt = out / "vectors.txt"
    with txt.open("w", encoding="utf-8") as fh:
        fh.write(f"{len(words)} {dim}\n")
        for w in words:
            fh.write(w + " " + " ".join(f"{x:.5f}" for x in w2v.wv[w]) + "\n")
    import spacy
    from spacy.vectors import Vectors

    nlp = spacy.blank("en")
    import numpy as np

    data = np.asarray([w2v.wv[w] for w in words], dtype="float32")
    nlp.vocab.vectors = Vectors(data=data, keys=[nlp.vocab.strings.add(w) for w in words])
    nlp.to_disk(out / "model")
    info = {"sentences": len(sents), "tokens": sum(map(len, sents)), "rows": len(words), "dim": dim,
            "seconds": round(time.monotonic() - t0, 1)}
    (out / "info.json").write_text(json.dumps(info, indent=1) + "\n")
    return info


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=ROOT / "build" / "vectors")
    ap.add_argument("--dim", type=int, default=100)
    ap.add_argument("--rows", type=int, default=30000)
    ap.add_argument("--epochs", type=int, default=5)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    print(json.dumps(train(a.out, a.dim, a.rows, a.epochs, a.seed)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
