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

A second draw, ``gold/pairs/draw2.jsonl`` (seed 2034, 350 pairs, batches ``r000``-``r006``),
excludes every pair and every pair of papers of the first and aims at the merges a name alone
cannot decide, 70 pairs per stratum:

* ``short-form``: two papers on one node, one of which writes a short form of it (an acronym or
  short alias: at most 5 characters, mostly capitals); two thirds are forms that the lexicons or
  the graph give to two or more things (SAM, SD, DP, OOD, ...);
* ``generic``: two papers on a node whose name is one or two common lower-case words (each in
  at least 1% of the abstracts: diffusion, precision, visual search, edge of stability); half
  one-word names, half longer, each alternately uniform over such nodes and in proportion to
  their papers;
* ``cross-label``: two nodes of different labels that write names of one :func:`squash` key
  (ViT the Technique and ViT the Model), one paper each; half short forms, half longer names;
* ``proposed``: half two papers that both propose one node, half a paper proposing a name that
  a lexicon knows and a paper writing the name without proposing it (on the same node when one
  does);
* ``split-variant``: two nodes whose names are variants, one paper each: an acronym and the long
  form a paper declares for it (20), or names of one :func:`variant_key` that differ by a
  -based/-style head (14), an acronym's hyphens (14), a spelling (6), or case, hyphen, space or
  plural (the rest).

Each of its rows also has a ``split``, ``fit`` or ``test`` by a stable hash of the pair id
(:func:`fit_or_test`): a merge threshold is fitted on ``fit`` and scored once on ``test``.

Batches are 50 pairs in draw order (``p000`` = pairs 0-49 of the first draw, ``r000`` of the
second); an annotation batch file holds ``{"pair", "same", "why"}`` rows, a second annotation is
``q###`` (of ``p###``) or ``s###`` (of ``r###``). Scoring is ``kg eval eval/gold/pairs -g GRAPH``
(the first draw's ``p###`` batches, and the second draw's ``r###`` by fit and test half).

Usage::

    python eval/pairs.py draw GRAPH_DIR           # writes gold/pairs/draw.jsonl
    python eval/pairs.py draw2 GRAPH_DIR          # writes gold/pairs/draw2.jsonl
    python eval/pairs.py show p003                # the text annotators read (also r003)
    python eval/pairs.py check gold/pairs/p003.jsonl [--agree gold/pairs/q003.jsonl]
    python eval/pairs.py check gold/pairs/r003.jsonl [--agree gold/pairs/s003.jsonl]
"""
from __future__ import annotations

import argparse
import hashlib
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
from kg.text import fold  # noqa: E402

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
    from kg.lexicon import default_lexicon
    from kg.resolve import canonical_ids, collect
    from kg.senses import scope

    lexicon = default_lexicon()
    exs = [Extraction.from_json(json.loads(x)) for x in (graph / "extractions.jsonl").read_text("utf-8").splitlines()
           if x.strip()]
    exs = [scope(ex, lexicon) for ex in exs]  # the ids resolution reads, as kg eval places mentions
    remap = canonical_ids(collect(exs, None, lexicon), lexicon)
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


# ---------------------------------------------------------------- second draw

SEED2 = 2034
STRATA2 = {"short-form": 70, "generic": 70, "cross-label": 70, "proposed": 70, "split-variant": 70}
# split-variant pairs by what makes the two names variants; "form" (case, hyphen, space, plural)
# takes the rest, as the first draw's split stratum already has 150 of those
VARIANT_KINDS = {"acronym": 20, "head": 14, "acronym-hyphen": 14, "spelling": 6}
LEXICON_LABELS = {"technique": "Technique", "method": "Method", "model_family": "Model", "task": "Task",
                  "dataset": "Dataset", "metric": "Metric", "software": "Software"}
GLUE = frozenset({"of", "the", "a", "an", "and", "in", "for", "on", "to", "with", "by", "at", "from"})
COMMON_DF = 0.01  # a word is common when at least 1% of the abstracts write it
_HEAD = re.compile(r"[- ](?:based|style)(?=[\s-]|$)")


def _capitals(name: str) -> bool:
    """One word, mostly capitals: an acronym (VQ-VAE, MoE, LLMs)."""
    letters = [c for c in name if c.isalpha()]
    upper = sum(c.isupper() for c in letters)
    return " " not in name and upper >= 2 and 2 * upper > len(letters)


def is_short(name: str) -> bool:
    """An acronym or short alias: at most 5 characters, no space, mostly capitals (SAM, SD, MoE,
    LLMs, k-NN)."""
    return 2 <= len(name) <= 5 and _capitals(name)


def _plain(name: str, spelling: bool = True, head: bool = True) -> str:
    """Lower case, letters and digits only, without a final lower-case plural s (``NSES`` keeps
    its S); British spellings read the American way and a ``-based``/``-style`` head dropped."""
    from kg.resolve import spelling_variants

    if len(name) > 3 and name.endswith("s") and not name.endswith("ss"):
        name = name[:-1]
    s = name.lower()
    if spelling:
        for left, right in spelling_variants():
            s = re.sub(rf"(?<![a-z]){re.escape(left)}", right, s)
    if head:
        s = _HEAD.sub(" ", s)
    return re.sub(r"[\W_]+", "", s)


def variant_key(name: str) -> str:
    """The key of names that are variants of one another: ``diffusion-based models`` =
    ``diffusion model``, ``regularisation`` = ``regularization``, ``VQ-VAE`` = ``VQVAE``,
    ``Langevin dynamic`` = ``Langevin dynamics``."""
    return _plain(name)


def variant_kind(a: str, b: str) -> str:
    """What makes two names of one :func:`variant_key` differ."""
    if _plain(a, spelling=False) != _plain(b, spelling=False):
        return "spelling"
    if _plain(a, head=False) != _plain(b, head=False):
        return "head"
    if ("-" in a) != ("-" in b) and _capitals(a) and _capitals(b):
        return "acronym-hyphen"
    return "form"


def lexicon_forms() -> dict[str, set[tuple[str, str]]]:
    """Every name and alias of the shipped lexicons -> the entries (label, name) that give it."""
    from kg.schema import LEXICON_DIR

    out: dict[str, set[tuple[str, str]]] = defaultdict(set)
    for stem, label in LEXICON_LABELS.items():
        for line in (LEXICON_DIR / f"{stem}.jsonl").read_text("utf-8").splitlines():
            if line.strip():
                entry = json.loads(line)
                for form in (entry["name"], *entry.get("aliases", ())):
                    out[form].add((label, entry["name"]))
    return out


def _source_name(paper) -> str:
    return Path((paper.source or "").rpartition(":")[0] or paper.source or "").name


def _gather(graph: Path):
    """Per (paper, canonical id): the names the paper writes for the node (mention texts that
    ``kg eval`` places on that node, abstract first, in text order), the acronyms it declares,
    the long forms it declares them for, and whether it proposes the node; and the share of
    abstracts that write each lower-case word."""
    from kg.evaluate import node_of_mention

    exs, remap = _mentions(graph)
    node_of = node_of_mention(exs, remap)
    men: dict[tuple[str, str], dict] = {}
    df: dict[str, int] = defaultdict(int)
    for ex in exs:
        for w in set(re.findall(r"[a-z]+", (ex.paper.abstract or "").lower())):
            df[w] += 1
        derived = {r.target for r in ex.relations if r.type == "VARIANT_OF"}
        proposed = {r.target for r in ex.relations if r.type == "PROPOSES"}
        for e in ex.entities:
            if e.type == "Repository" or not e.mentions or e.id in derived and e.id not in proposed:
                continue
            cid = remap.get(e.id, e.id)
            texts = [mt.text for mt in sorted(e.mentions, key=lambda x: (x.field == "title", x.start))
                     if node_of.get((ex.paper.id, mt.text)) == cid]
            if not texts:
                continue
            m = men.setdefault((ex.paper.id, cid), {"source": _source_name(ex.paper), "texts": [], "aliases": [],
                                                   "declares": [], "proposed": False})
            m["texts"] += [t for t in dict.fromkeys(texts) if t not in m["texts"]]
            m["aliases"] += [a for a in e.aliases if is_short(a) and a not in m["aliases"]]
            if not is_short(e.name):
                m["declares"] += [(a, e.name) for a in e.aliases if is_short(a)]
            m["proposed"] |= e.id in proposed
    return men, {w: c / max(1, len(exs)) for w, c in df.items()}


def _label(cid: str) -> str:
    return cid.partition(":")[0]


def _mixed(items: list, weight, rng: random.Random) -> list:
    """``items`` in an order that alternates a uniform draw and a draw in proportion to
    ``weight`` (both without replacement), each item once."""
    uniform = rng.sample(items, len(items))
    weighted = sorted(items, key=lambda x: rng.random() ** (1 / weight(x)), reverse=True)
    return list(dict.fromkeys(x for pair in zip(uniform, weighted, strict=True) for x in pair))


def draw2(graph: Path, excluded: list[dict] | None = None) -> list[dict]:
    """The second draw (seed 2034): 350 pairs in five strata, none already in ``excluded`` (the
    first draw) and no two papers paired twice."""
    men, df = _gather(graph)
    rng = random.Random(SEED2)
    by_node: dict[str, list[str]] = defaultdict(list)
    by_key: dict[str, list[tuple[str, str, str]]] = defaultdict(list)  # squash -> (paper, cid, text)
    by_vkey: dict[str, list[tuple[str, str, str]]] = defaultdict(list)  # variant_key -> (paper, cid, text)
    by_text: dict[str, list[tuple[str, str]]] = defaultdict(list)  # text as written -> (paper, cid)
    for (p, c), m in sorted(men.items()):
        by_node[c].append(p)
        for t in m["texts"]:
            by_key[squash(t)].append((p, c, t))
            by_vkey[variant_key(t)].append((p, c, t))
            by_text[t].append((p, c))

    used: set[frozenset] = set()
    for r in excluded or ():
        used.add(frozenset([(r["a"]["paper"], r["a"]["name"]), (r["b"]["paper"], r["b"]["name"])]))
        used.add(frozenset([r["a"]["paper"], r["b"]["paper"]]))
    out: list[dict] = []
    count: dict[str, int] = defaultdict(int)

    def side(p: str, c: str, text: str | None = None) -> dict:
        m = men[(p, c)]
        return {"paper": p, "source": m["source"], "name": text or m["texts"][0]}

    def add(stratum: str, a: dict, b: dict) -> bool:
        k = frozenset([(a["paper"], a["name"]), (b["paper"], b["name"])])
        papers = frozenset([a["paper"], b["paper"]])
        if a["paper"] == b["paper"] or k in used or papers in used or count[stratum] >= STRATA2[stratum]:
            return False
        used.update((k, papers))
        out.append({"stratum": stratum, "a": a, "b": b})
        count[stratum] += 1
        return True

    def across(stratum: str, xs: list[tuple[str, str, str]], ys: list[tuple[str, str, str]], tries: int = 20) -> bool:
        """One pair of mentions (paper, node, text), one from each list, on two nodes."""
        for _ in range(tries):
            (p, c, t), (q, d, u) = rng.choice(xs), rng.choice(ys)
            if c != d and p != q:
                return add(stratum, side(p, c, t), side(q, d, u))
        return False

    # short-form: two papers on one node, one of them writing a short form of it. Two thirds
    # are forms that the lexicons or the graph give to two or more things (SAM, SD, DP, FL),
    # alternately uniform over such forms and in proportion to the papers writing them; the rest
    # uniform over (form, node)
    lex = lexicon_forms()
    owners: dict[str, set[str]] = defaultdict(set)  # short form -> the nodes that write or declare it
    for (_p, c), m in men.items():
        for s in (*m["texts"], *m["aliases"]):
            if is_short(s):
                owners[s].add(c)
    ambiguous = {s for s in owners if len(owners[s]) >= 2}
    ambiguous |= {s for s, es in lex.items() if is_short(s) and len({fold(n) for _l, n in es}) >= 2}
    writes: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))  # short -> node -> papers
    for (p, c), m in sorted(men.items()):
        for s in m["texts"]:
            if is_short(s) and len(by_node[c]) >= 2:
                writes[s][c].append(p)

    def short_pair(s: str, c: str) -> bool:
        p = rng.choice(writes[s][c])
        q = rng.choice([x for x in by_node[c] if x != p])
        return add("short-form", side(p, c, s), side(q, c, s if s in men[(q, c)]["texts"] else None))

    forms = sorted(s for s in writes if s in ambiguous)
    for s in _mixed(forms, lambda s: sum(map(len, writes[s].values())), rng):
        if count["short-form"] >= round(STRATA2["short-form"] * 2 / 3):
            break
        nodes = sorted(writes[s])
        short_pair(s, rng.choices(nodes, [len(writes[s][c]) for c in nodes])[0])
    plain = sorted((s, c) for s in writes if s not in ambiguous for c in writes[s])
    for s, c in rng.sample(plain, len(plain)):
        if count["short-form"] >= STRATA2["short-form"]:
            break
        short_pair(s, c)

    # generic: two papers on a node whose name (its most written spelling) is one or two common
    # lower-case words; half one-word names, half longer; in each, alternately uniform over such
    # nodes and in proportion to their papers
    def generic(name: str) -> bool:
        words = re.split(r"[ -]", name)
        content = [w for w in words if w not in GLUE]
        return (len(words) <= 3 and 1 <= len(content) <= 2 and all(re.fullmatch(r"[a-z]+", w) for w in words)
                and words[0] not in GLUE and words[-1] not in GLUE
                and all(max(df.get(w, 0), df.get(w.removesuffix("s"), 0)) >= COMMON_DF for w in content))

    def display(c: str) -> str:
        n: dict[str, int] = defaultdict(int)
        for p in by_node[c]:
            n[men[(p, c)]["texts"][0]] += 1
        return min(n, key=lambda t: (-n[t], t))

    gen = sorted(c for c, ps in by_node.items() if len(ps) >= 2 and generic(display(c)))
    one = [c for c in gen if not re.search(r"[ -]", display(c))]
    for nodes, quota in ((one, STRATA2["generic"] // 2), ([c for c in gen if c not in set(one)], STRATA2["generic"])):
        for c in _mixed(nodes, lambda c: len(by_node[c]), rng):
            if count["generic"] >= quota:
                break
            p, q = rng.sample(by_node[c], 2)
            add("generic", side(p, c), side(q, c))

    # cross-label: two nodes of different labels that write names of one squash key, one paper
    # each; half short forms, half longer names (ViT the Technique and the Model; Greedy)
    keys = sorted(k for k, ms in by_key.items() if len(k) >= 2 and len({_label(c) for _p, c, _t in ms}) >= 2)
    for want_short in (False, True):
        for k in rng.sample(keys, len(keys)):
            if count["cross-label"] >= STRATA2["cross-label"] // (1 if want_short else 2):
                break
            ms = [x for x in by_key[k] if is_short(x[2]) == want_short]
            labels = sorted({_label(c) for _p, c, _t in ms})
            if len(labels) >= 2:
                la, lb = rng.sample(labels, 2)
                across("cross-label", [x for x in ms if _label(x[1]) == la], [x for x in ms if _label(x[1]) == lb])

    # proposed: half two papers that propose one node, half a paper that proposes a name the
    # lexicons know and a paper that writes that name without proposing it (on the same node if
    # one does)
    proposers = {c: [p for p in ps if men[(p, c)]["proposed"]] for c, ps in by_node.items()}
    twice = sorted(c for c, ps in proposers.items() if len(ps) >= 2)
    for c in rng.sample(twice, len(twice)):
        if count["proposed"] >= STRATA2["proposed"] // 2:
            break
        p, q = rng.sample(proposers[c], 2)
        add("proposed", side(p, c), side(q, c))
    lex_keys = {squash(f) for f in lex}
    known = sorted((p, c, t) for (p, c), m in men.items() if m["proposed"]
                   for t in [next((x for x in m["texts"] if squash(x) in lex_keys), None)] if t)
    done: set[str] = set()
    for p, c, t in rng.sample(known, len(known)):
        if count["proposed"] >= STRATA2["proposed"]:
            break
        others = [(q, d, u) for q, d, u in by_key[squash(t)] if q != p and not men[(q, d)]["proposed"]]
        if c not in done and others:
            q, d, u = rng.choice([o for o in others if o[1] == c] or others)
            if add("proposed", side(p, c, t), side(q, d, u)):
                done.add(c)

    # split-variant: two nodes whose names are variants, one paper each: an acronym and the
    # long form a paper declares for it, a -based/-style head, an acronym with and without a
    # hyphen, a spelling (VARIANT_KINDS), and case, hyphen, space or plural for the rest
    pool: dict[str, list[tuple]] = defaultdict(list)  # kind -> (mentions, mentions) to pair across
    for k, ms in sorted(by_vkey.items()):
        if len(k) < 2 or len({c for _p, c, _t in ms}) < 2:
            continue
        nodes: dict[str, set[str]] = defaultdict(set)  # text -> the nodes it is on
        for _p, c, t in ms:
            nodes[t].add(c)
        texts = sorted(nodes)
        kinds: dict[str, set[tuple[str, str]]] = defaultdict(set)
        for i, t in enumerate(texts):
            for u in texts[i:]:
                if len(nodes[t] | nodes[u]) >= 2:  # on two nodes
                    kinds[variant_kind(t, u)].add((t, u))
        for kind in ("spelling", "head", "acronym-hyphen", "form"):
            if kind in kinds:
                t, u = sorted(kinds[kind])[0]
                pool[kind].append(([x for x in ms if x[2] == t], [x for x in ms if x[2] == u]))
                break
    declared = sorted({d for m in men.values() for d in m["declares"]})
    for s, long in declared:
        lf = by_key.get(squash(long), [])
        short = [(p, c, s) for p, c in by_text.get(s, ()) if c not in {x[1] for x in lf}]
        if lf and short:
            pool["acronym"].append((short, lf))
    for kind in (*VARIANT_KINDS, "form"):
        start = count["split-variant"]
        for xs, ys in rng.sample(pool[kind], len(pool[kind])):
            if count["split-variant"] - start >= VARIANT_KINDS.get(kind, STRATA2["split-variant"]):
                break
            across("split-variant", xs, ys)

    # in draw order, strata interleaved so that every batch mixes them
    rng.shuffle(out)
    rows = []
    for i, o in enumerate(out):
        pair = f"r{i // BATCH:03d}-{i % BATCH:02d}"
        rows.append({"pair": pair, "stratum": o["stratum"], "split": fit_or_test(pair), "a": o["a"], "b": o["b"]})
    return rows


def fit_or_test(pair: str) -> str:
    """``fit`` (a threshold is fitted on these) or ``test`` (scored once), by a stable hash of
    the pair id: about half each."""
    return "fit" if int(hashlib.sha256(pair.encode()).hexdigest()[:8], 16) % 2 == 0 else "test"


DRAWS = ("draw.jsonl", "draw2.jsonl")  # batches p### and r###
SECOND = {"q": "p", "s": "r"}  # second annotations: q### of p###, s### of r###


def read_draw(name: str | None = None) -> list[dict]:
    """The pairs of one draw file, or of every draw there is."""
    rows = []
    for f in [name] if name else DRAWS:
        path = PAIRS_DIR / f
        if name or path.is_file():
            rows += [json.loads(x) for x in path.read_text("utf-8").splitlines() if x.strip()]
    return rows


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
    rows = [r for r in read_draw() if r["pair"].startswith(batch + "-")]
    if not rows:
        have = sorted({r["pair"].partition("-")[0] for r in read_draw()})
        raise SystemExit(f"no pairs in batch {batch!r}; the batches are {', '.join(have)}")
    for row in rows:
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
    batch = SECOND.get(path.stem[:1], path.stem[:1]) + path.stem[1:]
    want = {r["pair"] for r in read_draw() if r["pair"].startswith(batch + "-")}
    if not want:
        print(f"{path}: {path.stem} is no batch (p###, r###, or a second annotation q### of p###, s### of r###)")
        return 1
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
    d2 = sub.add_parser("draw2", help="the second draw, excluding the first (writes gold/pairs/draw2.jsonl)")
    d2.add_argument("graph", type=Path)
    s = sub.add_parser("show", help="print the two mentions of each pair of a batch with their sentences")
    s.add_argument("batch")
    s.add_argument("--data", type=Path, default=DATA)
    c = sub.add_parser("check", help="validate an annotation batch")
    c.add_argument("file", type=Path)
    c.add_argument("--agree", type=Path, default=None, help="a second annotation of the same batch")
    args = ap.parse_args()
    if args.cmd in ("draw", "draw2"):
        rows = draw(args.graph) if args.cmd == "draw" else draw2(args.graph, read_draw("draw.jsonl"))
        PAIRS_DIR.mkdir(parents=True, exist_ok=True)
        with (PAIRS_DIR / f"{args.cmd}.jsonl").open("w", encoding="utf-8") as f:
            for r in rows:
                f.write(json.dumps(r, ensure_ascii=False) + "\n")
        counts = defaultdict(int)
        for r in rows:
            counts[r["stratum"]] += 1
            if "split" in r:
                counts[f"{r['stratum']}/{r['split']}"] += 1
        print(f"{len(rows)} pairs: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    elif args.cmd == "show":
        show(args.batch, args.data)
    else:
        raise SystemExit(check(args.file, args.agree))


if __name__ == "__main__":
    main()
