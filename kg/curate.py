"""Curation: a person's decisions about the graph, kept in one line-based file and applied
after resolution every time the graph is read.

The decisions live in ``curation.jsonl`` at the top of the graph folder: one JSON object a
line, in the order they were recorded; blank lines and lines starting with ``#`` are ignored,
so the file can be commented, kept under version control and copied to another graph
(``kg build --curation FILE``). Each decision names an ``op`` and the nodes it is about:

====================  ===========================================================================
``merge``             ``node`` becomes part of ``into`` (its names join ``into``'s aliases)
``split``             the papers in ``papers`` (or those writing one of ``forms`` and none of
                      its other names) move from ``node`` to a node ``name`` of its label
``reject``            ``node`` leaves the graph with its edges; or, with ``source``, ``type`` and
                      ``target`` (``paper`` optional), those edges do
``relabel``           ``node`` takes the label ``label`` (and the id that goes with it)
``rename``            ``node`` takes the name ``name`` (its id stays; the old name is an alias)
``propose``           the paper ``paper`` PROPOSES ``node``
====================  ===========================================================================

and who recorded it when (``by``, ``at``). The facts a decision makes or changes carry
``curated_by``, ``curated_at`` and confidence 1.0; rejected facts are in no output.

Every read of a graph folder applies its file (:func:`kg.io.format.load_graph`); a decision is
recorded, and a build's file copied in, by :mod:`kg.curator`. This module needs nothing of the
folder, so the folder's reader may import it.

:func:`apply` runs in one fixed order whatever the order of the file (splits, merges,
relabels, renames, rejections of edges, then of nodes, then proposals), so the same graph and
file always give the same result. A decision whose node is gone is reported as stale, never
dropped in silence; two decisions that contradict each other raise
:class:`~kg.errors.CurationConflict` naming both lines.

>>> import networkx as nx
>>> G = nx.MultiDiGraph()
>>> G.add_node("paper:p1", label="Paper", name="P1", title="P1", abstract="We use FooNet and FN.")
>>> G.add_node("method:foonet", label="Method", name="FooNet", papers=1)
>>> G.add_node("method:fn", label="Method", name="FN", papers=1)
>>> _ = G.add_edge("paper:p1", "method:foonet", key="USES|p1", type="USES", paper="p1", confidence=0.7)
>>> _ = G.add_edge("paper:p1", "method:fn", key="USES|p1", type="USES", paper="p1", confidence=0.6)
>>> ds = parse_lines(['{"op": "merge", "node": "method:fn", "into": "method:foonet", "by": "ana", '
...                   '"at": "2026-01-02T03:04:05Z"}'])
>>> report = apply(G, ds)
>>> sorted(G.nodes), G.nodes["method:foonet"]["aliases"], G.nodes["method:foonet"]["curated_by"]
(['method:foonet', 'paper:p1'], ['FN'], 'ana')
>>> report.applied, report.stale
(1, ())
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kg.errors import CurationConflict, InputError, UsageError
from kg.schema import LABELS, RELATIONS, fit_relation
from kg.text import entity_id

if TYPE_CHECKING:
    import networkx as nx

CURATION_FILE = "curation.jsonl"
OPS = ("split", "merge", "relabel", "rename", "reject", "propose")  # the order apply() runs them in
# what each op needs besides op, by and at; reject takes either node or source+type+target
_FIELDS = {
    "merge": ("node", "into"),
    "split": ("node", "name"),
    "relabel": ("node", "label"),
    "rename": ("node", "name"),
    "propose": ("paper", "node"),
}
_KNOWN = {"op", "by", "at", "node", "into", "papers", "forms", "name", "label", "source", "type", "target", "paper"}
_ENTITY_LABELS = tuple(n for n, lab in LABELS.items() if lab.parent == "Entity")


@dataclass(frozen=True, slots=True)
class Decision:
    """One line of a curation file."""

    op: str
    by: str = ""
    at: str = ""
    node: str | None = None
    into: str | None = None
    papers: tuple[str, ...] = ()
    forms: tuple[str, ...] = ()
    name: str | None = None
    label: str | None = None
    source: str | None = None
    type: str | None = None
    target: str | None = None
    paper: str | None = None
    where: str = field(default="", compare=False)  # file:line, for messages

    def to_json(self) -> dict[str, Any]:
        """The decision as its line holds it (empty fields left out)."""
        d = {k: (list(v) if isinstance(v, tuple) else v) for k, v in asdict(self).items() if k != "where"}
        return {k: v for k, v in d.items() if v not in (None, "", [])}

    def line(self) -> str:
        return json.dumps(self.to_json(), ensure_ascii=False, sort_keys=True)

    def describe(self) -> str:
        if self.op == "reject" and self.node is None:
            return f"reject {self.source} -{self.type}-> {self.target}" + (f" of {self.paper}" if self.paper else "")
        what = {"merge": f" into {self.into}", "relabel": f" as {self.label}", "rename": f" to {self.name!r}",
                "split": f" into {self.name!r}"}.get(self.op, "")
        if self.op == "propose":
            return f"propose: paper {self.paper} PROPOSES {self.node}"
        return f"{self.op} {self.node}{what}"


@dataclass(frozen=True, slots=True)
class CurationReport:
    """What applying a curation file did: decisions applied, and messages (file:line first)
    for those that no longer apply (``stale``) or could not be read (``skipped``)."""

    applied: int = 0
    stale: tuple[str, ...] = ()
    skipped: tuple[str, ...] = ()


# ---------------------------------------------------------------- the file


def make(op: str, *, by: str | None = None, at: str | None = None, **fields: Any) -> Decision:
    """A decision checked for its fields; ``by`` defaults to ``$KG_CURATOR`` or the user's
    login name, ``at`` to now (``$SOURCE_DATE_EPOCH`` when set), in UTC.

    >>> make("rename", node="method:foonet", name="FooNet-2", by="ana", at="2026-01-01T00:00:00Z").line()
    '{"at": "2026-01-01T00:00:00Z", "by": "ana", "name": "FooNet-2", "node": "method:foonet", "op": "rename"}'
    """
    if by is None:
        import getpass

        by = os.environ.get("KG_CURATOR") or getpass.getuser()
    if at is None:
        at = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(int(os.environ.get("SOURCE_DATE_EPOCH", time.time()))))
    d = {"op": op, "by": by, "at": at, **{k: v for k, v in fields.items() if v not in (None, "", (), [])}}
    problem = _problem(d)
    if problem:
        raise UsageError(f"{op}: {problem}")
    return _decision(d, "")


def _problem(d: dict) -> str | None:
    """What is wrong with a decision's fields, or None."""
    op = d.get("op")
    if op not in OPS:
        return f"unknown op {op!r}; use one of {', '.join(OPS)}"
    unknown = sorted(set(d) - _KNOWN)
    if unknown:
        return f"unknown field(s) {', '.join(unknown)}"
    for k, v in d.items():
        if k in ("papers", "forms"):
            if not isinstance(v, list | tuple) or not all(isinstance(x, str) and x for x in v):
                return f"{k} must be a list of strings"
        elif not isinstance(v, str):
            return f"{k} must be a string"
    if op == "reject":
        if d.get("node"):
            return None if not any(d.get(k) for k in ("source", "type", "target")) else \
                "reject either a node or an edge (source, type, target), not both"
        missing = [k for k in ("source", "type", "target") if not d.get(k)]
        if missing:
            return f"needs node, or source, type and target (missing {', '.join(missing)})"
        if d["type"] not in RELATIONS:
            return f"unknown relation type {d['type']!r}"
        return None
    missing = [k for k in _FIELDS[op] if not d.get(k)]
    if missing:
        return f"needs {', '.join(missing)}"
    if op == "split" and bool(d.get("papers")) == bool(d.get("forms")):
        return "split by papers or by forms (one of the two)"
    if op == "relabel" and d["label"] not in _ENTITY_LABELS:
        return f"unknown label {d['label']!r}; use one of {', '.join(_ENTITY_LABELS)}"
    if op == "merge" and d["node"] == d["into"]:
        return "a node cannot be merged into itself"
    return None


def _decision(d: dict, where: str) -> Decision:
    return Decision(**{k: (tuple(v) if isinstance(v, list) else v) for k, v in d.items()}, where=where)


def parse_lines(lines: Iterable[str], source: str = CURATION_FILE, skipped: list[str] | None = None
                ) -> list[Decision]:
    """The decisions of a curation file's lines. A line that is not a decision is reported in
    ``skipped`` (``file:line: why``) and the rest are read; without ``skipped`` it raises
    :class:`~kg.errors.InputError`."""
    out = []
    for no, text in enumerate(lines, 1):
        text = text.strip()
        if not text or text.startswith("#"):
            continue
        where = f"{source}:{no}"
        try:
            d = json.loads(text)
            problem = None if isinstance(d, dict) else "not a JSON object"
        except ValueError as exc:
            d, problem = {}, f"not JSON ({exc.args[0].split(':')[0]})"
        problem = problem or _problem(d)
        if problem:
            msg = f"{where}: {problem}; the line is skipped"
            if skipped is None:
                raise InputError(msg)
            skipped.append(msg)
            continue
        out.append(_decision(d, where))
    return out


def read(path: Path, skipped: list[str] | None = None) -> list[Decision]:
    """The decisions of a curation file ([] when there is none)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (FileNotFoundError, NotADirectoryError):  # no such file (a folder on its way is a file)
        return []
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: cannot be read as a curation file ({exc})") from None
    return parse_lines(text.splitlines(), str(path), skipped)


# ---------------------------------------------------------------- conflicts


def check(decisions: list[Decision]) -> None:
    """Raise :class:`~kg.errors.CurationConflict` when two decisions contradict each other:
    one node merged into two, a merge cycle, two names or labels for one node, a node both
    rejected and kept by another decision, an edge both proposed and rejected."""
    first: dict[tuple, Decision] = {}

    def claim(key: tuple, d: Decision, value: object) -> None:
        prev = first.get(key)
        if prev is not None and _value(prev, key[0]) != value:
            raise CurationConflict(f"{d.where}: {d.describe()} conflicts with {prev.where} ({prev.describe()}); "
                                   "remove one of the two lines")
        first.setdefault(key, d)

    rejected = {d.node: d for d in decisions if d.op == "reject" and d.node}
    into: dict[str, str] = {}
    for d in decisions:
        if d.op == "merge":
            claim(("merge", d.node), d, d.into)
            into[d.node] = d.into  # type: ignore[index]
        elif d.op in ("rename", "relabel"):
            claim((d.op, d.node), d, _value(d, d.op))
        for n in (d.node, d.into) if d.op != "reject" else ():
            if n in rejected:
                r = rejected[n]
                raise CurationConflict(f"{d.where}: {d.describe()} conflicts with {r.where} ({r.describe()}); "
                                       "remove one of the two lines")
    for start in into:
        seen, n = [start], into[start]
        while n in into:
            if n in seen:  # named by the cycle's last decision in the file
                cycle = [x for x in decisions if x.op == "merge" and x.node in seen]
                d = cycle[-1]
                raise CurationConflict(f"{d.where}: {d.describe()} closes a cycle of merges with "
                                       f"{', '.join(x.where for x in cycle[:-1])} "
                                       f"({' -> '.join([*seen, n])}); remove one of them")
            seen.append(n)
            n = into[n]
    proposed = {(f"paper:{d.paper}", d.node): d for d in decisions if d.op == "propose"}
    for d in decisions:
        if d.op == "reject" and d.type == "PROPOSES" and (d.source, d.target) in proposed:
            p = proposed[(d.source, d.target)]
            raise CurationConflict(f"{d.where}: {d.describe()} conflicts with {p.where} ({p.describe()}); "
                                   "remove one of the two lines")


def _value(d: Decision, op: str) -> object:
    return {"merge": d.into, "rename": d.name, "relabel": d.label}.get(op)


# ---------------------------------------------------------------- applying


def apply(G: nx.MultiDiGraph, decisions: list[Decision]) -> CurationReport:
    """Apply ``decisions`` to ``G`` in place (see the module docstring for the order)."""
    check(decisions)
    run = _Run(G)
    for op in OPS:
        for d in decisions:
            if d.op == op:
                getattr(run, op)(d)
    return CurationReport(run.applied, tuple(run.stale))


class _Run:
    """One application of decisions to a graph: where merged and relabelled ids went."""

    def __init__(self, G: nx.MultiDiGraph):
        self.G = G
        self.moved: dict[str, str] = {}
        self.applied = 0
        self.stale: list[str] = []

    def find(self, n: str | None) -> str | None:
        while n in self.moved:
            n = self.moved[n]
        return n if n in self.G else None

    def gone(self, d: Decision, what: str | None) -> None:
        self.stale.append(f"{d.where}: {d.describe()}: {what} is not in the graph; the decision no longer applies")

    def entity(self, d: Decision, n: str | None) -> str | None:
        found = self.find(n)
        if found is None or self.G.nodes[found].get("label") not in _ENTITY_LABELS:
            self.gone(d, f"entity {n}")
            return None
        return found

    def mark(self, n: str, d: Decision) -> None:
        self.G.nodes[n].update(confidence=1.0, curated_by=d.by, curated_at=d.at)
        self.applied += 1

    # -------------------------------------------------------- the ops

    def split(self, d: Decision) -> None:
        n = self.entity(d, d.node)
        if n is None:
            return
        attrs = self.G.nodes[n]
        papers = set(d.papers) if d.papers else self.writing(n, d.forms)
        new = entity_id(attrs["label"], d.name or "")
        if new == n:
            self.stale.append(f"{d.where}: {d.describe()}: the new name gives the same id {n}; nothing to split")
            return
        moving = [e for e in self.edges(n) if e[3].get("paper") in papers]
        if not moving:
            self.gone(d, f"an edge of {n} from those papers")
            return
        if new not in self.G:
            self.G.add_node(new, label=attrs["label"], name=d.name)
        if d.forms:
            self.set_aliases(new, [*self.G.nodes[new].get("aliases", []), *d.forms])
            self.set_aliases(n, [a for a in attrs.get("aliases", []) if a not in d.forms])
        self.move(moving, n, new)
        self.count(n)
        self.count(new)
        self.mark(new, d)

    def merge(self, d: Decision) -> None:
        a, b = self.entity(d, d.node), self.entity(d, d.into)
        if a is None or b is None:
            return
        if a == b:  # already one node (merged by resolution or another decision)
            self.mark(b, d)
            return
        self.join(a, b)
        self.mark(b, d)

    def relabel(self, d: Decision) -> None:
        n = self.entity(d, d.node)
        if n is None:
            return
        attrs = self.G.nodes[n]
        new = entity_id(d.label or "", attrs["name"])
        if new != n:
            if new not in self.G:
                self.G.add_node(new, **{k: v for k, v in attrs.items() if k in _allowed(d.label)})
            self.join(n, new, keep_name=True)
            n = new
        self.G.nodes[n]["label"] = d.label
        for k in [k for k in self.G.nodes[n] if k not in _allowed(d.label) and k != "label"]:
            del self.G.nodes[n][k]
        self.retype(n)
        self.mark(n, d)

    def rename(self, d: Decision) -> None:
        n = self.entity(d, d.node)
        if n is None:
            return
        attrs = self.G.nodes[n]
        if attrs["name"] != d.name:
            old, attrs["name"] = attrs["name"], d.name
            self.set_aliases(n, [*attrs.get("aliases", []), old])
        self.mark(n, d)

    def reject(self, d: Decision) -> None:
        if d.node:
            n = self.find(d.node)
            if n is None:
                self.gone(d, f"node {d.node}")
                return
            self.G.remove_node(n)
            self.applied += 1
            return
        u, v = self.find(d.source), self.find(d.target)
        hits = [(u, v, k) for k, e in (self.G.get_edge_data(u, v) or {}).items()
                if e.get("type") == d.type and (d.paper is None or e.get("paper") == d.paper)] if u and v else []
        if not hits:
            self.gone(d, f"a {d.type} edge from {d.source} to {d.target}" + (f" of paper {d.paper}" if d.paper else ""))
            return
        self.G.remove_edges_from(hits)
        self.applied += 1

    def propose(self, d: Decision) -> None:
        p, n = f"paper:{d.paper}", self.entity(d, d.node)
        if n is None:
            return
        if p not in self.G:
            self.gone(d, f"paper {d.paper}")
            return
        key = f"MENTIONS|{d.paper}"
        if self.G.has_edge(p, n, key):
            self.G.remove_edge(p, n, key)
        self.G.add_edge(p, n, key=f"PROPOSES|{d.paper}", type="PROPOSES", paper=d.paper, rule="curation",
                        confidence=1.0, curated_by=d.by, curated_at=d.at)
        self.applied += 1

    # -------------------------------------------------------- helpers

    def edges(self, n: str) -> list[tuple[str, str, str, dict]]:
        G = self.G
        return sorted([*G.in_edges(n, keys=True, data=True), *G.out_edges(n, keys=True, data=True)],
                      key=lambda e: (e[0], e[1], e[2]))

    def move(self, edges: list[tuple[str, str, str, dict]], old: str, new: str) -> None:
        """Re-point ``edges`` from ``old`` to ``new``; one already there is kept, a loop dropped."""
        for u, v, k, attrs in edges:
            self.G.remove_edge(u, v, k)
            u2, v2 = (new if u == old else u), (new if v == old else v)
            if u2 != v2 and not self.G.has_edge(u2, v2, k):
                self.G.add_edge(u2, v2, key=k, **attrs)

    def join(self, a: str, b: str, keep_name: bool = False) -> None:
        """Node ``a`` becomes part of ``b``: its edges, names and papers."""
        A, B = self.G.nodes[a], self.G.nodes[b]
        names = [] if keep_name and A["name"] == B["name"] else [A["name"]]
        self.set_aliases(b, [*B.get("aliases", []), *names, *A.get("aliases", [])])
        self.move(self.edges(a), a, b)
        self.G.remove_node(a)
        self.moved[a] = b
        self.count(b)

    def set_aliases(self, n: str, aliases: list[str]) -> None:
        attrs = self.G.nodes[n]
        keep = sorted({a for a in aliases if a and a != attrs["name"]})
        if keep:
            attrs["aliases"] = keep
        else:
            attrs.pop("aliases", None)

    def count(self, n: str) -> None:
        """A curated node's paper count: the papers its edges were read from."""
        attrs = self.G.nodes[n]
        if "papers" in _allowed(attrs.get("label")):
            attrs["papers"] = len({e[3]["paper"] for e in self.edges(n) if e[3].get("paper") is not None})

    def writing(self, n: str, forms: tuple[str, ...]) -> set[str]:
        """The papers whose title or abstract writes one of ``forms`` as a word, and none of
        the node's other names."""
        attrs = self.G.nodes[n]
        others = [x for x in (attrs["name"], *attrs.get("aliases", ())) if x not in forms]
        pattern, other = _words(forms), _words(others)
        out = set()
        for *_, e in self.edges(n):
            paper = e.get("paper")
            node = self.G.nodes.get(f"paper:{paper}") if paper else None
            text = f"{node.get('title') or ''}\n{node.get('abstract') or ''}" if node else ""
            if pattern.search(text) and not (other and other.search(text)):
                out.add(paper)
        return out

    def retype(self, n: str) -> None:
        """Edges of a relabelled node take the type its new label calls for, or go."""
        for u, v, k, attrs in self.edges(n):
            su, sv = self.G.nodes[u].get("label"), self.G.nodes[v].get("label")
            t = fit_relation(attrs["type"], su, sv) if attrs.get("type") in RELATIONS else None
            if t == attrs.get("type"):
                continue
            self.G.remove_edge(u, v, k)
            if t is None:
                continue
            old = attrs["type"]
            k2 = t + k[len(old):] if k.startswith(old) else k
            if not self.G.has_edge(u, v, k2):
                self.G.add_edge(u, v, key=k2, **{**attrs, "type": t})


def _words(names: Iterable[str]) -> re.Pattern:
    return re.compile("|".join(rf"(?<!\w){re.escape(x)}(?!\w)" for x in names) or "(?!)")


def _allowed(label: str | None) -> set[str]:
    lab = LABELS.get(label or "")
    return {p.name for p in lab.props} | {"label"} if lab else set()


def lines_of(decisions: list[Decision]) -> Iterator[str]:
    """The decisions as the lines of a curation file."""
    for d in decisions:
        yield d.line()
