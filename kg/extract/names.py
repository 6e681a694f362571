"""How names are written: canonical long forms, concept names in lower case, and the
stoplist of generic phrases; shared by the pipeline's components and the adapter."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

from kg.extract import cues
from kg.schema import data_file
from kg.text import fold, singular

DETERMINERS = cues.word_set("determiners")


def canonical_long_form(long: str, label: str) -> str:
    """Strip leading determiners; common-noun labels take the singular of the last word."""
    words = long.split()
    while words and words[0].lower() in DETERMINERS:
        words = words[1:]
    if not words:
        return long
    if label in ("Technique", "Task", "Metric") or label == "Method" and words[-1].islower():
        parts = re.split(r"(-)", words[-1])
        parts[-1] = singular(parts[-1])
        words[-1] = "".join(parts)
    return " ".join(words)


def lower_common_words(name: str) -> str:
    """``Prompt Boundary Problem`` -> ``prompt boundary problem``: the name of a concept, not
    a coined method, is written in lower case; eponyms (Markov, Gaussian) keep their capital.

    >>> lower_common_words("Ordering-Constrained Markov Blanket Discovery")
    'ordering-constrained Markov blanket discovery'
    """
    return " ".join("-".join(p.lower() if p[:1].isupper() and p[1:].islower() and p not in EPONYMS else p
                             for p in w.split("-")) for w in name.split())


EPONYMS = cues.word_set("eponyms")


@cache
def stoplist(lexicon_dir: str) -> frozenset[str]:
    """Generic phrases that are never entities (``schema/stoplist.txt``)."""
    lines = data_file(Path(lexicon_dir).parent / "stoplist.txt").read_text(encoding="utf-8").splitlines()
    return frozenset(fold(x) for x in lines if x.strip() and not x.startswith("#"))
