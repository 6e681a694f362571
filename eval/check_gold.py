#!/usr/bin/env python3
"""Validate ``eval/gold/papers.jsonl`` against the paper lists and the annotation schema.

Checks (errors, exit code 1):

* every line is a JSON object with keys, in order: id, source, split, entities, proposes,
  repositories, relations;
* no duplicate ids; every id exists in its ``source`` file (ICLR 2024 ids are the OpenReview PDF
  names, see ``sample.paper_id``);
* ``split`` is ``tune``/``heldout`` as ``sample.split_of`` gives for papers of the first draw,
  ``fresh`` exactly for papers of the fresh draw (``sample.sample_fresh``) and ``train`` / ``bulk``
  exactly for papers of the train / bulk draws (``sample.sample_train``, ``sample_bulk``), whose source must be the file it was
  drawn from;
* entity labels are valid; each entity has a non-empty name and a list of string aliases; no name
  or alias is used by two entities of the same paper;
* ``proposes`` ⊆ entity names; relation types are valid and both endpoints are entity names;
* repositories are normalised (no scheme, no ``www.``, no trailing slash or punctuation);
* no long string that could be copied text (names longer than 80 characters).

Warnings (reported, not fatal): the gold ids of either draw differ from what ``sample.py`` draws
(e.g. the fresh split is only partly annotated); an entity whose
name and aliases are not found in the title/abstract (after lowercasing and allowing a plural
"s"), which is expected for canonicalised names but worth a look; a repository not found in
the abstract.

Usage::

    python eval/check_gold.py [--gold eval/gold/papers.jsonl] [--data ../shared/data/papers] [-v]

Prints counts per label, per split (tune, heldout, fresh, train, bulk), per label and split, and per source
at the end.
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
import sample  # noqa: E402

KEYS = ["id", "source", "split", "entities", "proposes", "repositories", "relations"]
LABELS = {"Method", "Technique", "Model", "Task", "Dataset", "Metric", "Software"}
RELATIONS = {"USES", "EVALUATED_ON", "ADDRESSES", "MEASURES", "COMPARED_WITH"}
SPLITS = ("tune", "heldout", sample.FRESH_SPLIT, sample.TRAIN_SPLIT, sample.BULK_SPLIT)
MAX_NAME = 80


def _norm(s: str) -> str:
    return re.sub(r"[\s\-_]+", " ", s.lower()).strip()


def _in_text(name: str, text: str) -> bool:
    n = _norm(name)
    return n in text or (n.endswith("s") and n[:-1] in text)


def normalised(url: str) -> bool:
    """A repository written as the gold writes it: no scheme, no ``www.``, no trailing slash or
    punctuation."""
    return not (re.match(r"^[a-z]+://", url) or url.startswith("www.") or url != url.rstrip("/.,;:)]"))


def check_links(rec: dict, canon: set[str], where: str, errors: list[str]) -> None:
    """``proposes`` and relation endpoints are entity names, relation types valid, repositories
    normalised: the checks every gold row shares."""
    for p in rec["proposes"]:
        if p not in canon:
            errors.append(f"{where}: proposes {p!r} is not an entity name")
    for r in rec["relations"]:
        if set(r) != {"type", "source", "target"}:
            errors.append(f"{where}: relation keys {sorted(r)}")
            continue
        if r["type"] not in RELATIONS:
            errors.append(f"{where}: bad relation type {r['type']!r}")
        for end in ("source", "target"):
            if r[end] not in canon:
                errors.append(f"{where}: relation {end} {r[end]!r} is not an entity name")
    for u in rec["repositories"]:
        if not normalised(u):
            errors.append(f"{where}: repository not normalised: {u!r}")


def check(gold: Path, data: Path, verbose: bool = False) -> int:
    errors: list[str] = []
    warnings: list[str] = []
    papers: dict[str, dict[str, dict]] = {}
    for src in sorted({p.name for p in data.glob("*.jsonl")}):
        papers[src] = {sample.paper_id(r): r for r in sample.load(data / src)}

    fresh = {sample.paper_id(r): src for src, r in sample.sample_fresh(data)}
    train = {sample.paper_id(r): src for src, r in sample.sample_train(data)}
    bulk = {sample.paper_id(r): src for src, r in sample.sample_bulk(data)}
    drawn = {sample.FRESH_SPLIT: fresh, sample.TRAIN_SPLIT: train, sample.BULK_SPLIT: bulk}
    drawn_split = {pid: name for name, ids in drawn.items() for pid in ids}
    recs = []
    seen: set[str] = set()
    for ln, line in enumerate(gold.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        where = f"{gold.name}:{ln}"
        try:
            rec = json.loads(line)
        except json.JSONDecodeError as exc:
            errors.append(f"{where}: not JSON ({exc})")
            continue
        if list(rec) != KEYS:
            errors.append(f"{where}: keys {list(rec)} != {KEYS}")
            continue
        pid, src = rec["id"], rec["source"]
        where = f"{where} [{pid}]"
        if pid in seen:
            errors.append(f"{where}: duplicate id")
        seen.add(pid)
        if src not in papers:
            errors.append(f"{where}: unknown source {src!r}")
            continue
        paper = papers[src].get(pid)
        if paper is None:
            errors.append(f"{where}: id not in {src}")
            continue
        if rec["split"] not in SPLITS:
            errors.append(f"{where}: split {rec['split']!r}")
        elif pid in drawn_split:
            name = drawn_split[pid]
            if rec["split"] != name:
                errors.append(f"{where}: in the {name} draw but split {rec['split']!r}")
            if src != drawn[name][pid]:
                errors.append(f"{where}: {name} draw took it from {drawn[name][pid]}, not {src}")
        elif rec["split"] in drawn:
            errors.append(f"{where}: split {rec['split']} but not in the {rec['split']} draw")
        elif rec["split"] != sample.split_of(pid):
            errors.append(f"{where}: split {rec['split']} but hash gives {sample.split_of(pid)}")
        text = _norm(f"{paper.get('title') or ''} . {paper.get('abstract') or ''}")

        names: dict[str, str] = {}
        canon: set[str] = set()
        for e in rec["entities"]:
            if set(e) != {"label", "name", "aliases"}:
                errors.append(f"{where}: entity keys {sorted(e)}")
                continue
            if e["label"] not in LABELS:
                errors.append(f"{where}: bad label {e['label']!r} for {e['name']!r}")
            if not isinstance(e["name"], str) or not e["name"].strip():
                errors.append(f"{where}: empty entity name")
                continue
            if not isinstance(e["aliases"], list) or not all(isinstance(a, str) and a for a in e["aliases"]):
                errors.append(f"{where}: aliases of {e['name']!r} must be non-empty strings")
                continue
            for n in [e["name"], *e["aliases"]]:
                if len(n) > MAX_NAME:
                    errors.append(f"{where}: name longer than {MAX_NAME} chars: {n[:40]!r}…")
                key = n.lower()
                if key in names and names[key] != e["name"]:
                    errors.append(f"{where}: {n!r} used by {names[key]!r} and {e['name']!r}")
                elif key in names and n == e["name"]:
                    errors.append(f"{where}: entity {n!r} listed twice")
                names[key] = e["name"]
            canon.add(e["name"])
            if not any(_in_text(n, text) for n in [e["name"], *e["aliases"]]):
                warnings.append(f"{where}: {e['label']} {e['name']!r} not found verbatim in text")

        check_links(rec, canon, where, errors)
        abstract = paper.get("abstract") or ""
        for u in rec["repositories"]:
            if normalised(u) and u not in abstract:
                warnings.append(f"{where}: repository {u!r} not found in abstract")
        recs.append(rec)

    expected = {sample.paper_id(r) for _, r in sample.sample(data)}
    first = seen - set(drawn_split)
    if first != expected:
        warnings.append(f"gold ids differ from sample.py: {len(first - expected)} extra, "
                        f"{len(expected - first)} missing")
    for name, ids in drawn.items():
        if seen & set(ids) != set(ids):
            warnings.append(f"{name} split: {len(set(ids) - seen)} of {len(ids)} drawn papers "
                            "not annotated yet")

    for w in warnings if verbose else []:
        print("warning:", w)
    for e in errors:
        print("error:", e)

    by_label = collections.Counter(e["label"] for r in recs for e in r["entities"])
    by_split = collections.Counter(r["split"] for r in recs)
    by_source = collections.Counter(r["source"] for r in recs)
    by_rel = collections.Counter(x["type"] for r in recs for x in r["relations"])
    print(f"papers: {len(recs)}  entities: {sum(by_label.values())}  "
          f"proposes: {sum(len(r['proposes']) for r in recs)} "
          f"(papers with any: {sum(bool(r['proposes']) for r in recs)})  "
          f"repositories: {sum(len(r['repositories']) for r in recs)}  "
          f"relations: {sum(by_rel.values())}")
    print("per label:  " + ", ".join(f"{k} {by_label[k]}" for k in sorted(LABELS)))
    print("per split:  " + ", ".join(f"{k} {by_split[k]}" for k in SPLITS)
          + "".join(f", {k} {v}" for k, v in sorted(by_split.items()) if k not in SPLITS))
    for k in SPLITS:
        sub = [r for r in recs if r["split"] == k]
        lab = collections.Counter(e["label"] for r in sub for e in r["entities"])
        print(f"  {k:8} entities {sum(lab.values())}: " + ", ".join(f"{x} {lab[x]}" for x in sorted(LABELS))
              + f"; proposes {sum(len(r['proposes']) for r in sub)}"
              + f"; repositories {sum(len(r['repositories']) for r in sub)}"
              + f"; relations {sum(len(r['relations']) for r in sub)}")
    print("per source: " + ", ".join(f"{k} {v}" for k, v in sorted(by_source.items())))
    print("per source×split: " + ", ".join(
        f"{s}/{k} {v}" for (s, k), v in sorted(collections.Counter((r['source'], r['split']) for r in recs).items())))
    print("relations:  " + ", ".join(f"{k} {by_rel[k]}" for k in sorted(RELATIONS)))
    print(f"{len(errors)} error(s), {len(warnings)} warning(s)" + ("" if verbose else " (-v to list)"))
    return 1 if errors else 0


def main() -> None:
    ap = argparse.ArgumentParser(description="Validate the paper-level entity gold set.")
    ap.add_argument("--gold", type=Path, default=HERE / "gold" / "papers.jsonl")
    ap.add_argument("--data", type=Path, default=sample.DEFAULT_DATA)
    ap.add_argument("-v", "--verbose", action="store_true", help="list warnings")
    args = ap.parse_args()
    sys.exit(check(args.gold, args.data, args.verbose))


if __name__ == "__main__":
    main()
