"""``kg build`` as a library call: read, extract (in parallel if asked), merge, resolve, save.

>>> # result = build(["papers.jsonl"], Path("exports"))
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path

import networkx as nx

from kg.errors import KgError
from kg.extract.lexicon import default_lexicon
from kg.extract.parallel import CHUNK, chunks
from kg.graph import build_graph, load_extractions, save
from kg.readers import ReadReport, read_papers
from kg.records import Extraction, Paper
from kg.schema import LEXICON_DIR


@dataclass
class BuildResult:
    graph: nx.MultiDiGraph
    manifest: dict
    report: ReadReport
    new: int = 0
    reused: int = 0
    extractions: list[Extraction] = field(default_factory=list)


def extract_papers(papers: list[Paper], workers: int = 1, dask: str | None = None,
                   progress: Callable[[int], None] | None = None,
                   ner_model: str = "") -> list[Extraction]:
    """Extract papers in this process, in a local process pool, or on a Dask cluster.
    ``ner_model``: folder of the optional trained span model ("" = rules only).

    Extraction is per paper and deterministic, so the result is the same either way.
    """
    if dask:
        from distributed import Client, as_completed

        from kg.extract import extract_batch

        parts = list(chunks(papers))
        out: list[list[Extraction]] = [[] for _ in parts]
        with Client(dask) if isinstance(dask, str) else dask as client:  # type: ignore[arg-type]
            futures = {client.submit(extract_batch, c, str(LEXICON_DIR), ner_model, pure=False): i
                       for i, c in enumerate(parts)}
            for fut in as_completed(futures):
                out[futures[fut]] = fut.result()
                if progress:
                    progress(len(out[futures[fut]]))
        return [e for chunk in out for e in chunk]
    if workers != 1 and len(papers) > CHUNK:
        from kg.extract.parallel import ExtractionPool

        with ExtractionPool(workers, ner_model) as pool:
            return pool.extract(papers, progress)
    from kg.extract import Extractor

    return list(Extractor(ner_model=ner_model).extract_all(papers, progress))


def _same_record(old: Paper, new: Paper) -> bool:
    return replace(old, title="", source=None) == replace(new, title="", source=None) \
        and (not new.title or new.title == old.title)


def build(inputs: Iterable[str], out: Path, workers: int = 1, dask: str | None = None,
          report: ReadReport | None = None, fresh: bool = False,
          progress: Callable[[str, int | None], Callable[[int], None] | None] | None = None,
          ner_model: str | Path | None = None) -> BuildResult:
    """Build or extend the graph in ``out`` from paper lists.

    Papers already in ``out`` with the same text are reused, not extracted again, unless they
    were extracted by another pipeline (rules only vs with the span model ``ner_model``;
    None reads ``$KG_NER_MODEL``); the graph is then rebuilt from all extractions, so the
    result equals a one-shot build.
    ``progress(description, total)`` may return a callback that advances a bar.
    """
    inputs = list(inputs)
    report = report if report is not None else ReadReport()
    papers = list(read_papers(inputs, report))
    from kg.extract.ner import model_path_from_env
    from kg.extract.pipeline import PIPELINE_VERSION, pipeline_id
    from kg.graph import read_manifest

    ner = str(ner_model if ner_model is not None else (model_path_from_env() or ""))
    pipeline = pipeline_id(ner)
    built_with = read_manifest(out).get("pipeline", PIPELINE_VERSION)
    old = {} if fresh else {e.paper.id: e for e in load_extractions(out)}
    if old and built_with != pipeline:
        raise KgError(f"{out}/ was built with the extraction pipeline {built_with!r}, this build uses "
                      f"{pipeline!r}; mixing them would make the graph depend on build order. Build "
                      f"again from all inputs with --fresh, or use the same pipeline (KG_NER_MODEL / --ner)")
    todo = [p for p in papers if p.id not in old or not _same_record(old[p.id].paper, p)]
    reused = len(papers) - len(todo)
    tick = progress("extracting", len(todo)) if progress else None
    new = extract_papers(todo, workers, dask, tick, ner)
    merged = {**old, **{e.paper.id: e for e in new}}
    extractions = [merged[k] for k in sorted(merged)]
    if progress:
        progress("resolving and writing", None)
    G = build_graph(extractions, default_lexicon())
    manifest = save(out, G, extractions, inputs, pipeline)
    return BuildResult(G, manifest, report, len(new), reused, extractions)
