"""kg: knowledge graphs of machine-learning research from conference paper lists.

The library is a chain of small stages that exchange frozen records::

    >>> from kg import read_papers, Extractor, build_graph
    >>> # papers = list(read_papers(["list.txt"]))
    >>> # graph = build_graph(Extractor().extract_all(papers))
"""

from kg.errors import KgError
from kg.records import Entity, Evidence, Extraction, Mention, Paper, Relation

__version__ = "0.1.0"

__all__ = [
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
    if name == "Extractor":
        from kg.extract import Extractor

        return Extractor
    if name == "build_graph":
        from kg.graph import build_graph

        return build_graph
    if name == "read_papers":
        from kg.readers import read_papers

        return read_papers
    raise AttributeError(name)
