"""The registry of readings: every rule or model that offers a reading of a stretch of text, and
how the rest of the extractor treats what it found.

One record per reading (``Rule``) holds what used to be spread over the merger, the selector,
the adapter and the relation rules: the merger's fixed priority (without a selector), the
selector's preference among readings of one stretch and whether it may drop or relabel them,
the confidence of a mention it found, which reading names an entity when two meet, and whether
the proposal and relation rules read it as a coined name.

>>> RULES["url"].exact, RULES["model"].exact, RULES["encoder"].label_named
(True, False, True)
>>> confidence("acronym"), confidence("no-such-rule")
(0.85, 0.6)
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Rule:
    """How the extractor treats the readings of one rule (``Span.id_``, a candidate's last field)."""

    name: str
    #: the merger's priority without a selector (higher wins); None: not a candidate rule
    priority: float | None
    #: the confidence of a mention this rule found
    confidence: float
    #: which reading names an entity when two readings of one name meet in a paper (higher wins)
    rank: int
    #: the selector's preference among the readings of one stretch (lower first)
    order: int = 99
    #: exact where it fires: the selector labels its stretches but never drops them
    exact: bool = False
    #: its label is exact too (a URL is a repository, a parsed model name a model)
    fixed: bool = False
    #: its name depends on the label (a lexicon entry's, a common noun's singular)
    label_named: bool = False
    #: the proposal rules read it as a name a paper may introduce
    nameable: bool = False
    #: the relation rules may relabel a Method it found (a coined name that is a dataset or model)
    relabel: bool = False


DEFAULT_CONFIDENCE = 0.6

RULES: dict[str, Rule] = {r.name: r for r in (
    Rule("url", 6, 0.95, 5, order=0, exact=True, fixed=True),
    Rule("acronym", 5, 0.85, 5, order=1, exact=True, nameable=True, relabel=True),
    Rule("lexicon-acronym", 5, DEFAULT_CONFIDENCE, 5, order=2, exact=True),
    Rule("model-name", 4, 0.9, 4, order=3, exact=True, fixed=True),
    Rule("lexicon", 3, 0.8, 4, order=4, label_named=True, nameable=True),
    Rule("new-name", None, 0.7, 4, order=5, nameable=True, relabel=True),
    Rule("name-shape", 1, 0.5, 3, order=6, nameable=True, relabel=True),
    Rule("model-generic", 2, 0.6, 3, order=7, relabel=True),
    # a lexicon term with modifiers ("online reinforcement learning") beats the term
    Rule("noun-phrase", 3, 0.5, 2, order=8, label_named=True),
    Rule("task-phrase", 1, 0.5, 1, order=9, label_named=True),
    Rule("name-weak", 1, DEFAULT_CONFIDENCE, 1, order=10, nameable=True, relabel=True),
    # the optional SciER-trained span model: below every rule that knows the name
    Rule("ner", 2, 0.65, 2, order=11, label_named=True),
    # kg's span CNN and the contextual encoder without their selector: only where no rule found
    # anything
    Rule("model", 0.5, 0.75, 4, order=12, label_named=True),
    Rule("encoder", 0.5, 0.75, 4, order=13, label_named=True),
    # a coined name a learned reader found: the proposal cues read it as a name
    Rule("model-coined", None, 0.6, 3, nameable=True, relabel=True),
    # a record's own field (its code link)
    Rule("record", None, 1.0, 0),
)}


def confidence(rule: str | None) -> float:
    """The confidence of a mention found by ``rule`` (:data:`DEFAULT_CONFIDENCE` for others)."""
    r = RULES.get(rule or "")
    return r.confidence if r is not None else DEFAULT_CONFIDENCE


def rank(rule: str | None) -> int:
    r = RULES.get(rule or "")
    return r.rank if r is not None else 0


def order(rule: str) -> int:
    r = RULES.get(rule)
    return r.order if r is not None else 99


def priority(rule: str) -> float:
    """The merger's priority of a candidate rule; an unregistered one is an error."""
    p = RULES[rule].priority
    if p is None:
        raise KeyError(f"{rule}: not a candidate rule")
    return p


def having(flag: str) -> frozenset[str]:
    """The names of the rules with ``flag`` set (``exact``, ``fixed``, ``nameable``, ...)."""
    return frozenset(name for name, r in RULES.items() if getattr(r, flag))


EXACT = having("exact")
FIXED = having("fixed")
LABEL_NAMED = having("label_named")
NAMEABLE = having("nameable")
RELABEL = having("relabel")
