"""kg: knowledge graphs of machine-learning research from conference paper lists.

Use it like the command line (:mod:`kg.api` has runnable examples)::

    import kg
    g = kg.build(["papers.jsonl"], out="exports")   # -> kg.Graph
    g.stats(); g.sparql("SELECT ...", name="LoRA"); g.export("graph.ttl"); g.to_neo4j()
    kg.extract("We propose FooNet ...")           # -> kg.Extraction

or as the chain of small stages it is made of, which exchange frozen records
(:func:`read_papers` -> :class:`Extractor` -> :func:`build_graph`).
"""

from kg.errors import KgError
from kg.records import Entity, Evidence, Extraction, Mention, Paper, Relation
from kg.version import __version__

__all__ = [
    "Graph",
    "build",
    "extract",
    "open",
    "Entity",
    "Evidence",
    "Extraction",
    "KgError",
    "Mention",
    "Paper",
    "Relation",
    "Extractor",
    "build_graph",
    "read_papers",
    "__version__",
]


def __getattr__(name: str):  # lazy: importing kg must not load spaCy
    if name == "extract":  # the extraction package, callable as kg.api.extract
        import kg.extract

        return kg.extract
    if name in ("Graph", "build", "open"):
        from kg import api

        return getattr(api, "open_graph" if name == "open" else name)
    if name == "Extractor":
        from kg.extract import Extractor

        return Extractor
    if name == "build_graph":
        from kg.graph import build_graph

        return build_graph
    if name == "read_papers":
        from kg.io.readers import read_papers

        return read_papers
    raise AttributeError(name)
