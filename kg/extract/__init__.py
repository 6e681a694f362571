"""Extraction: papers in, :class:`~kg.records.Extraction` records out.

>>> ex = Extractor()
>>> out = ex.extract(Paper(id="p", abstract="We propose FooNet, a framework for image classification."))
>>> [(r.type, r.target) for r in out.relations if r.type == "PROPOSES"]
[('PROPOSES', 'method:foonet')]
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from itertools import islice
from pathlib import Path

from kg.records import Extraction, Paper
from kg.schema import LEXICON_DIR

ZONE = 8192  # papers per spaCy memory zone


class Extractor:
    """Runs the spaCy pipeline over papers. One instance per process; reuse it."""

    def __init__(self, lexicon_dir: Path | str = LEXICON_DIR, batch_size: int = 64,
                 ner_model: Path | str | None = None):
        """``ner_model``: folder of the optional trained span model; None reads
        ``$KG_NER_MODEL`` (unset or empty: rules only)."""
        from kg.extract.ner import model_path_from_env
        from kg.extract.pipeline import build_nlp

        self.ner_model = ner_model if ner_model is not None else model_path_from_env()
        self.nlp = build_nlp(lexicon_dir, self.ner_model)
        self.batch_size = batch_size
        self._zone = None
        self._zoned = 0

    def extract(self, paper: Paper) -> Extraction:
        from kg.extract.adapter import doc_to_extraction

        return doc_to_extraction(self.nlp(paper.abstract), paper,
                                 self.nlp(paper.title) if paper.title else None)

    def extract_all(self, papers: Iterable[Paper],
                    progress: Callable[[int], None] | None = None) -> Iterator[Extraction]:
        """Extract papers in order with ``nlp.pipe`` batching, in this process."""
        from kg.extract.adapter import doc_to_extraction

        it = iter(papers)
        while True:
            batch = list(islice(it, self.batch_size * 4))
            if not batch:
                return
            self._zone_enter()
            docs = self.nlp.pipe((p.abstract for p in batch), batch_size=self.batch_size)
            titled = [p.title for p in batch if p.title]
            tdocs = iter(self.nlp.pipe(titled, batch_size=self.batch_size))
            out = [doc_to_extraction(doc, p, next(tdocs) if p.title else None)
                   for doc, p in zip(docs, batch, strict=True)]
            self._zone_count(len(out))
            yield from out  # plain records: nothing refers to the zone's memory
            if progress:
                progress(len(out))

    # spaCy's memory zone frees the strings and tokenizer-cache entries added inside it when it
    # closes, which bounds memory over a long run; but a zone per batch (or per worker task)
    # made every batch tokenize its rare words from scratch, about 30% of the time. So one zone
    # stays open across batches and calls, and is renewed every ZONE papers. Records hold no
    # reference to the zone's memory; Docs made with ``self.nlp`` meanwhile do.
    def _zone_enter(self) -> None:
        if self._zone is None and hasattr(self.nlp, "memory_zone"):
            self._zone = self.nlp.memory_zone()
            self._zone.__enter__()
            self._zoned = 0

    def _zone_count(self, n: int) -> None:
        self._zoned += n
        if self._zone is not None and self._zoned >= ZONE:
            zone, self._zone = self._zone, None
            zone.__exit__(None, None, None)


_WORKER: tuple[tuple[str, str], Extractor] | None = None


def extract_batch(papers: list[Paper], lexicon_dir: str = str(LEXICON_DIR),
                  ner_model: str = "") -> list[Extraction]:
    """Extract one batch in a worker (process pool or Dask): the extractor is built once
    per (lexicon, span model); ``ner_model=""`` is rules only."""
    global _WORKER
    key = (lexicon_dir, ner_model)
    if _WORKER is None or _WORKER[0] != key:
        _WORKER = (key, Extractor(lexicon_dir, ner_model=ner_model))
    return list(_WORKER[1].extract_all(papers))


__all__ = ["Extractor", "Paper", "extract_batch"]
