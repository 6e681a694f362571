"""Calibrated confidence: a score made into "the fraction right among held-out facts with this
score", one monotone mapping per kind of fact, fitted on gold and read from package data.

``scripts/calibrate.py`` collects (raw score, right or wrong) for each fact the pipeline finds
on held-out gold papers (:func:`kg.evaluate.labelled_facts`, matched as ``kg eval`` matches), fits an
isotonic mapping per kind (:func:`fit_isotonic`, pool-adjacent-violators) and writes them next
to the decisions they calibrate (:func:`pipeline_file`): ``calibration.json`` in the encoder's
folder for the default pipeline, in the span model's for the fast one, and
``kg/data/calibration/calibration.json`` for rules alone. Extraction applies the file of its
pipeline to every relation it outputs (:func:`calibrate_relations`); without one every score
stays as it is. The file is part of the pipeline's content hash, so an incremental build never
mixes scores calibrated two ways.

>>> m = fit_isotonic([0.1, 0.2, 0.3, 0.4, 0.6, 0.7, 0.8, 0.9], [0, 0, 1, 0, 1, 0, 1, 1])
>>> m(0.15), m(0.5), m(0.75), m(0.95)
(0.0, 0.5, 0.75, 1.0)
>>> fit_isotonic([0.6] * 4 + [0.5] * 4, [1, 0, 0, 0, 1, 1, 0, 0])  # ties are one point: 0.5 beats 0.25
Mapping(xs=(0.5, 0.6), ys=(0.375, 0.375))
>>> round(reliability([0.9, 0.9, 0.1, 0.1], [1, 0, 0, 0], bins=2).ece, 3)
0.25
"""

from __future__ import annotations

import json
from bisect import bisect_right
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from kg.errors import ConfigError
from kg.schema import DATA_DIR

CALIBRATION_DIR = DATA_DIR / "calibration"
CALIBRATION_FILE = CALIBRATION_DIR / "calibration.json"
#: the typed edges that state a role: one kind of fact, calibrated together
ROLE_TYPES = frozenset({"USES", "ADDRESSES", "EVALUATED_ON", "MEASURES", "COMPARED_WITH", "OUTPERFORMS"})


def kind_of(rtype: str) -> str:
    """The kind of fact a relation type is calibrated as: ``PROPOSES``, ``role`` for the typed
    edges, else the type itself."""
    return "role" if rtype in ROLE_TYPES else rtype


@dataclass(frozen=True, slots=True)
class Mapping:
    """A monotone map of scores: linear between the knots ``(xs[i], ys[i])``, flat outside."""

    xs: tuple[float, ...]
    ys: tuple[float, ...]

    def __call__(self, score: float) -> float:
        xs, ys = self.xs, self.ys
        if not xs:
            return score
        if score <= xs[0]:
            return round(ys[0], 4)
        if score >= xs[-1]:
            return round(ys[-1], 4)
        i = bisect_right(xs, score)
        x0, x1, y0, y1 = xs[i - 1], xs[i], ys[i - 1], ys[i]
        y = y0 if x1 == x0 else y0 + (y1 - y0) * (score - x0) / (x1 - x0)
        return round(y, 4)

    def to_json(self) -> dict:
        return {"x": list(self.xs), "y": list(self.ys)}


def fit_isotonic(scores: Sequence[float], right: Sequence[int | bool]) -> Mapping:
    """The non-decreasing fit of ``right`` (1 right, 0 wrong) on ``scores`` by
    pool-adjacent-violators over the distinct scores (facts with the same score are one
    point, weighted by their count); each pooled block is flat from its lowest score to its
    highest, and the mapping is linear between blocks (as scikit-learn's IsotonicRegression)."""
    if len(scores) != len(right):
        raise ValueError("one right-or-wrong per score")
    points: dict[float, list[float]] = {}
    for s, r in zip(scores, right, strict=True):
        pt = points.setdefault(float(s), [0.0, 0.0])
        pt[0] += float(r)
        pt[1] += 1.0
    blocks: list[list[float]] = []  # [lowest score, highest score, sum of right, count]
    for s in sorted(points):
        blocks.append([s, s, *points[s]])
        while len(blocks) > 1 and blocks[-2][2] / blocks[-2][3] >= blocks[-1][2] / blocks[-1][3]:
            _, hi, r2, n2 = blocks.pop()
            blocks[-1][1] = hi
            blocks[-1][2] += r2
            blocks[-1][3] += n2
    xs: list[float] = []
    ys: list[float] = []
    for lo, hi, r, n in blocks:
        for x in (lo, hi) if hi > lo else (lo,):
            xs.append(round(x, 6))
            ys.append(round(r / n, 6))
    return Mapping(tuple(xs), tuple(ys))


@dataclass(frozen=True, slots=True)
class Bin:
    low: float
    high: float
    count: int
    mean_score: float
    fraction_right: float


@dataclass(frozen=True, slots=True)
class Reliability:
    """A reliability table: facts binned by score, with the expected calibration error (the
    count-weighted mean gap between a bin's mean score and its fraction right)."""

    bins: tuple[Bin, ...]
    ece: float
    count: int

    def markdown(self, title: str = "") -> str:
        head = f"**{title}**: {self.count} facts, ECE {self.ece:.3f}\n\n" if title else ""
        rows = ["| bin | count | mean score | fraction right |", "|---|---:|---:|---:|"]
        rows += [f"| {b.low:.1f}–{b.high:.1f} | {b.count} | {b.mean_score:.3f} | {b.fraction_right:.3f} |"
                 for b in self.bins if b.count]
        return head + "\n".join(rows) + "\n"


def reliability(scores: Sequence[float], right: Sequence[int | bool], bins: int = 10) -> Reliability:
    """Equal-width bins over [0, 1] (a score of 1.0 falls in the last)."""
    acc = [[0, 0.0, 0.0] for _ in range(bins)]
    for s, r in zip(scores, right, strict=True):
        b = acc[min(int(s * bins), bins - 1)]
        b[0] += 1
        b[1] += s
        b[2] += float(r)
    n = len(scores)
    out, ece = [], 0.0
    for i, (c, ssum, rsum) in enumerate(acc):
        mean, frac = (ssum / c, rsum / c) if c else (0.0, 0.0)
        out.append(Bin(i / bins, (i + 1) / bins, int(c), round(mean, 4), round(frac, 4)))
        ece += c / n * abs(mean - frac) if n else 0.0
    return Reliability(tuple(out), round(ece, 4), n)


# ---------------------------------------------------------------- the package data


def write(mappings: dict[str, Mapping], path: Path = CALIBRATION_FILE, meta: dict | None = None) -> Path:
    """Write the mappings as the small JSON the pipeline reads."""
    from kg.io.atomic import write_files

    doc = {"kinds": {k: mappings[k].to_json() for k in sorted(mappings)}, **({"meta": meta} if meta else {})}
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    write_files({Path(path): [json.dumps(doc, indent=1, sort_keys=True)]})
    return Path(path)


def read(path: Path = CALIBRATION_FILE) -> dict[str, Mapping]:
    """The mappings of a calibration file ({} when there is none: every score as it is)."""
    try:
        doc = json.loads(Path(path).read_text(encoding="utf-8"))
        return {k: Mapping(tuple(map(float, v["x"])), tuple(map(float, v["y"]))) for k, v in doc["kinds"].items()}
    except FileNotFoundError:
        return {}
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise ConfigError(f"{path}: not a calibration file ({exc}); run scripts/calibrate.py again "
                          "or delete it") from None


def pipeline_file(decisions: Path | str | None) -> Path:
    """The calibration file of a pipeline whose proposal and role decisions are in the folder
    ``decisions`` (the encoder's or the span model's), or of the rules alone (None)."""
    return Path(decisions) / "calibration.json" if decisions else CALIBRATION_FILE


def shipped(path: Path | str = CALIBRATION_FILE) -> dict[str, Mapping]:
    """The mappings of the calibration file ``path`` (read once); none with
    ``KG_CALIBRATION=off``, as ``scripts/calibrate.py`` sets to see raw scores."""
    import os

    return {} if os.environ.get("KG_CALIBRATION") == "off" else _read_once(str(path))


@cache
def _read_once(path: str) -> dict[str, Mapping]:
    return read(Path(path))


def calibrate_relations(relations: Iterable, mappings: dict[str, Mapping] | None = None) -> Iterator:
    """The relations with their confidence mapped for their kind (unchanged where no mapping);
    ``mappings`` default to the rules' file."""
    from dataclasses import replace

    maps = shipped() if mappings is None else mappings
    for r in relations:
        m = maps.get(kind_of(r.type))
        yield r if m is None else replace(r, confidence=m(r.confidence))
