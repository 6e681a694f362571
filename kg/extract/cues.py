"""The extractor's cue words, read from package data (``schema/cues/<name>.txt``).

Each file holds one list: an entry per line, ``#`` starts a comment line, blank lines are
skipped, and an entry may appear only once. A list that gives each entry a label has two
columns, ``entry<TAB>Label``; a list that gives each entry a group of words has
``entry<TAB>word word ...``. Files are read once per process.

>>> labels("appositive_heads")["benchmark"]
'Dataset'
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from types import MappingProxyType

from kg.errors import ConfigError
from kg.schema import SCHEMA_DIR, data_file

CUES_DIR = SCHEMA_DIR / "cues"


def read_entries(path: Path) -> list[tuple[int, str]]:
    """The entries of a cue file with their line numbers; a repeated entry is an error naming
    the file and both lines."""
    seen: dict[str, int] = {}
    out = []
    for no, raw in enumerate(data_file(path).read_text(encoding="utf-8").splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        key = line.split("\t", 1)[0].strip()
        if key in seen:
            raise ConfigError(f"{path}:{no}: '{key}' is listed twice (first on line {seen[key]}); remove one")
        seen[key] = no
        out.append((no, line))
    return out


def read_words(path: Path) -> tuple[str, ...]:
    """The entries of a one-column cue file, in file order."""
    out = []
    for no, line in read_entries(path):
        if "\t" in line:
            raise ConfigError(f"{path}:{no}: '{line}': expected one entry, found a tab")
        out.append(line)
    return tuple(out)


def read_labels(path: Path) -> MappingProxyType[str, str]:
    """Entry -> label, from a two-column cue file (``entry<TAB>Label``), in file order; read-only,
    as every caller of :func:`labels` shares it."""
    out = {}
    for no, line in read_entries(path):
        entry, tab, label = line.partition("\t")
        entry, label = entry.strip(), label.strip()
        if not tab or not entry or not label or "\t" in label:
            raise ConfigError(f"{path}:{no}: '{line}': expected an entry and a label separated by a tab")
        out[entry] = label
    return MappingProxyType(out)


def read_groups(path: Path) -> MappingProxyType[str, frozenset[str]]:
    """Entry -> its words, from a cue file of ``entry<TAB>word word ...`` lines; read-only."""
    out = {}
    for entry, words_ in read_labels(path).items():
        group = words_.split()
        if len(set(group)) < len(group):
            raise ConfigError(f"{path}: '{entry}': a word is listed twice in its group; remove one")
        out[entry] = frozenset(group)
    return MappingProxyType(out)


@cache
def words(name: str) -> tuple[str, ...]:
    """The one-column list ``name`` (``schema/cues/<name>.txt``), in file order."""
    return read_words(CUES_DIR / f"{name}.txt")


@cache
def word_set(name: str) -> frozenset[str]:
    """The one-column list ``name``, as a set."""
    return frozenset(words(name))


@cache
def labels(name: str) -> MappingProxyType[str, str]:
    """Entry -> label, from the two-column list ``name`` (``schema/cues/<name>.txt``)."""
    return read_labels(CUES_DIR / f"{name}.txt")


@cache
def groups(name: str) -> MappingProxyType[str, frozenset[str]]:
    """Entry -> its words, from the grouped list ``name`` (``schema/cues/<name>.txt``)."""
    return read_groups(CUES_DIR / f"{name}.txt")
