"""Extraction: papers in, :class:`~kg.records.Extraction` records out.

>>> ex = Extractor()
>>> out = ex.extract(Paper(id="p", abstract="We propose FooNet, a framework for image classification."))
>>> [(r.type, r.target) for r in out.relations if r.type == "PROPOSES"]
[('PROPOSES', 'method:foonet')]
"""

from __future__ import annotations

import sys
import types
from collections.abc import Callable, Iterable, Iterator
from itertools import islice
from pathlib import Path

from kg.records import Extraction, Failure, Paper
from kg.schema import LEXICON_DIR
from kg.text import short_hash

RENEW = 100_000  # papers after which a long-lived extractor rebuilds its pipeline


class Extractor:
    """Runs the spaCy pipeline over papers. One instance per process; reuse it."""

    def __init__(self, lexicon_dir: Path | str = LEXICON_DIR, batch_size: int = 64,
                 ner_model: Path | str | None = None, spans_model: Path | str | None = None,
                 encoder: Path | str | None = None):
        """``encoder``: folder of the contextual encoder; None takes ``$KG_ENCODER`` or the
        packaged one (:func:`kg.extract.encoder.default_encoder`), "" none. ``spans_model``:
        folder of kg's span CNN; None takes it only without an encoder (the fast pipeline:
        ``$KG_SPANS`` or the packaged model, :func:`kg.extract.spans.default_model`), "" none.
        Both off is rules only (:func:`default_pipeline`). ``ner_model``: folder of the optional
        SciER-trained model; None reads ``$KG_NER_MODEL``."""
        from kg.extract.encoder import load_encoder
        from kg.extract.ner import model_path_from_env
        from kg.extract.pipeline import build_nlp

        self.ner_model = ner_model if ner_model is not None else model_path_from_env()
        default_spans, default_enc = default_pipeline()
        self.encoder_path = encoder if encoder is not None else default_enc
        self.spans_model = spans_model if spans_model is not None else "" if self.encoder_path else default_spans
        self.encoder = load_encoder(str(self.encoder_path)) if self.encoder_path else None
        self.nlp = build_nlp(lexicon_dir, self.ner_model, self.spans_model, self.encoder_path)
        # the proposal and role decisions that learned to read the encoder travel with it
        decisions = Path(self.encoder_path) if self.encoder_path else Path(self.spans_model) if self.spans_model else None
        self.proposer = None
        if decisions and (decisions / "propose" / "weights.npy").is_file():
            from kg.extract.propose import ProposalModel

            self.proposer = ProposalModel.load(decisions / "propose")
        self.roles = None
        if decisions and (decisions / "roles" / "weights.npy").is_file():
            from kg.extract.roles import RoleModel

            self.roles = RoleModel.load(decisions / "roles")
        # so do the mappings that calibrate their scores (kg.calibration)
        from kg.calibration import pipeline_file, shipped

        self.calibration = shipped(pipeline_file(decisions))
        self.batch_size = batch_size
        self.lexicon_dir = lexicon_dir
        self._done = 0

    def _docs(self, paper: Paper):
        """The paper's abstract and title as Docs to run the pipeline on: plain texts, or, with
        the encoder, Docs that carry its reading of the paper."""
        if self.encoder is None:
            return paper.abstract, paper.title or None
        from kg.extract.contextual import ABSTRACT, TITLE, FieldReading

        reading = self.encoder.read(paper.title or "", paper.abstract)
        doc = self.nlp.make_doc(paper.abstract)
        doc._.kg_reading = FieldReading(reading, ABSTRACT)
        tdoc = None
        if paper.title:
            tdoc = self.nlp.make_doc(paper.title)
            tdoc._.kg_reading = FieldReading(reading, TITLE)
        return doc, tdoc

    def annotate(self, paper: Paper):
        """The paper's abstract and title (or None) as annotated Docs, before the adapter makes
        them a record: what the decisions' training scripts read."""
        doc, tdoc = self._docs(paper)
        return self.nlp(doc), self.nlp(tdoc) if tdoc is not None else None

    def extract(self, paper: Paper) -> Extraction:
        from kg.extract.adapter import doc_to_extraction

        doc, tdoc = self.annotate(paper)
        return doc_to_extraction(doc, paper, tdoc, self.proposer, self.roles, self.calibration)

    def extract_all(self, papers: Iterable[Paper], progress: Callable[[int], None] | None = None,
                    failed: Callable[[Failure], None] | None = None) -> Iterator[Extraction]:
        """Extract papers in order with ``nlp.pipe`` batching, in this process. With
        ``failed``, a paper whose extraction raises is handed to it and left out; else the
        exception propagates."""
        it = iter(papers)
        while True:
            batch = list(islice(it, self.batch_size * 4))
            if not batch:
                return
            try:
                out = self._batch(batch)
            except Exception:
                if failed is None:
                    raise
                out = []
                for p in batch:  # again one by one, to find the paper that fails
                    try:
                        out.append(self.extract(p))
                    except Exception as exc:  # noqa: BLE001
                        failed(Failure.of(p, exc))
            self._renew_if_due(len(batch))
            yield from out
            if progress:
                progress(len(batch))

    def _batch(self, batch: list[Paper]) -> list[Extraction]:
        from kg.extract.adapter import doc_to_extraction

        pairs = [self._docs(p) for p in batch]
        docs = self.nlp.pipe((d for d, _ in pairs), batch_size=self.batch_size)
        titled = [t for _, t in pairs if t is not None]
        tdocs = iter(self.nlp.pipe(titled, batch_size=self.batch_size))
        return [doc_to_extraction(doc, p, next(tdocs) if p.title else None, self.proposer, self.roles,
                                  self.calibration)
                for doc, p in zip(docs, batch, strict=True)]

    # Inside a spaCy memory zone the tokenizer neither caches nor keeps new words, which made it
    # 3-6x slower (measured), so none is used. The vocabulary then grows with every new word
    # (132k strings after all 23.5k shared abstracts); renewing the pipeline every RENEW papers
    # bounds that for arbitrarily long runs, at the cost of one rebuild (~0.6 s).
    def _renew_if_due(self, n: int) -> None:
        self._done += n
        if self._done >= RENEW:
            from kg.extract.pipeline import build_nlp

            self.nlp = build_nlp(self.lexicon_dir, self.ner_model, self.spans_model, self.encoder_path)
            self._done = 0


def default_pipeline() -> tuple[Path | None, Path | None]:
    """``(span CNN, contextual encoder)`` that extraction uses when not told otherwise: the
    encoder (``$KG_ENCODER`` or the packaged one) and no CNN; without an encoder
    (``KG_ENCODER=off``, the fast pipeline), the CNN (``$KG_SPANS`` or the packaged one)."""
    from kg.extract.encoder import default_encoder
    from kg.extract.spans import default_model

    enc = default_encoder()
    return (None if enc else default_model()), enc


def resolve_pipeline(model: str | Path | None) -> tuple[Path | None, Path | None]:
    """``(span CNN, contextual encoder)`` for a pipeline the user names: ``default`` (or None),
    ``fast`` (the CNN, no encoder), ``off`` (rules only), or a folder holding an encoder or a
    span model. A folder that holds neither is an error, never a silent fallback."""
    from kg.extract import encoder as enc
    from kg.extract import spans

    val = str(model or "").strip()
    if val.lower() in ("", "default"):
        return default_pipeline()
    if val.lower() == "fast":
        return spans.default_model(), None
    if val.lower() in ("off", "0", "none", "rules"):
        return None, None
    if enc.available(Path(val).expanduser()):
        return None, Path(val).expanduser()
    return spans.resolve_model(val), None


_WORKER: tuple[tuple[str, ...], Extractor] | None = None


def extract_batch(papers: list[Paper], lexicon_dir: str = str(LEXICON_DIR),
                  ner_model: str = "") -> list[Extraction | Failure]:
    """Extract one batch in a worker (process pool or Dask): the extractor is built once
    per (lexicon, span model); ``ner_model=""`` is rules only. A paper that cannot be
    extracted comes back as a :class:`~kg.records.Failure` in its place."""
    global _WORKER
    # the pipeline the environment names now is part of the key: a process that builds once
    # with --model off and once with the default must not reuse the first extractor
    key = (lexicon_dir, ner_model, *map(str, default_pipeline()))
    if _WORKER is None or _WORKER[0] != key:
        _WORKER = (key, Extractor(lexicon_dir, ner_model=ner_model))
    failures: dict[str, Failure] = {}
    done = {e.paper.id: e for e in _WORKER[1].extract_all(papers, failed=lambda f: failures.setdefault(f.paper_id, f))}
    return [done.get(p.id) or failures[p.id] for p in papers]


_SHARED: Extractor | None = None


def extract_records(what: str | Paper | Iterable[str | Paper]) -> Extraction | list[Extraction]:
    """What kg reads in an abstract (a string), a :class:`~kg.records.Paper`, or many of
    either (then a list), with one extractor shared by every call in the process."""
    global _SHARED
    if _SHARED is None:
        _SHARED = Extractor()
    one = isinstance(what, str | Paper)
    papers = [w if isinstance(w, Paper) else Paper(id=f"text-{short_hash(w)}", abstract=w)
              for w in ([what] if one else what)]
    out = list(_SHARED.extract_all(papers))
    return out[0] if one else out


class _CallableModule(types.ModuleType):
    """``kg.extract`` is this package and, called, :func:`extract_records`: ``kg.extract(text)``
    must work once the package is imported, which makes ``kg.extract`` name it."""

    def __call__(self, what):
        return extract_records(what)


sys.modules[__name__].__class__ = _CallableModule

__all__ = ["Extractor", "Paper", "default_pipeline", "extract_batch", "extract_records", "resolve_pipeline"]
