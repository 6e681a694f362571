"""Short captions for graph views: the ``display`` property every node gets in Neo4j.

Browser fits a caption into its node's circle and cuts the rest, so a paper's caption is what
it proposes (``DraftMixer``), or its title cut on a word boundary; other nodes keep their name,
cut the same way when it is longer than :data:`kg.schema.DISPLAY_CHARS`. Browser wraps a
caption only at spaces, so a long word gets a space after each hyphen or slash inside it
("Retrieval- Augmented Generation" wraps to three lines instead of losing its end).

>>> import networkx as nx
>>> G = nx.MultiDiGraph()
>>> G.add_node("paper:p", label="Paper", name="p", title="DraftMixer: Mixing Drafts for Faster Decoding")
>>> G.add_node("paper:q", label="Paper", name="q", title="On the Surprising Effectiveness of Very Small Models")
>>> G.add_node("method:d", label="Method", name="DraftMixer")
>>> G.add_node("dataset:b", label="Dataset", name="MixBench")
>>> _ = G.add_edge("paper:p", "dataset:b", type="PROPOSES", confidence=0.9)
>>> _ = G.add_edge("paper:p", "method:d", type="PROPOSES", confidence=0.8)
>>> display_names(G)
{'paper:p': 'DraftMixer', 'paper:q': 'On the Surprising Effectiveness of Very…', 'method:d': 'DraftMixer', 'dataset:b': 'MixBench'}
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from kg.schema import DISPLAY_CHARS

if TYPE_CHECKING:
    import networkx as nx


def shorten(text: str, limit: int = DISPLAY_CHARS) -> str:
    """``text`` with its whitespace collapsed, cut on a word boundary to at most ``limit``
    characters with "…" (within a word only when its first word is that long).

    >>> shorten("Speculative decoding with many small draft models", 30)
    'Speculative decoding with…'
    >>> shorten("Supercalifragilisticexpialidocious", 10), shorten("short", 10)
    ('Supercali…', 'short')
    """
    text = " ".join(str(text).split())
    if len(text) <= limit:
        return text
    head = text[:limit]  # room for "…" when the cut falls on a space
    cut = head.rsplit(" ", 1)[0] if " " in head else head[:limit - 1]
    return cut.rstrip(" ,;:.-–—(") + "…"


LONG_WORD = 10  # characters; a longer word can be wrapped after a hyphen or slash inside it
_JOINT = re.compile(r"(?<=[^\W\d_]{3})([-/])(?=\w{3})")


def wrappable(text: str) -> str:
    """A space after each hyphen or slash between letters of a word longer than LONG_WORD.

    >>> wrappable("Retrieval-Augmented Generation"), wrappable("GPT-4 and Qwen2.5-VL-7B")
    ('Retrieval- Augmented Generation', 'GPT-4 and Qwen2.5-VL-7B')
    """
    return " ".join(_JOINT.sub(r"\1 ", w) if len(w) > LONG_WORD else w for w in text.split(" "))


def _proposal(G: nx.MultiDiGraph, paper: str) -> str | None:
    """The name of what the paper proposes: a method first, then the most confident proposal."""
    found = [(G.nodes[v].get("label") != "Method", -float(d.get("confidence") or 0), str(G.nodes[v].get("name")))
             for _, v, d in G.out_edges(paper, data=True) if d.get("type") == "PROPOSES" and G.nodes[v].get("name")]
    return min(found)[2] if found else None


def display_name(G: nx.MultiDiGraph, node: str) -> str:
    """The caption of one node (see the module's description)."""
    attrs = G.nodes[node]
    name = attrs.get("name")
    if attrs.get("label") == "Paper":
        name = _proposal(G, node) or attrs.get("title") or name
    return wrappable(shorten(node if name is None else name))


def display_names(G: nx.MultiDiGraph) -> dict[str, str]:
    """Every node's caption, in the graph's node order."""
    return {n: display_name(G, n) for n in G.nodes}


def venues(G: nx.MultiDiGraph) -> dict[str, str]:
    """Each paper's venue name, as ``kg show`` prints it (the Venue its PUBLISHED_IN edge
    reaches; the first in id order if there are several).

    >>> import networkx as nx
    >>> G = nx.MultiDiGraph()
    >>> G.add_node("paper:p", label="Paper"); G.add_node("venue:icml-2024", label="Venue", name="ICML 2024")
    >>> _ = G.add_edge("paper:p", "venue:icml-2024", type="PUBLISHED_IN")
    >>> venues(G)
    {'paper:p': 'ICML 2024'}
    """
    out: dict[str, str] = {}
    for u, v, d in sorted(G.edges(data=True), key=lambda e: (e[0], e[1])):
        if d.get("type") == "PUBLISHED_IN" and u not in out:
            out[u] = str(G.nodes[v].get("name") or v)
    return out
