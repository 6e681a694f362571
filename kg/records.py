"""Typed, frozen records exchanged between stages.

Stages never pass spaCy objects around: extraction turns a ``Doc`` into these records, and
everything downstream (resolution, graph, sinks) reads only these.

>>> p = Paper(id="p1", abstract="We propose X.")
>>> Extraction(paper=p).to_json()["paper"]["id"]
'p1'
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kg import schema as _schema

LABELS = (
    "Paper",
    "Venue",
    "Author",
    "Method",
    "Technique",
    "Model",
    "Task",
    "Dataset",
    "Metric",
    "Software",
    "Repository",
)
ENTITY_LABELS = _schema.ENTITY_LABELS  # the Literal above spells them out for type checkers


@dataclass(frozen=True, slots=True)
class Paper:
    """One paper. ``abstract`` is the normalised text every offset indexes into."""

    id: str
    abstract: str
    title: str = ""
    venue: str | None = None
    year: int | None = None
    authors: tuple[str, ...] = ()
    url: str | None = None
    github: str | None = None
    keywords: tuple[str, ...] = ()
    source: str | None = None  # "file:line" the record came from
    pdf: str | None = None
    area: str | None = None  # the venue's subject area, e.g. OpenReview's primary_area

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {"id": self.id, "title": self.title, "abstract": self.abstract}
        for key in ("venue", "year", "url", "pdf", "github", "area", "source"):
            value = getattr(self, key)
            if value is not None:
                d[key] = value
        if self.authors:
            d["authors"] = list(self.authors)
        if self.keywords:
            d["keywords"] = list(self.keywords)
        return d

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Paper:
        return cls(
            id=d["id"],
            abstract=d.get("abstract", ""),
            title=d.get("title", ""),
            venue=d.get("venue"),
            year=d.get("year"),
            authors=tuple(d.get("authors", ())),
            url=d.get("url"),
            github=d.get("github"),
            keywords=tuple(d.get("keywords", ())),
            source=d.get("source"),
            pdf=d.get("pdf"),
            area=d.get("area"),
        )


@dataclass(frozen=True, slots=True)
class TextSpan:
    """A stretch of the paper's text: ``abstract[start:end] == text``, or of the title when
    ``field == "title"``."""

    text: str
    start: int
    end: int
    field: str = "abstract"

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {"text": self.text, "start": self.start, "end": self.end}
        if self.field != "abstract":
            d["field"] = self.field
        return d


@dataclass(frozen=True, slots=True)
class Mention(TextSpan):
    """Where an entity is mentioned."""


@dataclass(frozen=True, slots=True)
class Evidence(TextSpan):
    """The sentence that supports a relation."""


@dataclass(frozen=True, slots=True)
class Entity:
    """An entity as found in one paper, already given its canonical id."""

    id: str
    type: str
    name: str
    aliases: tuple[str, ...] = ()
    mentions: tuple[Mention, ...] = ()
    props: tuple[tuple[str, Any], ...] = ()  # extra typed properties, e.g. model size

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "id": self.id,
            "type": self.type,
            "name": self.name,
            "aliases": list(self.aliases),
            "mentions": [m.to_json() for m in self.mentions],
        }
        if self.props:
            d["props"] = dict(self.props)
        return d

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Entity:
        return cls(
            id=d["id"],
            type=d["type"],
            name=d["name"],
            aliases=tuple(d.get("aliases", ())),
            mentions=tuple(Mention(**m) for m in d.get("mentions", ())),
            props=tuple(sorted(d.get("props", {}).items())),
        )


@dataclass(frozen=True, slots=True)
class Relation:
    """A typed edge with provenance. ``source``/``target`` are entity ids or the paper id."""

    type: str
    source: str
    target: str
    evidence: Evidence | None = None
    confidence: float = 1.0
    rule: str = ""

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {"type": self.type, "source": self.source, "target": self.target}
        if self.evidence is not None:
            d["evidence"] = self.evidence.to_json()
        d["confidence"] = self.confidence
        d["rule"] = self.rule
        return d

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Relation:
        ev = d.get("evidence")
        return cls(
            type=d["type"],
            source=d["source"],
            target=d["target"],
            evidence=Evidence(**ev) if ev else None,
            confidence=d.get("confidence", 1.0),
            rule=d.get("rule", ""),
        )


@dataclass(frozen=True, slots=True)
class Extraction:
    """Everything extracted from one paper: the contract of ``kg extract``."""

    paper: Paper
    entities: tuple[Entity, ...] = ()
    relations: tuple[Relation, ...] = ()
    results: tuple[dict[str, Any], ...] = field(default=())

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "paper": self.paper.to_json(),
            "entities": [e.to_json() for e in self.entities],
            "relations": [r.to_json() for r in self.relations],
        }
        if self.results:
            d["results"] = list(self.results)
        return d

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Extraction:
        return cls(
            paper=Paper.from_json(d["paper"]),
            entities=tuple(Entity.from_json(e) for e in d.get("entities", ())),
            relations=tuple(Relation.from_json(r) for r in d.get("relations", ())),
            results=tuple(d.get("results", ())),
        )


@dataclass(frozen=True, slots=True)
class Failure:
    """A paper extraction could not be made for: reported as a skipped record, never raised
    through a whole build."""

    paper_id: str
    source: str | None
    reason: str

    @classmethod
    def of(cls, paper: Paper, exc: BaseException) -> Failure:
        return cls(paper.id, paper.source, f"extraction failed: {type(exc).__name__}: {str(exc)[:200]}")

    def to_json(self) -> dict[str, Any]:
        return {"failed": self.paper_id, "source": self.source, "reason": self.reason}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Failure:
        return cls(d["failed"], d.get("source"), d["reason"])
