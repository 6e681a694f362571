"""Numeric claims: "up to 4.48x end-to-end inference speedup on SGLang", "reduces
forgetting by 31% after MetaMath post-training".

A pure function over the text, its sentences and the paper's entities; it returns plain
dicts for ``Extraction.results``.

>>> text = "SpecForge achieves up to 4.48x end-to-end inference speedup on SGLang."
>>> [(r["value"], r["unit"], r["direction"], r["metric"]) for r in find_results(text, [(0, len(text))], [])]
[(4.48, 'x', 'increase', 'end-to-end inference speedup')]
"""

from __future__ import annotations

import re
from bisect import bisect_left
from typing import Any

_NUM = re.compile(
    r"(?P<lead>(?:up to|by|of|over|nearly|about|approximately|around|roughly|average(?: gains?)? of|an average of)\s+)?"
    r"(?P<value>\d+(?:,\d{3})*(?:\.\d+)?)\s?"
    r"(?P<unit>%|x\b|×|times\b|-fold\b|fold\b|points?\b|pp\b|percentage points?\b|dB\b)"
)
_UP = re.compile(r"\b(improv\w*|gains?|boost\w*|faster|speed-?ups?|higher|increas\w*|outperform\w*|"
                 r"surpass\w*|better|more|accelerat\w*|exceed\w*|raises?|lifts?|advances?)\b", re.I)
_DOWN = re.compile(r"\b(reduc\w*|lower\w*|less|fewer|decreas\w*|drops?|cuts?|smaller|saves?|"
                   r"shrinks?|slower|mitigat\w*|alleviat\w*)\b", re.I)
_AFTER = re.compile(r"^\s*(?:(?:less|fewer|lower|higher|more|faster|smaller|larger|better|absolute|relative|"
                    r"average|end-to-end|overall)\s+)*((?:[a-zA-Z][\w-]*\s+){0,3}"
                    r"(?:speedups?|speed-?up|throughput|accuracy|latency|memory|forgetting|error|"
                    r"perplexity|reward|cost|time|improvement|gains?|reduction|compression|parameters|"
                    r"FLOPs|energy|regret|success rate|win rate|training|inference|score))\b", re.I)
_DIGIT = re.compile(r"\d")
_UNITS = {"%": "%", "x": "x", "×": "x", "times": "x", "-fold": "x", "fold": "x", "point": "points",
          "points": "points", "pp": "points", "percentage point": "points", "percentage points": "points",
          "dB": "dB"}


def find_results(text: str, sentences: list[tuple[int, int]], entities: list[Any],
                 proposed: set[str] | None = None) -> list[dict[str, Any]]:
    """Numeric claims with value, unit, direction, metric, method and setting.

    ``entities`` are :class:`~kg.records.Entity` records of the same paper (their abstract
    mentions are used to attach metric, method and setting by sentence).
    """
    proposed = proposed or set()
    out: list[dict[str, Any]] = []
    mentions = None
    for s0, s1 in sentences:
        sent = text[s0:s1]
        if not _DIGIT.search(sent):
            continue  # most sentences state no number
        if mentions is None:
            mentions = [(m.start, m.end, e) for e in entities for m in e.mentions if m.field == "abstract"]
            # by start, to find a sentence's mentions by bisection (a scan of every mention for
            # every sentence made a run-on abstract's cost grow with the square of its length)
            by_start = sorted(range(len(mentions)), key=lambda i: mentions[i][0])
            starts = [mentions[i][0] for i in by_start]
        # the sentence's mentions in the order of ``entities``, which breaks ties below
        in_sent = [mentions[i] for i in sorted(by_start[bisect_left(starts, s0):bisect_left(starts, s1)])]
        for m in _NUM.finditer(sent):
            unit = _UNITS.get(m.group("unit"), m.group("unit"))
            if unit == "%" and re.match(r"\s*(?:of|in)\s+(?:the\s+)?(?:data|cases|samples|parameters|tokens)", sent[m.end():]):
                continue  # "10% of the data" is a setting, not a result
            start, end = s0 + m.start("value"), s0 + m.end()
            before = sent[max(0, m.start("value") - 60) : m.start("value")]
            after = sent[m.end() : m.end() + 60]
            window = before[-40:] + " " + after[:40]
            up, down = _UP.search(window), _DOWN.search(window)
            direction = None
            if up and not down:
                direction = "increase"
            elif down and not up:
                direction = "decrease"
            elif up and down:
                direction = "decrease" if _DOWN.search(before[-25:] + after[:25]) else "increase"
            metric, metric_id = None, None
            near = sorted(((abs(ms - end), e) for ms, _me, e in in_sent if e.type == "Metric"), key=lambda x: x[0])
            a = _AFTER.match(after)
            v = re.search(r"\b(reduc\w*|improv\w*|increas\w*|decreas\w*|lower\w*|boost\w*)\s+((?:[\w-]+\s+){0,3}?)by\s*$", before)
            if a:
                metric = a.group(0).strip()
            elif v and v.group(2).strip():  # "reduces forgetting by 31%"
                metric = re.sub(r"^(?:of|in|on|the|its|their)\s+", "", v.group(2).strip()) or None
            elif near and near[0][0] < 80:
                metric, metric_id = near[0][1].name, near[0][1].id
            if metric and metric_id is None:
                for _d, e in near:
                    if e.name.lower() in metric.lower():
                        metric_id = e.id
                        break
            methods = [e.id for _s, _e, e in in_sent if e.id in proposed]
            if not methods and len(proposed) == 1:
                methods = sorted(proposed)
            setting = sorted({e.id for ms, _me, e in in_sent if e.type in ("Dataset", "Model", "Software", "Task")
                              and not (start <= ms < end)})
            prev = out[-1] if out and out[-1]["evidence"]["start"] == s0 else None
            if prev is not None:  # "gains of 6.4% in math, 4.5% in QA": a list shares its verb
                direction = direction or prev["direction"]
                metric = metric or prev["metric"]
                metric_id = metric_id or prev["metric_id"]
            out.append({
                "text": text[start:end], "start": start, "end": end,
                "value": float(m.group("value").replace(",", "")), "unit": unit, "direction": direction,
                "qualifier": (m.group("lead") or "").strip() or None,
                "metric": metric, "metric_id": metric_id, "method": methods[0] if methods else None,
                "setting": setting, "evidence": {"text": sent, "start": s0, "end": s1},
            })
    return out
