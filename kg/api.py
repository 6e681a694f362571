"""kg from Python: the command line's verbs as calls on a :class:`Graph`.

>>> import tempfile
>>> from pathlib import Path
>>> import kg
>>> folder = Path(tempfile.mkdtemp())
>>> papers = folder / "papers.txt"
>>> _ = papers.write_text("ICML 2026\\n\\nWe propose FooNet, a sparse transformer for image "
...                       "classification, and evaluate it on ImageNet.\\n", encoding="utf-8")
>>> g = kg.build([papers], out=folder / "graph")        # kg build papers.txt -o graph
>>> g.stats()["nodes_per_label"]["Paper"]               # kg stats -g graph --json
1
>>> g.sparql("SELECT ?name WHERE { ?p kg:proposes ?m . ?m rdfs:label ?name }")
[{'name': 'FooNet'}]
>>> g.sparql("SELECT ?p WHERE { ?p kg:proposes ?m . ?m rdfs:label ?name }", name="NoSuchNet")
[]
>>> g.export(folder / "graph.ttl").name                 # kg export -g graph -f ttl -o graph.ttl
'graph.ttl'
>>> [e.name for e in kg.extract("We propose BarNet, evaluated on CIFAR-10.").entities]
['BarNet', 'CIFAR-10']
>>> kg.open(folder / "graph").manifest["papers"]
1
>>> g.show("foonet").matches[0].label                   # kg show foonet -g graph
'Method'
>>> [h.name for h in g.search("FooNet").hits][:1]       # kg search FooNet -g graph
['FooNet']
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterable
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kg.errors import UsageError
from kg.records import Extraction, Paper

if TYPE_CHECKING:
    import networkx as nx

    from kg.explore.lookup import ShowResult
    from kg.explore.search import SearchResult
    from kg.io.readers import ReadReport
    from kg.sinks.neo4j.store import LoadResult

__all__ = ["Graph", "build", "extract", "open_graph"]


class Graph:
    """A graph folder written by ``kg build``: read lazily, queried and exported in place."""

    def __init__(self, folder: str | Path, report: ReadReport | None = None, min_confidence: float = 0.0):
        from kg.errors import GraphNotFoundError
        from kg.io.format import GRAPH_FILE
        from kg.io.generations import current

        if not isinstance(folder, str | Path) or not str(folder).strip():
            raise UsageError(f"a graph folder is a path, not {folder!r}")
        self.folder = Path(folder)
        self.report = report  # what the build that made it skipped, when it was just built
        from kg.confidence import check_threshold

        self.min_confidence = check_threshold(min_confidence)  # the view: facts below it are left out
        if not (current(self.folder) / GRAPH_FILE).exists():
            raise GraphNotFoundError(f"no graph in {self.folder}/; build one with kg.build(inputs, out=...)")

    def __repr__(self) -> str:
        m = self.manifest
        return f"Graph({str(self.folder)!r}: {m.get('papers')} papers, {m.get('nodes')} nodes, {m.get('edges')} edges)"

    @property
    def manifest(self) -> dict:
        """Sources, counts and checksums of the current build."""
        from kg.io.format import read_manifest

        return read_manifest(self.folder)

    @cached_property
    def nx(self) -> nx.MultiDiGraph:
        """The graph as a networkx ``MultiDiGraph`` (nodes and edges carry every property),
        curated, less the facts below :attr:`min_confidence`."""
        from kg.io.format import load_graph

        return load_graph(self.folder, min_confidence=self.min_confidence)

    @property
    def extractions(self) -> list[Extraction]:
        """What was extracted from each paper, sorted by paper id."""
        from kg.io.format import load_extractions

        return load_extractions(self.folder)

    def curate(self, op: str, *, by: str | None = None, at: str | None = None, **fields: Any):
        """Record a person's decision in the folder's curation file, as ``kg curate OP``: ``op``
        is merge (``node``, ``into``), split (``node``, ``name``, ``papers`` or ``forms``),
        reject (``node``, or ``source``, ``type``, ``target`` and maybe ``paper``), relabel
        (``node``, ``label``), rename (``node``, ``name``) or propose (``paper``, ``node``).
        It is checked against the graph and the other decisions first
        (:class:`~kg.errors.NotFound`, :class:`~kg.errors.CurationConflict`) and applied from
        then on, by every read and build. Returns the :class:`kg.curate.Decision` recorded."""
        from kg.curate import make
        from kg.curator import decide

        decision = decide(self.folder, make(op, by=by, at=at, **fields))
        self.__dict__.pop("nx", None)
        return decision

    def curation(self):
        """Each recorded decision with why it no longer applies (None when it applies), and the
        lines of the curation file that could not be read, as ``kg curate list``."""
        from kg.curator import status

        return status(self.folder)

    def review(self, limit: int = 25) -> list:
        """The facts to check first, as ``kg review --json``: a list of
        :class:`kg.review.ReviewItem` (``item.reject_fields()`` feeds :meth:`curate`)."""
        from kg.review import queue

        return queue(self.nx, limit)

    def stats(self, top: int = 10) -> dict[str, Any]:
        """What ``kg stats --json`` prints: counts per label and type, components, degrees,
        central entities (``top`` per label), coverage."""
        from kg.stats import summary

        return summary(self.nx, top)

    def show(self, name: str, limit: int = 10) -> ShowResult:
        """Every entity or paper ``name`` names (an id, a name, a title or an alias; case,
        dashes and spacing do not matter) with what the graph says about it, as ``kg show``;
        :class:`~kg.errors.NotFound`, with ranked suggestions, when nothing does. ``limit``
        caps the rows per relation type."""
        from kg.explore.lookup import show

        return show(self.nx, name, limit)

    def search(self, text: str | None = None, *, label: str | None = None, venue: str | None = None,
               year: int | None = None, uses: str | None = None, addresses: str | None = None,
               limit: int = 20) -> SearchResult:
        """Papers and entities matching ``text`` and the filters, best first, as ``kg search``
        (:func:`kg.explore.search.search`); ``uses`` and ``addresses`` select papers."""
        from kg.explore.search import search

        return search(self.nx, text, label=label, venue=venue, year=year, uses=uses, addresses=addresses,
                      limit=limit)

    def diff(self, other: Graph | None = None, old: str | None = None, new: str | None = None,
             top: int = 10, min_papers: int = 5, min_link_papers: int = 3):
        """What changed from this graph (or its slice ``old``, e.g. ``"year=2023"``) to ``other``
        (default: this graph; or its slice ``new``), as ``kg diff``: a frozen
        :class:`kg.explore.diff.Diff` (``dataclasses.asdict`` gives its JSON)."""
        from kg.explore.diff import diff_folders

        return diff_folders(self.folder, other.folder if other is not None else None, old_select=old,
                            new_select=new, top=top, min_papers=min_papers, min_link_papers=min_link_papers)

    def trends(self, by: str = "year", top: int = 10, window: int = 3, min_papers: int = 10):
        """Papers and top entities per year (or venue) with the entities rising and falling
        most, as ``kg stats --by-year``: a frozen :class:`kg.explore.trends.Trends`."""
        from kg.explore.trends import trends

        return trends(self.nx, by, top=top, window=window, min_papers=min_papers)

    def plot(self, folder: str | Path, top: int = 10) -> list[Path]:
        """Write the pictures of ``kg stats --plot FOLDER`` and return their paths (needs
        ``pip install 'kg[plot]'``)."""
        from kg.explore.plots import size_title, stats_pictures
        from kg.explore.slices import graph_name
        from kg.explore.trends import paper_periods, trends
        from kg.stats import summary

        s = summary(self.nx, top)
        title = size_title(graph_name(self.folder, self.manifest), s["coverage"]["papers"], s["nodes"], s["edges"])
        trend = trends(self.nx, "year", top=top) if len(paper_periods(self.nx)[0]) >= 2 else None
        return stats_pictures(self.nx, s, Path(folder), title, trend)

    def export(self, path: str | Path, format: str | None = None, base: str | None = None,  # noqa: A002
               **options: Any) -> Path:
        """Write the graph to ``path`` as ``format`` (ttl, nt, jsonld, graphml, neo4j-csv or
        html; by default from the extension) and return the path; as ``kg export``. The html
        page takes ``around``, ``depth``, ``max_nodes``, ``view``, ``select`` and ``diff``."""
        from kg.errors import UsageError
        from kg.sinks import FORMATS, export, format_of, resolve_format
        from kg.sinks.rdf.terms import DEFAULT_BASE

        path = Path(path)
        fmt = format or format_of(path)
        if fmt is None:
            raise UsageError(f"{path}: no format has the extension {path.suffix or '(none)'!r}; pass "
                             f"format='ttl' (or one of {', '.join(FORMATS)})")
        fmt = resolve_format(fmt)
        if fmt == "html":
            options.setdefault("folder", self.folder)
        return export(self.nx, path, fmt, base or DEFAULT_BASE, self.manifest, **options).path

    def sparql(self, query: str, *, allow_service: bool = False, **params: Any) -> list[dict[str, Any]] | bool:
        """Run a SPARQL query over the graph's RDF, as ``kg sparql``: ``query`` is the name of a
        query kg ships (``"proposals"``; :func:`kg.queries.named_queries` lists them), a ``.rq``
        file, or the query text. ``params`` bind the query's parameters as ``-p`` does (its
        ``VALUES ?name`` blocks and ``limit``; a query written on the spot may bind any of its
        variables: ``name="FooNet"`` binds ``?name``; an ``http(s)://`` string is an IRI, a list
        several values); any other name is a :class:`~kg.errors.QueryError`. A parameter of a
        shipped query that names an entity or paper is read as :meth:`show` reads a name
        (``technique="low rank adaptation"`` finds LoRA); one that names nothing gives a warning
        naming the closest nodes. ``SERVICE``
        (a call to a remote endpoint) is refused unless ``allow_service``. SELECT gives one dict
        per row with plain Python values, ASK a bool, CONSTRUCT and DESCRIBE one
        ``subject/predicate/object`` dict per triple."""
        import pyoxigraph as ox

        from kg.explore.params import ENTITY_PARAMS, resolve_names
        from kg.queries import sparql_query
        from kg.sinks.rdf.sparql import run

        text, name = sparql_query(query, params)
        if any(isinstance(params.get(p), str) for p in ENTITY_PARAMS.get(name, ())):
            import warnings

            found = resolve_names(self.nx, name, params)  # a name read as show() reads it
            for line in found.warnings:
                warnings.warn(line, stacklevel=2)
            if found.params != params:
                text, name = sparql_query(query, found.params)
        result = run(self._stores.get().store, text, name, allow_service)
        if isinstance(result, ox.QueryBoolean):
            return bool(result)
        if isinstance(result, ox.QueryTriples):
            return [{"subject": _value(t.subject), "predicate": _value(t.predicate), "object": _value(t.object)}
                    for t in result]
        names = [v.value for v in result.variables]
        return [{n: _value(row[n]) for n in names} for row in result]

    @cached_property
    def _stores(self):
        """The folder's persistent SPARQL store, kept open between queries and reopened
        after a new build (:mod:`kg.sinks.rdf.store`)."""
        from kg.sinks.rdf.store import Stores

        return Stores(self.folder)

    def to_neo4j(self, uri: str | None = None, user: str | None = None, password: str | None = None,
                 database: str | None = None, wipe_first: bool = False) -> LoadResult:
        """MERGE the graph into Neo4j (idempotent: loading twice changes nothing), as
        ``kg load``; connection settings default to ``$NEO4J_URI``, ``$NEO4J_USERNAME``,
        ``$NEO4J_PASSWORD``. Returns what was sent and created; a database that already holds
        another graph's papers gives a warning (``wipe_first=True`` replaces them)."""
        import os

        from kg.sinks.neo4j import store as ns

        uri = uri or os.environ.get("NEO4J_URI") or ns.DEFAULT_URI
        user = user or os.environ.get("NEO4J_USERNAME") or ns.DEFAULT_USER
        password = password if password is not None else os.environ.get("NEO4J_PASSWORD")
        driver = ns.connect(uri, user, password, database)
        try:
            result = ns.load(self.nx, driver, database=database, wipe_first=wipe_first, uri=uri)
        finally:
            driver.close()
        if result.others:
            import warnings

            warnings.warn(f"the database already held {result.others:,} papers that are not in this graph; they "
                          "stay beside it, and queries count them: to_neo4j(wipe_first=True) replaces them",
                          stacklevel=2)
        return result


def build(inputs: Iterable[str | Path], out: str | Path | None = None, *, fresh: bool = False,
          workers: int = 1, wait: bool = False, curation: str | Path | None = None) -> Graph:
    """Build or extend the graph in ``out`` from paper lists (.txt, .jsonl, .json, .csv; one path
    or several), as ``kg build``; ``out=None`` builds into a new temporary folder; ``curation``
    a curation file to make the folder's own (``--curation``). Records that cannot be read
    are skipped and listed in ``Graph.report``; an input that cannot be read at all, or inputs
    with no paper, raise :class:`~kg.errors.InputError` and change nothing."""
    from kg.builder import build as run_build
    from kg.io.readers import ReadReport

    if out is not None and (not isinstance(out, str | Path) or not str(out).strip()):
        raise UsageError(f"out must name the graph folder (or be None for a new temporary one), not "
                         f"{'an empty path' if isinstance(out, str | Path) else repr(out)}")
    if isinstance(inputs, str | Path):  # one paper list, not the characters of its name
        inputs = [inputs]
    inputs = list(inputs)
    if not all(isinstance(p, str | Path) for p in inputs):
        raise UsageError(f"inputs are paths of paper lists, not {next(p for p in inputs if not isinstance(p, str | Path))!r}")
    out = Path(out) if out is not None else Path(tempfile.mkdtemp(prefix="kg-"))
    report = ReadReport()
    run_build([str(p) for p in inputs], out, workers=workers, report=report, fresh=fresh, wait=wait,
              curation=Path(curation) if curation is not None else None)
    return Graph(out, report)


def open_graph(folder: str | Path, min_confidence: float = 0.0) -> Graph:
    """The graph a build wrote into ``folder``; ``min_confidence`` leaves out the facts below
    it from every view of it (``--min-confidence``; SPARQL queries see every fact)."""
    return Graph(folder, min_confidence=min_confidence)


def extract(what: str | Paper | Iterable[str | Paper]) -> Extraction | list[Extraction]:
    """What kg reads in an abstract (a string), a :class:`~kg.records.Paper`, or many of
    either (then a list): entities, relations, results; as ``kg extract``."""
    from kg.extract import extract_records

    return extract_records(what)


_NUMERIC = {"integer": int, "int": int, "long": int, "decimal": float, "double": float, "float": float}


def _value(term) -> Any:
    """A result term as plain Python: IRIs as strings, typed literals as numbers or booleans."""
    import pyoxigraph as ox

    if term is None:
        return None
    if isinstance(term, ox.Literal):
        kind = term.datatype.value.rpartition("#")[2]
        if kind in _NUMERIC:
            try:
                return _NUMERIC[kind](term.value)
            except ValueError:
                return term.value
        if kind == "boolean":
            return term.value == "true"
        return term.value
    return term.value
