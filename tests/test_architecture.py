"""The shape of the package: imports go one way (no cycles, even through imports inside
functions), no module reaches for another's private names, and modules stay small."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import networkx as nx

KG = Path(__file__).resolve().parents[1] / "kg"


def modules() -> dict[str, Path]:
    out = {}
    for p in KG.rglob("*.py"):
        parts = p.relative_to(KG.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = p
    return out


def imports() -> tuple[nx.DiGraph, list[tuple[str, str, str]]]:
    """Every import of a kg module by a kg module (at any depth in the code), and every
    private name one module imports from another."""
    mods = modules()
    graph, private = nx.DiGraph(), []
    for name, path in mods.items():
        graph.add_node(name)
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*up, *([node.module] if node.module else [])])
                for a in node.names:
                    if f"{base}.{a.name}" in mods:
                        targets.append(f"{base}.{a.name}")  # a submodule
                    else:
                        targets.append(base)
                        if a.name.startswith("_") and not a.name.startswith("__") and base in mods and base != name:
                            private.append((name, base, a.name))
            for t in targets:
                while t and t not in mods:
                    t = t.rpartition(".")[0]
                if t and t != name:
                    graph.add_edge(name, t)
    return graph, private


def test_the_import_graph_has_no_cycles():
    graph, _ = imports()
    assert graph.number_of_nodes() > 40 and graph.number_of_edges() > 100  # the walk sees the package
    cycles = sorted(nx.simple_cycles(graph), key=len)
    assert not cycles, f"import cycles: {cycles[:5]}"


def package_cycles(graph: nx.DiGraph) -> list[list[str]]:
    """Cycles between packages: at each depth, every module stands for its package at that depth
    (``kg.io.folder`` for ``kg.io`` at depth 2, a top-level module for itself), and an import
    between a package and what it contains does not count."""
    out = []
    for depth in range(2, max(n.count(".") for n in graph) + 2):
        units = nx.DiGraph()
        for a, b in graph.edges:
            ua, ub = ".".join(a.split(".")[:depth]), ".".join(b.split(".")[:depth])
            if ua != ub and not ub.startswith(ua + ".") and not ua.startswith(ub + "."):
                units.add_edge(ua, ub)
        out += sorted(nx.simple_cycles(units), key=len)
    return out


def test_packages_import_one_way():
    """No cycle between packages either: the graph folder's format lived half in ``kg.graph``,
    which ``kg.io.folder`` read while ``kg.graph`` saved through ``kg.io``."""
    graph, _ = imports()
    cycles = package_cycles(graph)
    assert not cycles, f"package import cycles: {cycles[:5]}"


#: what extraction's readers may not reach: resolution, the graph and the folder are built from
#: extractions, whatever made them, and sinks write a graph
LOWER = ("kg.records", "kg.schema", "kg.text", "kg.lexicon", "kg.resolve", "kg.graph", "kg.io")


def test_resolution_graph_and_folder_need_no_extraction():
    graph, _ = imports()
    reach = {m: sorted(t for t in nx.descendants(graph, m) if t == "kg.extract" or t.startswith(("kg.extract.", "kg.sinks", "kg.cli")))
             for m in graph if m.startswith(LOWER)}
    assert not {m: r for m, r in reach.items() if r}


def test_no_module_imports_another_modules_private_names():
    _, private = imports()
    assert not private, private


def test_modules_stay_small():
    long = {name: n for name, path in modules().items()
            if (n := len(path.read_text(encoding="utf-8").splitlines())) > 650}
    assert not long, long


def test_the_walk_finds_cycles_and_private_imports(tmp_path, monkeypatch):
    """The checks above can fail: a package with a cycle and a private import trips them."""
    pkg = tmp_path / "kg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("", encoding="utf-8")
    (pkg / "a.py").write_text("def f():\n    from kg.b import _hidden\n", encoding="utf-8")
    (pkg / "b.py").write_text("from kg import a\n_hidden = 1\n", encoding="utf-8")
    (pkg / "sub" / "__init__.py").write_text("from . import c\n", encoding="utf-8")
    (pkg / "sub" / "c.py").write_text("", encoding="utf-8")
    monkeypatch.setattr(__import__(__name__, fromlist=["KG"]), "KG", pkg)
    graph, private = imports()
    assert list(nx.simple_cycles(graph)) and private == [("kg.a", "kg.b", "_hidden")]
    assert graph.has_edge("kg.sub", "kg.sub.c")
    assert not package_cycles(graph.subgraph(["kg.sub", "kg.sub.c"]))  # a package and its own module
    (pkg / "sub" / "d.py").write_text("def g():\n    import kg.e\n", encoding="utf-8")
    (pkg / "e.py").write_text("from kg.sub import c\n", encoding="utf-8")
    graph, _ = imports()
    assert not [c for c in nx.simple_cycles(graph) if "kg.e" in c]  # no cycle of modules ...
    assert ["kg.e", "kg.sub"] in [sorted(c) for c in package_cycles(graph)]  # ... but of packages


def listed_modules(doc: str) -> list[str]:
    """The modules the architecture notes' table names, in its order."""
    return re.findall(r"^\| `(kg/[^`]+\.py)` \|", doc, re.M)


def test_the_architecture_notes_list_every_module_once():
    """A newcomer reads ``docs/architecture.md`` for where a job lives: 21 of 84 modules were
    missing from its table."""
    listed = listed_modules((KG.parent / "docs" / "architecture.md").read_text(encoding="utf-8"))
    here = sorted(str(p.relative_to(KG.parent)) for p in KG.rglob("*.py"))
    assert sorted(set(listed)) == here and len(listed) == len(here)
