"""``kg build`` as a library call: read, extract (in parallel if asked), merge, resolve, save.

>>> # result = build(["papers.jsonl"], Path("exports"))
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from kg.curate import CurationReport
from kg.errors import InputError, UsageError
from kg.extract.parallel import CHUNK, chunks, extractions_only
from kg.io.folder import GraphFolder
from kg.io.format import curation_path, load_extractions, load_graph
from kg.io.generations import locked
from kg.io.readers import ReadReport, check_inputs, read_papers
from kg.lexicon import default_lexicon
from kg.records import Extraction, Failure, Paper
from kg.schema import LEXICON_DIR

if TYPE_CHECKING:
    import networkx as nx


@dataclass
class BuildResult:
    """What a build did; the graph and the extractions are read from the folder when asked for."""

    folder: Path
    manifest: dict
    report: ReadReport
    new: int = 0
    reused: int = 0
    curation: CurationReport = field(default_factory=CurationReport)  # what the curation file did

    @cached_property
    def graph(self) -> nx.MultiDiGraph:
        return load_graph(self.folder)

    @cached_property
    def extractions(self) -> Sequence[Extraction]:
        return StoredExtractions(self.folder, self.manifest.get("papers", 0))


class StoredExtractions(Sequence[Extraction]):
    """A folder's extractions, read on first use; how many there are is known without reading."""

    def __init__(self, folder: Path, count: int):
        self.folder, self.count = folder, count

    @cached_property
    def _all(self) -> list[Extraction]:
        return load_extractions(self.folder)

    def __len__(self) -> int:
        return self.count

    def __getitem__(self, i):  # type: ignore[override]
        return self._all[i]

    def __iter__(self) -> Iterator[Extraction]:
        return iter(self._all)


def extract_papers(papers: list[Paper], workers: int = 1, dask: str | None = None,
                   progress: Callable[[int], None] | None = None,
                   ner_model: str = "", failed: Callable[[Failure], None] | None = None) -> list[Extraction]:
    """Extract papers in this process, in a local process pool, or on a Dask cluster.
    ``ner_model``: folder of the optional trained span model ("" = rules only). A paper whose
    extraction fails is handed to ``failed`` and left out (without it, the error is raised).

    Extraction is per paper and deterministic, so the result is the same either way.
    """
    if dask:
        from distributed import Client, as_completed

        from kg.extract import extract_batch

        parts = list(chunks(papers))
        out: list[list[Extraction | Failure]] = [[] for _ in parts]
        try:
            client = Client(dask) if isinstance(dask, str) else dask
        except (OSError, ValueError, TimeoutError) as exc:  # a bad address, or no scheduler there
            raise UsageError(f"cannot use the Dask scheduler at {dask!r}: {exc}; check the address "
                             "(tcp://host:8786) and that the scheduler runs") from None
        with client:  # type: ignore[union-attr]
            futures = {client.submit(extract_batch, c, str(LEXICON_DIR), ner_model, pure=False): i
                       for i, c in enumerate(parts)}
            for fut in as_completed(futures):
                out[futures[fut]] = fut.result()
                if progress:
                    progress(len(out[futures[fut]]))
        return extractions_only((e for chunk in out for e in chunk), failed)
    if workers != 1 and len(papers) > CHUNK:
        from kg.extract.parallel import ExtractionPool

        with ExtractionPool(workers, ner_model) as pool:
            return pool.extract(papers, progress, failed)
    from kg.extract import Extractor

    return list(Extractor(ner_model=ner_model).extract_all(papers, progress, failed))


def _same_record(old: Paper, new: Paper) -> bool:
    return replace(old, title="", source=None) == replace(new, title="", source=None) \
        and (not new.title or new.title == old.title)


def build(inputs: Iterable[str], out: Path, workers: int = 1, dask: str | None = None,
          report: ReadReport | None = None, fresh: bool = False,
          progress: Callable[[str, int | None], Callable[[int], None] | None] | None = None,
          ner_model: str | Path | None = None, wait: bool = False,
          waiting: Callable[[str], None] | None = None, curation: Path | None = None) -> BuildResult:
    """Build or extend the graph in ``out`` from paper lists.

    Papers already in ``out`` with the same text are reused, not extracted again, unless they
    were extracted by another pipeline (rules only vs with the span model ``ner_model``;
    None reads ``$KG_NER_MODEL``); the graph is then rebuilt from all extractions, so the
    result equals a one-shot build (:mod:`kg.io.folder` does it without rebuilding what is there).
    ``progress(description, total)`` may return a callback that advances a bar.

    Nothing is written unless the inputs exist and at least one paper is read from them.
    The folder is locked for the build: another build into it raises
    :class:`~kg.errors.FolderBusy`, or with ``wait`` queues behind it (``waiting(holder)`` is
    told). Records that cannot be read or extracted are skipped and reported in ``report``.

    ``curation``: a curation file (:mod:`kg.curate`) that becomes the folder's own; the folder's
    decisions are checked before anything is written and applied to the graph the build made
    (:attr:`BuildResult.curation` says which no longer apply).
    """
    from kg.curator import check_for_build

    check_for_build(out, curation)
    inputs = check_inputs(inputs)
    report = report if report is not None else ReadReport()
    papers = list(read_papers(inputs, report))
    if not papers:
        raise InputError(f"no papers could be read from {', '.join(inputs)}; {out}/ was not changed")
    from kg.extract import default_pipeline
    from kg.extract.ner import model_path_from_env
    from kg.extract.pipeline import PIPELINE_VERSION, pipeline_id

    ner = str(ner_model if ner_model is not None else (model_path_from_env() or ""))
    pipeline = pipeline_id(ner, *default_pipeline())
    with locked(out, wait, waiting):
        folder = GraphFolder(out, fresh)
        built_with = folder.manifest.get("pipeline", PIPELINE_VERSION)
        if len(folder) and built_with != pipeline:
            raise UsageError(f"{out}/ was built with the extraction pipeline {built_with!r}, this build uses "
                          f"{pipeline!r}; mixing them would make the graph depend on build order. Build "
                          f"again from all inputs with --fresh, or use the same pipeline (--model fast, "
                          f"--model off for rules only, --ner)")
        old = folder.papers(p.id for p in papers)
        todo = [p for p in papers if p.id not in old or not _same_record(old[p.id], p)]
        reused = len(papers) - len(todo)
        tick = progress("extracting", len(todo)) if progress else None
        new = extract_papers(todo, workers, dask, tick, ner, lambda f: _skip(report, f))
        if not new and not reused:
            raise InputError(f"no paper of {', '.join(inputs)} could be extracted; {out}/ was not changed")
        if progress:
            progress("resolving and writing", None)
        manifest = folder.add(new, inputs, pipeline, default_lexicon())
        result = BuildResult(Path(out), manifest, report, len(new), reused)
        if curation is not None or curation_path(out).exists():
            result.curation = curate_built(result, curation)
    return result


def curate_built(result: BuildResult, curation: Path | None) -> CurationReport:
    """Make ``curation`` the folder's curation file (when given) and apply the folder's
    decisions to the graph just built; the curated graph becomes ``result.graph``."""
    from kg.curator import copy_into

    if curation is not None:
        copy_into(result.folder, curation)
    reports: list[CurationReport] = []
    result.__dict__["graph"] = load_graph(result.folder, reports)
    return reports[0]


def _skip(report: ReadReport, failure: Failure) -> None:
    source, _, line = (failure.source or failure.paper_id).rpartition(":")
    if line.isdigit():
        report.skip(source, int(line), failure.reason)
    else:
        report.skip(failure.source or failure.paper_id, None, failure.reason)
