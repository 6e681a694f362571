"""The shape of the package: imports go one way (no cycles, even through imports inside
functions), no module reaches for another's private names, and modules stay small."""

from __future__ import annotations

import ast
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
