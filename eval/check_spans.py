#!/usr/bin/env python3
"""Validate mention-level gold batches (``eval/gold/spans/*.jsonl``) and report agreement.

One JSON object per line, keys in this order: ``id, source, split, entities, proposes,
repositories, relations``; each entity has ``label, name, aliases, mentions``, where
``mentions`` are the surface forms the title and abstract write for it, copied verbatim.

Errors (exit code 1), each as ``file:line [id]: ...``:

* not JSON, wrong keys, unknown label or relation type, empty names;
* the id is not a paper of the file's batch (``b003.jsonl`` holds the papers of batch b003, see
  ``spans.py``), the source or split is not the draw's, or the id is listed twice;
* a mention form that is not found in the title or abstract (whole words; see
  ``spans.form_pattern``), or one form given to two entities;
* ``proposes`` or a relation endpoint that is not an entity name; a repository not normalised.

Every occurrence of every form is a mention (so no occurrence of a marked form is left
unmarked). Hints (``-v``): capitalised or acronym tokens no mention covers, worth a second look.

Usage::

    python eval/check_spans.py [FILES...] [-v]        # default: every batch file
    python eval/check_spans.py --agree b000 d000       # agreement between two annotations
    python eval/check_spans.py --agree u000 v000       # (papers annotated in both only)
"""
from __future__ import annotations

import argparse
import collections
import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import check_gold  # noqa: E402
import sample  # noqa: E402
import spans  # noqa: E402
from check_gold import KEYS, LABELS, MAX_NAME  # noqa: E402

ENTITY_KEYS = ["label", "name", "aliases", "mentions"]
_SHOUTY = re.compile(r"\b(?:[A-Z][\w\-]*[A-Z0-9][\w\-]*|[A-Za-z]+-?\d[\w\-]*)\b")


def check_row(rec: dict, where: str, paper: dict, errors: list[str], hints: list[str]) -> None:
    title, abstract = spans.texts(paper)
    names: dict[str, str] = {}
    forms_seen: dict[str, str] = {}
    canon: set[str] = set()
    for e in rec["entities"]:
        if list(e) != ENTITY_KEYS:
            errors.append(f"{where}: entity keys {list(e)} != {ENTITY_KEYS}")
            continue
        name = e["name"]
        if e["label"] not in LABELS:
            errors.append(f"{where}: bad label {e['label']!r} for {name!r}")
        if not isinstance(name, str) or not name.strip():
            errors.append(f"{where}: empty entity name")
            continue
        for key in ("aliases", "mentions"):
            if not isinstance(e[key], list) or not all(isinstance(a, str) and a.strip() for a in e[key]):
                errors.append(f"{where}: {key} of {name!r} must be a list of non-empty strings")
                break
        else:
            if name in canon:
                errors.append(f"{where}: entity {name!r} listed twice")
            canon.add(name)
            for n in [name, *e["aliases"]]:
                if len(n) > MAX_NAME:
                    errors.append(f"{where}: name longer than {MAX_NAME} chars: {n[:40]!r}")
                if names.setdefault(n.lower(), name) != name:
                    errors.append(f"{where}: {n!r} is a name of {names[n.lower()]!r} and {name!r}")
            if not e["mentions"]:
                errors.append(f"{where}: {name!r} has no mentions")
            for m in e["mentions"]:
                if not spans.locate(m, title) and not spans.locate(m, abstract):
                    errors.append(f"{where}: mention {m!r} of {name!r} not found in the title or abstract")
                if forms_seen.setdefault(m.lower(), name) != name:
                    errors.append(f"{where}: mention {m!r} given to {forms_seen[m.lower()]!r} and {name!r}")
    check_gold.check_links(rec, canon, where, errors)
    found = spans.spans(rec, title, abstract) if all(list(e) == ENTITY_KEYS for e in rec["entities"]) else {}
    for field, text in (("title", title), ("abstract", abstract)):
        covered = found.get(field, [])
        for m in _SHOUTY.finditer(text):
            if not any(s <= m.start() and m.end() <= e for s, e, _ in covered) and "http" not in m.group():
                hints.append(f"{where}: {field} token {m.group()!r} is in no mention")


def check(files: list[Path], data: Path, verbose: bool = False) -> int:
    errors: list[str] = []
    hints: list[str] = []
    rows = []
    for path in files:
        m = re.fullmatch(r"([%s]\d{3})\.jsonl" % "".join(spans.PREFIXES), path.name)
        if not m:
            errors.append(f"{path}: a batch file is named " + ", ".join(f"{p}###.jsonl" for p in spans.PREFIXES))
            continue
        expected = {sample.paper_id(r): (f, r) for f, r in spans.batch(m.group(1), data)}
        split = spans.split_of_batch(path.name)
        seen: set[str] = set()
        for ln, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            where = f"{path.name}:{ln}"
            try:
                rec = json.loads(line)
            except json.JSONDecodeError as exc:
                errors.append(f"{where}: not JSON ({exc})")
                continue
            if not isinstance(rec, dict) or list(rec) != KEYS:
                errors.append(f"{where}: keys {list(rec) if isinstance(rec, dict) else rec!r} != {KEYS}")
                continue
            pid = rec["id"]
            where = f"{where} [{pid}]"
            if pid not in expected:
                errors.append(f"{where}: not a paper of batch {m.group(1)}")
                continue
            if pid in seen:
                errors.append(f"{where}: listed twice")
            seen.add(pid)
            if rec["source"] != expected[pid][0]:
                errors.append(f"{where}: source {rec['source']!r}, the draw took it from {expected[pid][0]}")
            if rec["split"] != split:
                errors.append(f"{where}: split {rec['split']!r}, expected {split!r}")
            check_row(rec, where, expected[pid][1], errors, hints)
            rows.append(rec)
        if missing := set(expected) - seen:
            hints.append(f"{path.name}: {len(missing)} of {len(expected)} papers not annotated yet")
    for h in hints if verbose else []:
        print("hint:", h)
    for e in errors:
        print("error:", e)
    labels = collections.Counter(e["label"] for r in rows for e in r["entities"])
    n_mentions = sum(len(e["mentions"]) for r in rows for e in r["entities"] if isinstance(e.get("mentions"), list))
    print(f"papers: {len(rows)}  entities: {sum(labels.values())}  mention forms: {n_mentions}  "
          f"proposes: {sum(len(r['proposes']) for r in rows)}  relations: {sum(len(r['relations']) for r in rows)}")
    print("per label: " + ", ".join(f"{k} {labels[k]}" for k in sorted(LABELS)))
    print(f"{len(errors)} error(s), {len(hints)} hint(s)" + ("" if verbose else " (-v to list)"))
    return 1 if errors else 0


def agree(a: Path, b: Path, data: Path) -> dict:
    """Mention-level agreement (exact span and label, flat readings) of two annotations of the
    same papers, the first taken as reference; papers annotated in both only."""
    ra = {r["id"]: r for r in spans.read_rows([a])}
    rb = {r["id"]: r for r in spans.read_rows([b])}
    papers = {sample.paper_id(r): r for f, r in spans.batch(a.stem, data)}
    per: dict[str, list[int]] = collections.defaultdict(lambda: [0, 0, 0])
    for pid in sorted(set(ra) & set(rb)):
        title, abstract = spans.texts(papers[pid])
        sa, sb = spans.spans(ra[pid], title, abstract), spans.spans(rb[pid], title, abstract)
        for field in ("title", "abstract"):
            ga, gb = set(spans.flat(sa[field])), set(spans.flat(sb[field]))
            for lab in {x[2] for x in ga | gb}:
                x, y = {t for t in ga if t[2] == lab}, {t for t in gb if t[2] == lab}
                per[lab][0] += len(x & y)
                per[lab][1] += len(y - x)
                per[lab][2] += len(x - y)
    def f1(tp: int, fp: int, fn: int) -> float:
        return round(2 * tp / (2 * tp + fp + fn), 4) if tp else 0.0
    tot = [sum(v[i] for v in per.values()) for i in range(3)]
    return {"papers": len(set(ra) & set(rb)), "micro_f1": f1(*tot),
            "labels": {k: f1(*v) for k, v in sorted(per.items())}}


def main() -> None:
    ap = argparse.ArgumentParser(description="Validate mention-level gold batches.")
    ap.add_argument("files", nargs="*", type=Path)
    ap.add_argument("--data", type=Path, default=sample.DEFAULT_DATA)
    ap.add_argument("--agree", nargs=2, metavar=("REF", "OTHER"), help="two batch names, e.g. b000 d000")
    ap.add_argument("-v", "--verbose", action="store_true", help="list hints")
    args = ap.parse_args()
    if args.agree:
        a, b = (spans.GOLD_DIR / f"{x}.jsonl" for x in args.agree)
        print(json.dumps(agree(a, b, args.data), indent=1))
        return
    files = args.files or [p for pre in spans.PREFIXES for p in spans.gold_files(pre)]
    sys.exit(check(files, args.data, args.verbose))


if __name__ == "__main__":
    main()
