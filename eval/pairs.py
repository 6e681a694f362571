#!/usr/bin/env python3
"""Resolution pairs: their draw, the text annotators read, and the batch checker.

A pair is two mentions, each a name as one paper writes it (``paper`` id, ``source`` list,
``name``); annotators judge whether the two denote the same entity (GUIDELINES.md §11). The
draw is made once from a graph folder built from all shared lists and committed as
``gold/pairs/draw.jsonl`` (ids and names only); its strata say why a pair was drawn and are not
shown to annotators:

* ``merged``: a node with papers from at least two papers, uniformly over such nodes, then two
  of its papers at random (the wrong-merge rate of an ordinary merge);
* ``merged-variant``: a node whose papers write its name in two ways that fold differently
  (acronyms, synonyms, lexicon aliases: where wrong merges come from);
* ``merged-proposed``: a node that two papers both propose;
* ``split``: two nodes whose names are near-duplicates: equal once case, spaces, hyphens and a
  plural are ignored, or one is the other's declared acronym (where missed merges are).

Batches are 50 pairs in draw order (``p000`` = pairs 0-49); an annotation batch file holds
``{"pair", "same", "why"}`` rows. Scoring is ``kg eval eval/gold/pairs -g GRAPH``.

Usage::

    python eval/pairs.py draw GRAPH_DIR           # writes gold/pairs/draw.jsonl
    python eval/pairs.py show p003                # the text annotators read
    python eval/pairs.py check gold/pairs/p003.jsonl [--agree gold/pairs/q003.jsonl]
"""
from __future__ import annotations

import argparse
import json
import random
import re
import sys
from collections import defaultdict
from functools import cache
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from kg.extract.docutil import sentence_chars  # noqa: E402
from kg.io.readers import ReadReport, read_source  # noqa: E402
from kg.records import Extraction  # noqa: E402

PAIRS_DIR = HERE / "gold" / "pairs"
DATA = HERE.parent.parent / "shared" / "data" / "papers"
SEED = 2032
STRATA = {"merged": 150, "merged-variant": 100, "merged-proposed": 50, "split": 150}
BATCH = 50
ANSWERS = (True, False, "unsure")


def squash(name: str) -> str:
    """Near-duplicate key: lower case, letters and digits only, no final plural s."""
    s = re.sub(r"[\W_]+", "", name.lower())
    return s[:-1] if len(s) > 3 and s.endswith("s") and not s.endswith("ss") else s


def _mentions(graph: Path):
    """(extractions, canonical id of every extracted id) of a graph folder."""
    from kg.extract.lexicon import default_lexicon
    from kg.resolve import canonical_ids, collect

    exs = [Extraction.from_json(json.loads(x)) for x in (graph / "extractions.jsonl").read_text("utf-8").splitlines()
           if x.strip()]
    remap = canonical_ids(collect(exs), default_lexicon())
    return exs, remap


def draw(graph: Path) -> list[dict]:
    exs, remap = _mentions(graph)
    rng = random.Random(SEED)
    side: dict[tuple[str, str], dict] = {}  # (paper, canonical) -> the mention
    by_node: dict[str, list[str]] = defaultdict(list)  # canonical -> papers
    proposers: dict[str, list[str]] = defaultdict(list)
    names: dict[str, set[str]] = defaultdict(set)  # canonical -> folded names written
    for ex in exs:
        derived = {r.target for r in ex.relations if r.type == "VARIANT_OF"}
        proposed = {r.target for r in ex.relations if r.type == "PROPOSES"}
        for e in ex.entities:
            if e.type == "Repository" or not e.mentions or e.id in derived and e.id not in proposed:
                continue
            cid = remap.get(e.id, e.id)
            key = (ex.paper.id, cid)
            if key in side:
                continue
            side[key] = {"paper": ex.paper.id, "source": Path((ex.paper.source or "").rpartition(":")[0] or ex.paper.source or "").name,
                         "name": e.mentions[0].text}
            by_node[cid].append(ex.paper.id)
            names[cid].add(squash(e.mentions[0].text))
            if e.id in proposed:
                proposers[cid].append(ex.paper.id)
    out: list[dict] = []
    used: set[frozenset] = set()

    def add(stratum: str, a: dict, b: dict) -> bool:
        k = frozenset([(a["paper"], a["name"]), (b["paper"], b["name"])])
        if k in used or a["paper"] == b["paper"]:
            return False
        used.add(k)
        out.append({"stratum": stratum, "a": a, "b": b})
        return True

    multi = sorted(c for c, ps in by_node.items() if len(ps) >= 2)
    for c in rng.sample(multi, len(multi)):
        if sum(o["stratum"] == "merged" for o in out) >= STRATA["merged"]:
            break
        p, q = rng.sample(sorted(by_node[c]), 2)
        add("merged", side[(p, c)], side[(q, c)])
    variant = sorted(c for c in multi if len(names[c]) >= 2)
    for c in rng.sample(variant, len(variant)):
        if sum(o["stratum"] == "merged-variant" for o in out) >= STRATA["merged-variant"]:
            break
        ps = sorted(by_node[c])
        rng.shuffle(ps)
        p = ps[0]
        q = next((x for x in ps[1:] if squash(side[(x, c)]["name"]) != squash(side[(p, c)]["name"])), None)
        if q:
            add("merged-variant", side[(p, c)], side[(q, c)])
    twice = sorted(c for c, ps in proposers.items() if len(set(ps)) >= 2)
    for c in rng.sample(twice, len(twice)):
        if sum(o["stratum"] == "merged-proposed" for o in out) >= STRATA["merged-proposed"]:
            break
        p, q = rng.sample(sorted(set(proposers[c])), 2)
        add("merged-proposed", side[(p, c)], side[(q, c)])
    # near-duplicate nodes that stay apart
    by_squash: dict[str, set[str]] = defaultdict(set)
    for (_p, c), m in side.items():
        by_squash[squash(m["name"])].add(c)
    groups = sorted((k, sorted(cs)) for k, cs in by_squash.items() if len(cs) >= 2 and len(k) >= 2)
    rng.shuffle(groups)
    for _k, cs in groups:
        if sum(o["stratum"] == "split" for o in out) >= STRATA["split"]:
            break
        c, d = rng.sample(cs, 2)
        add("split", side[(rng.choice(sorted(by_node[c])), c)], side[(rng.choice(sorted(by_node[d])), d)])
    # in draw order, strata interleaved so that every batch mixes them
    rng.shuffle(out)
    for i, o in enumerate(out):
        o["pair"] = f"p{i // BATCH:03d}-{i % BATCH:02d}"
    return [{"pair": o["pair"], "stratum": o["stratum"], "a": o["a"], "b": o["b"]} for o in out]


def read_draw() -> list[dict]:
    return [json.loads(x) for x in (PAIRS_DIR / "draw.jsonl").read_text("utf-8").splitlines() if x.strip()]


@cache
def _papers(source: str, data: Path) -> dict:
    report = ReadReport()
    return {p.id: p for p in read_source(str(data / source), report)}


def _context(paper, name: str, limit: int = 3) -> list[str]:
    """The title and the sentences of the abstract that write ``name``."""
    text = paper.abstract or ""
    pat = re.compile(r"(?<!\w)" + re.escape(name) + r"(?!\w)", 0 if any(c.isupper() for c in name[1:]) else re.I)
    sents = [text[s:e] for s, e in sentence_chars(text) if pat.search(text, s, e)]
    if not sents:
        sents = [text[s:e] for s, e in sentence_chars(text)][:2]
    return sents[:limit]


def show(batch: str, data: Path) -> None:
    for row in read_draw():
        if not row["pair"].startswith(batch + "-"):
            continue
        print(f"=== pair {row['pair']}")
        for side in ("a", "b"):
            m = row[side]
            p = _papers(m["source"], data).get(m["paper"])
            print(f"  [{side}] name: {m['name']}   (paper {m['paper']}, {m['source']})")
            if p is None:
                print("      (paper not found)")
                continue
            print(f"      title: {p.title or ''}")
            for s in _context(p, m["name"]):
                print(f"      > {s}")
        print()


def check(path: Path, agree: Path | None = None) -> int:
    want = {r["pair"] for r in read_draw() if r["pair"].startswith(path.stem[:1].replace("q", "p") + path.stem[1:] + "-")}
    errors, got = [], {}
    for n, line in enumerate(path.read_text("utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as e:
            errors.append(f"{path}:{n}: not JSON ({e.msg})")
            continue
        pair = row.get("pair")
        if pair not in want:
            errors.append(f"{path}:{n}: pair {pair!r} is not in this batch")
        elif pair in got:
            errors.append(f"{path}:{n}: pair {pair} twice")
        if row.get("same") not in ANSWERS or isinstance(row.get("same"), int) and not isinstance(row.get("same"), bool):
            errors.append(f"{path}:{n} [{pair}]: same must be true, false or \"unsure\"")
        why = row.get("why")
        if not isinstance(why, str) or not why.strip() or len(why) > 160:
            errors.append(f"{path}:{n} [{pair}]: why must be a short reason (1-160 characters)")
        if set(row) - {"pair", "same", "why"}:
            errors.append(f"{path}:{n} [{pair}]: unknown keys {sorted(set(row) - {'pair', 'same', 'why'})}")
        got[pair] = row.get("same")
    missing = sorted(want - set(got))
    for e in errors:
        print(e)
    print(f"{path}: {len(got)} pairs, {len(missing)} missing, {len(errors)} errors")
    if agree is not None:
        other = {json.loads(x)["pair"]: json.loads(x)["same"] for x in agree.read_text("utf-8").splitlines() if x.strip()}
        both = sorted(set(got) & set(other))
        same = sum(got[p] == other[p] for p in both)
        firm = [p for p in both if got[p] != "unsure" and other[p] != "unsure"]
        kappa = _kappa([got[p] for p in firm], [other[p] for p in firm])
        print(f"agreement: {same}/{len(both)} identical answers ({same / max(1, len(both)):.3f}); "
              f"Cohen's kappa on {len(firm)} pairs both judged: {kappa:.3f}")
    return 1 if errors or missing else 0


def _kappa(x: list, y: list) -> float:
    n = len(x)
    if not n:
        return 0.0
    po = sum(a == b for a, b in zip(x, y, strict=True)) / n
    pe = sum((x.count(v) / n) * (y.count(v) / n) for v in (True, False))
    return (po - pe) / (1 - pe) if pe < 1 else 1.0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("draw", help="draw the pairs from a graph folder built from all shared lists")
    d.add_argument("graph", type=Path)
    s = sub.add_parser("show", help="print the two mentions of each pair of a batch with their sentences")
    s.add_argument("batch")
    s.add_argument("--data", type=Path, default=DATA)
    c = sub.add_parser("check", help="validate an annotation batch")
    c.add_argument("file", type=Path)
    c.add_argument("--agree", type=Path, default=None, help="a second annotation of the same batch")
    args = ap.parse_args()
    if args.cmd == "draw":
        rows = draw(args.graph)
        PAIRS_DIR.mkdir(parents=True, exist_ok=True)
        with (PAIRS_DIR / "draw.jsonl").open("w", encoding="utf-8") as f:
            for r in rows:
                f.write(json.dumps(r, ensure_ascii=False) + "\n")
        counts = defaultdict(int)
        for r in rows:
            counts[r["stratum"]] += 1
        print(f"{len(rows)} pairs: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    elif args.cmd == "show":
        show(args.batch, args.data)
    else:
        raise SystemExit(check(args.file, args.agree))


if __name__ == "__main__":
    main()
