"""Curated lexicons (``schema/lexicons/*.jsonl``) as data: the extraction's matchers compile them,
resolution and the graph's taxonomy read them.

Each file holds one label; each line an entry ``{"name", "aliases", "broader", "org"}``.

>>> lex = Lexicon.from_entries([LexEntry("Technique", "mixture-of-experts", ("MoE",))])
>>> lex.lookup("Mixture of Experts").name, lex.lookup("MoE").label
('mixture-of-experts', 'Technique')
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from kg.errors import ConfigError, DataMissing
from kg.schema import LEXICON_DIR
from kg.text import fold, singular

FILES = {
    "technique": "Technique",
    "task": "Task",
    "dataset": "Dataset",
    "metric": "Metric",
    "software": "Software",
    "method": "Method",
    "model_family": "Model",
}


@dataclass(frozen=True, slots=True)
class LexEntry:
    label: str
    name: str
    aliases: tuple[str, ...] = ()
    broader: tuple[str, ...] = ()
    org: str | None = None


def case_sensitive(surface: str) -> bool:
    """A surface with any capital letter is a proper name or acronym and matches exactly as
    written (``ComplEx`` must not match "complex", ``Natural Questions`` not "natural
    questions"); an all-lower-case surface matches in any case.

    >>> case_sensitive("ComplEx"), case_sensitive("MoE"), case_sensitive("speculative decoding")
    (True, True, False)
    """
    return any(c.isupper() for c in surface) or not any(c.isalpha() for c in surface)


def variants(surface: str, pluralize: bool) -> Iterator[str]:
    """Spelling variants of a surface: hyphen/space swaps and, for common nouns, plural."""
    forms = {surface}
    if "-" in surface:
        forms.add(surface.replace("-", " "))
    if " " in surface and len(surface.split()) <= 4 and surface.islower():
        forms.add(surface.replace(" ", "-"))
    if pluralize:
        for f in list(forms):
            last = re.split(r"[\s-]", f)[-1]
            if last.isalpha() and (last.islower() or last.istitle()) and singular(last) == last \
                    and not last.endswith(("us", "is")):
                if last.endswith("y") and last[-2:-1] not in "aeiou":
                    plural = f[:-1] + "ies"
                elif last.endswith(("ch", "sh", "x", "z", "s")):
                    plural = f + "es"
                else:
                    plural = f + "s"
                forms.add(plural)
    yield from sorted(forms)


class Lexicon:
    """All curated entries, indexed for lookup by folded surface form."""

    def __init__(self, entries: Iterable[LexEntry]):
        self.entries: list[LexEntry] = sorted(entries, key=lambda e: (e.label, e.name.lower()))
        self._by_key: dict[str, LexEntry] = {}
        self._by_name: dict[tuple[str, str], LexEntry] = {}
        for e in self.entries:
            self._by_name[(e.label, e.name.lower())] = e
        for e in self.entries:  # names win over aliases; earlier labels never overwritten
            self._by_key.setdefault(fold(e.name), e)
        for e in self.entries:
            for a in e.aliases:
                self._by_key.setdefault(fold(a) if not case_sensitive(a) else a, e)

    @classmethod
    def from_entries(cls, entries: Iterable[LexEntry]) -> Lexicon:
        return cls(entries)

    @classmethod
    def load(cls, folder: Path = LEXICON_DIR) -> Lexicon:
        entries: list[LexEntry] = []
        folder = Path(folder)
        if not any((folder / f"{stem}.jsonl").is_file() for stem in FILES):
            raise DataMissing(f"{folder}: no lexicon here (expected {', '.join(f'{s}.jsonl' for s in FILES)})")
        for stem, label in FILES.items():
            path = folder / f"{stem}.jsonl"
            if not path.exists():
                continue
            for no, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if not line.strip():
                    continue
                try:
                    d = json.loads(line)
                    entries.append(LexEntry(label, d["name"], tuple(d.get("aliases", ())),
                                            tuple(d.get("broader", ())), d.get("org")))
                except (json.JSONDecodeError, KeyError, TypeError) as exc:
                    raise ConfigError(f"{path}:{no}: bad lexicon entry ({exc}); fix or remove the line") from None
        return cls(entries)

    def lookup(self, surface: str) -> LexEntry | None:
        """The entry a surface form denotes, or None."""
        hit = self._by_key.get(surface)
        if hit is None:
            hit = self._by_key.get(fold(surface))
            if hit is not None and case_sensitive(surface) and fold(hit.name) != fold(surface):
                hit = None  # a capitalised form matches an entry's own name in any case, not its aliases
        return hit

    def get(self, label: str, name: str) -> LexEntry | None:
        return self._by_name.get((label, name.lower()))

    def patterns(self, label: str | None = None) -> Iterator[tuple[LexEntry, str, bool]]:
        """(entry, surface, case_sensitive) for every surface form to match."""
        for e in self.entries:
            if label is not None and e.label != label:
                continue
            plural_ok = e.label in ("Technique", "Task", "Metric")
            for s in (e.name, *e.aliases):
                cs = case_sensitive(s)
                forms = [s]
                if cs and re.fullmatch(r"[A-Z][a-z]+(?: [a-z]+)+", s):  # "Gaussian process" ~ "Gaussian Process"
                    forms.append(s.title())
                for f in forms:
                    for v in variants(f, plural_ok and (not cs or " " in f)):
                        yield e, v, cs

    def __len__(self) -> int:
        return len(self.entries)


@cache
def default_lexicon() -> Lexicon:
    return Lexicon.load()


@cache
def lexicon_at(folder: str) -> Lexicon:
    """The lexicon of a folder, loaded once per process (the pipeline's components share it)."""
    return Lexicon.load(Path(folder))
