#!/usr/bin/env python3
"""Propose lexicon entries from the development gold, kept only where annotators agree.

A name the annotators wrote (a Technique, Task, Metric, ...) is worth a lexicon entry when
two things hold:

* it is an established term, not one paper's coinage: it occurs (whole words, any case,
  plural allowed) in at least ``--min-df`` titles+abstracts of the shared paper lists;
* wherever it occurs in a gold paper's text, annotators marked it, with the same label, in at
  least ``--min-rate`` of those papers (and in at least ``--min-papers``). A name marked in one
  paper but left alone in three others ("variance", "attention") would add more spurious
  entities than it finds.

Measured: 343 entries proposed from the 320 ``bulk`` papers changed micro F1 by +0.007 on
``train``, -0.004 on ``heldout`` and -0.004 on ``tune`` (recall up a point, precision down a
point), so none were added: which mentions of a common term annotators mark depends on the
paper, which a lexicon cannot see.

Names already in the lexicons (as a name or alias of any label), names with capitals
(proper names belong to curated entries with their aliases), and names the stoplist excludes
are skipped. Only the splits given by ``--splits`` are read, never ``fresh``.

``--relabel`` lists lexicon entries whose label the annotators overrule: the entry's name or an
alias is annotated in at least ``--min-papers`` papers (default here 2), and at least two thirds of
those annotations carry one other label ("convex optimization": Technique in the lexicon, a Task
in 5 of 5 papers, as the guidelines' "X optimization as a problem" says); only moves to Technique,
Task, Metric, Method or Dataset are proposed. ``--write`` moves them to that label's file.

``--audit`` looks the other way: it runs the extractor on the same papers and lists the names it
predicts at least ``--min-predicted`` times that annotators marked, with that label, in at most
``--max-precision`` of those papers ("policy learning", "computer vision"). Removing a name whose
precision is below about half the system's F1 raises F1; ``--write`` adds those names to
``schema/stoplist.txt``.

Usage::

    python eval/grow_lexicon.py                       # print proposals with their counts
    python eval/grow_lexicon.py --write               # add them to schema/lexicons/*.jsonl
    python eval/grow_lexicon.py --splits tune,heldout # e.g. to measure on train
    python eval/grow_lexicon.py --audit [--write]     # names the extractor gets wrong, to stoplist
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))
import sample  # noqa: E402

from kg.lexicon import FILES, Lexicon  # noqa: E402
from kg.schema import LEXICON_DIR  # noqa: E402
from kg.text import fold, singular  # noqa: E402

LABELS = ("Technique", "Task", "Metric")
SOURCES = ("icml2024.jsonl", "iclr2024.jsonl", "neurips2023.jsonl", "paperlists-2010-2025.jsonl")


def key(text: str) -> str:
    """Words lower-cased, hyphens as spaces, each word singular: the form texts are compared in."""
    text = re.sub(r"[^\w\s]", " ", text.lower().replace("-", " "))
    return " ".join(singular(w) for w in text.split())


def corpus(data: Path) -> list[str]:
    """Keyed title + abstract of every distinct paper in the shared lists."""
    seen: dict[str, str] = {}
    for src in SOURCES:
        for r in sample.load(data / src):
            t = f"{r.get('title') or ''} . {r.get('abstract') or ''}"
            seen[(r.get("title") or "").strip().lower()] = f" {key(t)} "
    return list(seen.values())


def proposals(gold: list[dict], texts: dict[str, str], docs: list[str], lexicon: Lexicon,
              stop: set[str], min_df: int, min_rate: float, min_papers: int) -> list[dict]:
    marked: dict[tuple[str, str], set[str]] = defaultdict(set)  # (label, key) -> paper ids
    names: dict[tuple[str, str], str] = {}
    for row in gold:
        for e in row["entities"]:
            if e["label"] not in LABELS:
                continue
            for s in [e["name"], *e["aliases"]]:
                if s != s.lower() or len(s) < 4:
                    continue
                k = key(s)
                marked[(e["label"], k)].add(row["id"])
                names.setdefault((e["label"], k), singular_phrase(s))
    out = []
    for (label, k), ids in sorted(marked.items()):
        name = names[(label, k)]
        if lexicon.lookup(name) is not None or fold(name) in stop or len(ids) < min_papers:
            continue
        where = [pid for pid, t in texts.items() if f" {k} " in t]
        other = {lab for (lab, kk), _ in marked.items() if kk == k} - {label}
        rate = len(ids) / max(1, len(where))
        if rate < min_rate or other:
            continue
        df = sum(1 for d in docs if f" {k} " in d)
        if df < min_df:
            continue
        out.append({"label": label, "name": name, "papers": len(ids), "in_text": len(where),
                    "rate": round(rate, 2), "df": df})
    return out


def audit(gold: list[dict], papers_dir: Path, lexicons: Path, min_predicted: int,
          max_precision: float) -> list[dict]:
    """Predicted names that annotators rarely confirm, with their counts."""
    from kg.evaluate import _keys, gold_papers
    from kg.extract import Extractor

    counts: dict[tuple[str, str], dict[str, int]] = defaultdict(lambda: defaultdict(int))
    extractor = Extractor(lexicons)
    for row, ex in zip(gold, extractor.extract_all(gold_papers(gold, papers_dir)), strict=True):
        marked = [(e["label"], _keys(e["name"], e["aliases"])) for e in row["entities"]]
        anywhere = {k: lab for lab, ks in marked for k in ks}
        for ent in ex.entities:
            if ent.type == "Repository":
                continue
            keys = _keys(ent.name, ent.aliases)
            c = counts[(ent.type, ent.name)]
            c["predicted"] += 1
            c["confirmed"] += any(lab == ent.type and keys & ks for lab, ks in marked)
            c["other_label"] += any(k in anywhere and anywhere[k] != ent.type for k in keys)
    out = []
    for (label, name), c in sorted(counts.items()):
        precision = c["confirmed"] / c["predicted"]
        if c["predicted"] >= min_predicted and precision <= max_precision and not c["other_label"]:
            out.append({"label": label, "name": name, "predicted": c["predicted"],
                        "confirmed": c["confirmed"], "precision": round(precision, 2)})
    return out


def relabel(gold: list[dict], lexicon: Lexicon, min_papers: int) -> list[dict]:
    """Lexicon entries that annotators, by a two-thirds majority, give another label."""
    votes: dict[tuple[str, str], dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for row in gold:
        seen = set()
        for e in row["entities"]:
            for s in [e["name"], *e["aliases"]]:
                entry = lexicon.lookup(s)
                if entry is not None and (entry.label, entry.name, e["label"]) not in seen:
                    seen.add((entry.label, entry.name, e["label"]))
                    votes[(entry.label, entry.name)][e["label"]] += 1
    out = []
    for (label, name), v in sorted(votes.items()):
        total = sum(v.values())
        top, n = max(v.items(), key=lambda kv: (kv[1], kv[0]))
        if top != label and total >= min_papers and n >= 2 * total / 3 and top in LABELS + ("Method", "Dataset"):
            out.append({"name": name, "from": label, "to": top, "votes": dict(v)})
    return out


def singular_phrase(s: str) -> str:
    words = s.split()
    return " ".join([*words[:-1], singular(words[-1])]) if words else s


def move_entries(folder: Path, moves: list[dict]) -> None:
    """Move each entry, with its aliases and broader concepts, to the file of its new label (an
    ``org`` is dropped: only model families have one)."""
    stem_of = {label: stem for stem, label in FILES.items()}
    files = {label: folder / f"{stem_of[label]}.jsonl" for label in stem_of}
    rows = {label: [json.loads(x) for x in p.read_text(encoding="utf-8").splitlines() if x.strip()]
            for label, p in files.items()}
    for m in moves:
        row = next((r for r in rows[m["from"]] if r["name"] == m["name"]), None)
        if row is None:
            sys.exit(f"{m['name']!r} is not in {files[m['from']].name}: run --relabel again")
        rows[m["from"]].remove(row)
        rows[m["to"]].append({k: v for k, v in row.items() if k != "org"})
    for label, p in files.items():
        rows[label].sort(key=lambda r: r["name"].lower())
        p.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows[label]), encoding="utf-8")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--gold", type=Path, default=HERE / "gold" / "papers.jsonl")
    ap.add_argument("--data", type=Path, default=sample.DEFAULT_DATA)
    ap.add_argument("--splits", default="tune,heldout,train")
    ap.add_argument("--min-df", type=int, default=5)
    ap.add_argument("--min-rate", type=float, default=0.5)
    ap.add_argument("--min-papers", type=int, default=1)
    ap.add_argument("--lexicons", type=Path, default=LEXICON_DIR)
    ap.add_argument("--audit", action="store_true", help="list predicted names annotators rarely confirm")
    ap.add_argument("--relabel", action="store_true", help="list lexicon entries annotators give another label")
    ap.add_argument("--min-predicted", type=int, default=3)
    ap.add_argument("--max-precision", type=float, default=0.25)
    ap.add_argument("--write", action="store_true", help="add the proposals to the lexicon files "
                    "(with --audit: to the stoplist)")
    a = ap.parse_args()
    splits = [s for s in a.splits.split(",") if s]
    if "fresh" in splits:
        sys.exit("fresh is the blind evaluation split: never grow lexicons from it")
    gold = [json.loads(x) for x in a.gold.read_text(encoding="utf-8").splitlines() if x.strip()]
    gold = [r for r in gold if r["split"] in splits]
    by_id = {}
    for src in {r["source"] for r in gold}:
        for rec in sample.load(a.data / src):
            by_id[sample.paper_id(rec)] = rec
    texts = {r["id"]: f" {key((by_id[r['id']].get('title') or '') + ' . ' + (by_id[r['id']].get('abstract') or ''))} "
             for r in gold}
    stop_file = a.lexicons.parent / "stoplist.txt"
    stop = {fold(x) for x in stop_file.read_text(encoding="utf-8").splitlines()
            if x.strip() and not x.startswith("#")} if stop_file.exists() else set()
    if a.relabel:
        moves = relabel(gold, Lexicon.load(a.lexicons), max(2, a.min_papers))
        for m in moves:
            print(json.dumps(m, ensure_ascii=False))
        print(f"{len(moves)} entries to relabel, from {len(gold)} papers ({', '.join(splits)})", file=sys.stderr)
        if a.write:
            move_entries(a.lexicons, moves)
        return
    if a.audit:
        found = audit(gold, a.data, a.lexicons, a.min_predicted, a.max_precision)
        for p in found:
            print(json.dumps(p, ensure_ascii=False))
        print(f"{len(found)} names predicted >= {a.min_predicted} times with precision <= "
              f"{a.max_precision} in {len(gold)} papers ({', '.join(splits)})", file=sys.stderr)
        if a.write:
            new = [p["name"] for p in found if fold(p["name"]) not in stop]
            with stop_file.open("a", encoding="utf-8") as fh:
                fh.write("".join(f"{n}\n" for n in dict.fromkeys(new)))
        return
    lexicon = Lexicon.load(a.lexicons)
    props = proposals(gold, texts, corpus(a.data), lexicon, stop, a.min_df, a.min_rate, a.min_papers)
    for p in props:
        print(json.dumps(p, ensure_ascii=False))
    print(f"{len(props)} proposals from {len(gold)} papers ({', '.join(splits)})", file=sys.stderr)
    if a.write:
        stem_of = {label: stem for stem, label in FILES.items()}
        for label in LABELS:
            path = a.lexicons / f"{stem_of[label]}.jsonl"
            rows = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]
            rows += [{"name": p["name"]} for p in props if p["label"] == label]
            rows.sort(key=lambda r: r["name"].lower())
            path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")


if __name__ == "__main__":
    main()
