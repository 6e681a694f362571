"""Scoring extraction against gold: sentence-level mentions (SciER) and paper-level gold.

Both scorers take ``kg extract`` records (:class:`~kg.records.Extraction`) and return
per-label precision, recall and F1 plus micro averages.

>>> s = Score(tp=8, fp=2, fn=2)
>>> (s.precision, s.recall, s.f1)
(0.8, 0.8, 0.8)
"""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kg.errors import InputError
from kg.records import Entity, Extraction, Paper, Relation
from kg.text import clean, fold

# our labels -> SciER's three
SCIER_MAP = {"Method": "Method", "Technique": "Method", "Model": "Method", "Task": "Task", "Dataset": "Dataset"}


@dataclass
class Score:
    tp: int = 0
    fp: int = 0
    fn: int = 0

    @property
    def precision(self) -> float:
        return round(self.tp / (self.tp + self.fp), 4) if self.tp + self.fp else 0.0

    @property
    def recall(self) -> float:
        return round(self.tp / (self.tp + self.fn), 4) if self.tp + self.fn else 0.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return round(2 * p * r / (p + r), 4) if p + r else 0.0

    def add(self, other: Score) -> None:
        self.tp += other.tp
        self.fp += other.fp
        self.fn += other.fn

    def to_json(self) -> dict[str, Any]:
        return {"precision": self.precision, "recall": self.recall, "f1": self.f1,
                "tp": self.tp, "fp": self.fp, "fn": self.fn}


def norm(text: str) -> str:
    """Matching key for names: SciER's spaced tokens (``pre - training``) joined, then folded."""
    text = re.sub(r"\s*([-/])\s*", r"\1", clean(text))
    text = re.sub(r"\s+([,.;:)\]])|([(\[])\s+", r"\1\2", text)
    return fold(text)


def _match(pred: list[tuple[str, set[str]]], gold: list[tuple[str, set[str]]]) -> Score:
    """Greedy one-to-one matching of (label, keys) items; keys are alternative names."""
    used = [False] * len(gold)
    tp = 0
    for plabel, pkeys in pred:
        for i, (glabel, gkeys) in enumerate(gold):
            if not used[i] and plabel == glabel and pkeys & gkeys:
                used[i] = True
                tp += 1
                break
    return Score(tp, len(pred) - tp, len(gold) - tp)


# ---------------------------------------------------------------- SciER sentences


def read_scier(path: Path) -> list[dict]:
    rows = []
    with Path(path).open(encoding="utf-8") as fh:
        for no, line in enumerate(fh, 1):
            if line.strip():
                try:
                    rows.append(json.loads(line))
                except json.JSONDecodeError:
                    raise InputError(f"{path}:{no}: bad JSON in SciER gold") from None
    if rows and ("sentence" not in rows[0] or "ner" not in rows[0]):
        raise InputError(f"{path}: not SciER sentence gold (needs 'sentence' and 'ner')")
    return rows


def detokenize(sentence: str) -> str:
    """SciER sentences are space-tokenised; undo the spacing around punctuation."""
    s = re.sub(r"\s+([,.;:!?)\]}%])", r"\1", sentence)
    s = re.sub(r"([(\[{])\s+", r"\1", s)
    return re.sub(r"\s*-\s*(?=\w)", "-", s)


def score_scier(rows: list[dict], extractions: Iterable[Extraction]) -> dict[str, Any]:
    per: dict[str, Score] = defaultdict(Score)
    errors: Counter = Counter()
    for row, ex in zip(rows, extractions, strict=True):
        gold = [(lab, {norm(txt)}) for txt, lab in row["ner"]]
        pred = []
        for e in ex.entities:
            lab = SCIER_MAP.get(e.type)
            if lab is None:
                continue
            for m in {m.text for m in e.mentions}:
                pred.append((lab, {norm(m)}))
        pred = list({(lab, frozenset(k)): (lab, k) for lab, k in pred}.values())
        gold = list({(lab, frozenset(k)): (lab, k) for lab, k in gold}.values())
        for lab in ("Method", "Task", "Dataset"):
            s = _match([p for p in pred if p[0] == lab], [g for g in gold if g[0] == lab])
            per[lab].add(s)
        gk = {(lab, next(iter(k))) for lab, k in gold}
        for lab, k in pred:
            key = next(iter(k))
            if (lab, key) not in gk:
                other = [g for g in gk if g[1] == key]
                errors["wrong label" if other else "spurious (not in gold)"] += 1
        pk = {(lab, next(iter(k))) for lab, k in pred}
        for lab, key in gk:
            if (lab, key) not in pk and not any(p[1] == key for p in pk):
                partial = any(key in p[1] or p[1] in key for p in pk)
                errors["boundary mismatch" if partial else f"missed {lab}"] += 1
    return _report(per, errors)


def scier_papers(rows: list[dict]) -> list[Paper]:
    return [Paper(id=f"scier-{i}", abstract=clean(detokenize(r["sentence"]))) for i, r in enumerate(rows)]


# ---------------------------------------------------------------- paper-level gold


def read_paper_gold(path: Path, split: str | None = None) -> list[dict]:
    """Rows of a paper-level gold file, or of a folder of mention-level batches (``b###.jsonl``,
    ``t###.jsonl``, ``u###.jsonl``, ``w###.jsonl``; second annotations ``d###``, ``v###``,
    ``x###`` are left out), of one split or all."""
    path = Path(path)
    files = sorted(path.glob("[btuw][0-9][0-9][0-9].jsonl")) if path.is_dir() else [path]
    if not files:
        raise InputError(f"{path}: no gold batches (b###.jsonl, t###.jsonl, u###.jsonl, w###.jsonl) in this folder")
    rows = [json.loads(line) for f in files for line in f.read_text(encoding="utf-8").splitlines() if line.strip()]
    if rows and "entities" not in rows[0]:
        raise InputError(f"{path}: not paper-level gold (needs 'entities')")
    return [r for r in rows if split in (None, "all") or r.get("split") == split]


def gold_papers(rows: list[dict], papers_dir: Path) -> list[Paper]:
    """Read the gold papers' titles and abstracts from the shared paper lists."""
    from kg.io.readers import ReadReport, read_papers

    wanted = defaultdict(set)
    for r in rows:
        wanted[r["source"]].add(r["id"])
    found: dict[str, Paper] = {}
    for source, ids in wanted.items():
        path = Path(papers_dir) / source
        if not path.exists():
            raise InputError(f"{path}: paper list for the gold set not found; pass --papers DIR")
        for p in read_papers([str(path)], ReadReport()):
            if p.id in ids:
                found[p.id] = p
    missing = [r["id"] for r in rows if r["id"] not in found]
    if missing:
        raise InputError(f"gold papers not found in {papers_dir}: {', '.join(missing[:5])}")
    return [found[r["id"]] for r in rows]


def gold_extractions(rows: list[dict]) -> list[Extraction]:
    """Paper-level gold rows as extraction records, so a second annotation of the same papers can
    be scored against the first (inter-annotator agreement) by :func:`score_papers`.

    Entities keep their label, name and aliases; ``proposes`` become PROPOSES edges from the paper,
    repositories Repository entities (with HAS_CODE from a single proposed name, the reading the
    scorer applies to the gold), and relations keep their type."""
    out = []
    for row in rows:
        pid = row["id"]
        ids = {e["name"]: f"{e['label']}:{e['name']}" for e in row["entities"]}
        ents = [Entity(id=ids[e["name"]], type=e["label"], name=e["name"], aliases=tuple(e.get("aliases", ())))
                for e in row["entities"]]
        ents += [Entity(id=f"Repository:{u}", type="Repository", name=u) for u in row.get("repositories", ())]
        rels = [Relation("PROPOSES", pid, ids[n]) for n in row.get("proposes", ()) if n in ids]
        if len(row.get("proposes", ())) == 1 and row["proposes"][0] in ids:
            rels += [Relation("HAS_CODE", ids[row["proposes"][0]], f"Repository:{u}")
                     for u in row.get("repositories", ())]
        rels += [Relation(r["type"], ids[r["source"]], ids[r["target"]]) for r in row.get("relations", ())
                 if r["source"] in ids and r["target"] in ids]
        out.append(Extraction(paper=Paper(id=pid, abstract=""), entities=tuple(ents), relations=tuple(rels)))
    return out


def _keys(name: str, aliases: Iterable[str]) -> set[str]:
    return {norm(name)} | {norm(a) for a in aliases}


#: the typed edges that state a role; MENTIONS, PROPOSES and HAS_CODE are scored otherwise
ROLE_TYPES = ("USES", "ADDRESSES", "EVALUATED_ON", "MEASURES", "COMPARED_WITH", "OUTPERFORMS")


def score_papers(rows: list[dict], extractions: Iterable[Extraction], examples_per_kind: int = 5) -> dict[str, Any]:
    """Typed entities, PROPOSES, repositories, entity-to-entity relations and HAS_CODE per paper.

    HAS_CODE is scored only on papers whose gold proposes exactly one name and lists
    repositories (the gold has no HAS_CODE annotation of its own): the predicted HAS_CODE
    edges from an entity (not from the paper record) of those papers against the implied ones."""
    per: dict[str, Score] = defaultdict(Score)
    proposes, repos, rels, code = Score(), Score(), Score(), Score()
    by_type: dict[str, Score] = defaultdict(Score)
    errors: Counter = Counter()
    examples: dict[str, list[str]] = defaultdict(list)
    for row, ex in zip(rows, extractions, strict=True):
        gold = [(g["label"], _keys(g["name"], g.get("aliases", ()))) for g in row["entities"]]
        # a model family implied by a sized name (Qwen3 from Qwen3-8B) is graph structure, not a
        # name the text writes: it is linked by VARIANT_OF only, never from the paper
        from_paper = {r.target for r in ex.relations if r.source == ex.paper.id}
        implied = {r.target for r in ex.relations if r.type == "VARIANT_OF"} - from_paper
        ents = [e for e in ex.entities if e.type != "Repository" and e.id not in implied]
        pred = [(e.type, _keys(e.name, e.aliases)) for e in ents]
        for lab in {g[0] for g in gold} | {p[0] for p in pred}:
            per[lab].add(_match([p for p in pred if p[0] == lab], [g for g in gold if g[0] == lab]))
        _errors(row, gold, pred, ents, errors, examples)
        name_of = {e.id: e for e in ex.entities}
        gkeys = {g["name"]: _keys(g["name"], g.get("aliases", ())) for g in row["entities"]}
        pp = [("P", _keys(name_of[r.target].name, name_of[r.target].aliases))
              for r in ex.relations if r.type == "PROPOSES" and r.target in name_of]
        gp = [("P", gkeys.get(n, {norm(n)})) for n in row.get("proposes", [])]
        proposes.add(_match(pp, gp))
        pr = [("R", {norm(e.name)}) for e in ex.entities if e.type == "Repository"]
        repos.add(_match(pr, [("R", {norm(u)}) for u in row.get("repositories", [])]))
        prel = [(r.type, {f"{k}|{t}" for k in _keys(name_of[r.source].name, name_of[r.source].aliases)
                          for t in _keys(name_of[r.target].name, name_of[r.target].aliases)})
                for r in ex.relations if r.source in name_of and r.target in name_of
                and r.type in ROLE_TYPES]
        prel = [("COMPARED_WITH" if t == "OUTPERFORMS" else t, k) for t, k in prel]
        grel = [(g["type"], {f"{k}|{t}" for k in gkeys.get(g["source"], {norm(g["source"])})
                             for t in gkeys.get(g["target"], {norm(g["target"])})})
                for g in row.get("relations", [])]
        rels.add(_match(prel, grel))
        # the role stated for each target, whatever its source (the paper or what it proposes)
        ptgt = [(("COMPARED_WITH" if r.type == "OUTPERFORMS" else r.type), _keys(name_of[r.target].name,
                                                                                    name_of[r.target].aliases))
                for r in ex.relations if r.target in name_of and r.type in ROLE_TYPES]
        gtgt = [(g["type"], gkeys.get(g["target"], {norm(g["target"])})) for g in row.get("relations", [])]
        for t in {t for t, _ in ptgt} | {t for t, _ in gtgt}:
            by_type[t].add(_match(_distinct(t, ptgt), _distinct(t, gtgt)))
        # HAS_CODE is not annotated; the gold implies it when the paper proposes exactly one name
        # and writes repositories: that name has each of them as code
        if len(row.get("proposes", [])) == 1 and row.get("repositories"):
            src = gkeys.get(row["proposes"][0], {norm(row["proposes"][0])})
            gcode = [("C", {f"{k}|{norm(u)}" for k in src}) for u in row["repositories"]]
            pcode = [("C", {f"{k}|{norm(name_of[r.target].name)}"
                            for k in _keys(name_of[r.source].name, name_of[r.source].aliases)})
                     for r in ex.relations if r.type == "HAS_CODE" and r.source in name_of and r.target in name_of]
            code.add(_match(pcode, gcode))
    out = _report(per, errors)
    out["proposes"] = proposes.to_json()
    out["repositories"] = repos.to_json()
    out["relations"] = rels.to_json()
    roles = Score()
    for sc in by_type.values():
        roles.add(sc)
    out["roles"] = roles.to_json()
    out["roles_by_type"] = {t: by_type[t].to_json() for t in sorted(by_type)}
    out["has_code"] = code.to_json()
    out["error_examples"] = {k: v[:examples_per_kind] for k, v in examples.items()}
    return out


def _distinct(rtype: str, items: list[tuple[str, set[str]]]) -> list[tuple[str, set[str]]]:
    """The items of one type, each set of keys once, in a fixed order."""
    keys = sorted({frozenset(k) for t, k in items if t == rtype}, key=sorted)
    return [(rtype, set(k)) for k in keys]


def _errors(row, gold, pred, ents, errors: Counter, examples) -> None:
    gall = set().union(*[k for _, k in gold]) if gold else set()
    pall = set().union(*[k for _, k in pred]) if pred else set()
    for (lab, keys), e in zip(pred, ents, strict=True):
        if not any(lab == gl and keys & gk for gl, gk in gold):
            if keys & gall:
                kind = f"wrong label ({lab} for {next(gl for gl, gk in gold if keys & gk)})"
            elif any(k in g or g in k for k in keys for g in gall):
                kind = "boundary mismatch"
            else:
                kind = f"spurious {lab}"
            errors[kind] += 1
            examples[kind].append(f"{row['id']}: {e.name}")
    for lab, keys in gold:
        if not keys & pall and not any(k in p or p in k for k in keys for p in pall):
            kind = f"missed {lab}"
            errors[kind] += 1
            examples[kind].append(f"{row['id']}: {sorted(keys)[0]}")


def _report(per: dict[str, Score], errors: Counter) -> dict[str, Any]:
    micro = Score()
    for s in per.values():
        micro.add(s)
    return {"labels": {k: per[k].to_json() for k in sorted(per)}, "micro": micro.to_json(),
            "errors": dict(errors.most_common(10))}


# ---------------------------------------------------------------- resolution pairs


PAIR_DRAWS = (("draw.jsonl", "p"), ("draw2.jsonl", "r"))  # each draw and its batches' letter
PAIR_SPLITS = ("fit", "test")  # the second draw's halves: thresholds are fitted on fit only


def read_pairs(folder: Path) -> list[dict]:
    """The judged resolution pairs of a folder: ``draw.jsonl`` with the ``p###.jsonl`` answers
    and, when present, ``draw2.jsonl`` with the ``r###.jsonl`` answers (its rows keep their
    ``split``, fit or test); second annotations (``q###``, ``s###``) are left out. Each drawn
    pair with its ``same``, in draw order."""
    folder = Path(folder)
    if not (folder / "draw.jsonl").is_file():
        raise InputError(f"{folder}: no draw.jsonl (not a folder of resolution pairs)")
    out: list[dict] = []
    for name, letter in PAIR_DRAWS:
        draw = folder / name
        if not draw.is_file():
            continue
        answers: dict[str, Any] = {}
        for f in sorted(folder.glob(f"{letter}[0-9][0-9][0-9].jsonl")):
            for n, line in enumerate(f.read_text(encoding="utf-8").splitlines(), 1):
                if line.strip():
                    try:
                        row = json.loads(line)
                    except json.JSONDecodeError as e:
                        raise InputError(f"{f}:{n}: not JSON ({e.msg})") from None
                    answers[row["pair"]] = row["same"]
        rows = [json.loads(x) for x in draw.read_text(encoding="utf-8").splitlines() if x.strip()]
        out += [{**r, "same": answers[r["pair"]]} for r in rows if r["pair"] in answers]
    return out


def node_of_mention(extractions: Iterable[Extraction], remap: dict[str, str]) -> dict[tuple[str, str], str]:
    """``(paper id, surface) -> canonical id`` for every mention, name and alias of every entity."""
    out: dict[tuple[str, str], str] = {}
    for ex in extractions:
        for e in ex.entities:
            cid = remap.get(e.id, e.id)
            for s in (*(m.text for m in e.mentions), e.name, *e.aliases):
                out.setdefault((ex.paper.id, s), cid)
    return out


def score_pairs(rows: list[dict], node_of: dict[tuple[str, str], str], examples: int = 10) -> dict[str, Any]:
    """Merge precision and recall on judged pairs: a pair is merged when both mentions sit on
    one node. Wrong merges are merged pairs judged different, missed merges pairs judged the
    same that sit on two nodes; pairs judged ``unsure``, with a paper the graph does not hold
    (``unplaced``) or whose mention no longer exists (``absent``) are counted apart."""
    tp = fp = fn = tn = unsure = absent = unplaced = 0
    strata: dict[str, Counter] = defaultdict(Counter)
    wrong, missed = [], []
    papers = {p for p, _ in node_of}
    for r in rows:
        a = node_of.get((r["a"]["paper"], r["a"]["name"]))
        b = node_of.get((r["b"]["paper"], r["b"]["name"]))
        if r["same"] == "unsure":
            unsure += 1
            continue
        if r["a"]["paper"] not in papers or r["b"]["paper"] not in papers:
            unplaced += 1
            strata[r["stratum"]]["unplaced"] += 1
            continue
        if a is None or b is None:
            absent += 1
            strata[r["stratum"]]["absent"] += 1
            continue
        merged = a == b
        kind = ("tp" if r["same"] else "fp") if merged else ("fn" if r["same"] else "tn")
        strata[r["stratum"]][kind] += 1
        if kind == "tp":
            tp += 1
        elif kind == "fp":
            fp += 1
            wrong.append(f"{r['pair']}: {r['a']['name']} ({r['a']['paper']}) = {r['b']['name']} ({r['b']['paper']}) -> {a}")
        elif kind == "fn":
            fn += 1
            missed.append(f"{r['pair']}: {r['a']['name']} ({a}) / {r['b']['name']} ({b})")
        else:
            tn += 1
    merged, same = tp + fp, tp + fn
    return {"pairs": len(rows), "judged": tp + fp + fn + tn, "unsure": unsure, "absent": absent,
            "unplaced": unplaced, "merged": merged, "wrong_merges": fp, "missed_merges": fn,
            "wrong_merge_rate": round(fp / merged, 4) if merged else 0.0,
            "missed_merge_rate": round(fn / same, 4) if same else 0.0,
            "merge_precision": round(tp / merged, 4) if merged else 0.0,
            "merge_recall": round(tp / same, 4) if same else 0.0,
            "strata": {k: dict(sorted(v.items())) for k, v in sorted(strata.items())},
            "wrong_examples": wrong[:examples], "missed_examples": missed[:examples]}


def score_draws(rows: list[dict], node_of: dict[tuple[str, str], str], examples: int = 10) -> dict[str, Any]:
    """:func:`score_pairs` of the first draw's rows, with the second draw's (rows with a
    ``split``) under ``draw2``, its ``fit`` and ``test`` halves scored apart."""
    result = score_pairs([r for r in rows if "split" not in r], node_of, examples)
    second = [r for r in rows if "split" in r]
    if second:
        result["draw2"] = {k: score_pairs([r for r in second if r["split"] == k], node_of, examples)
                           for k in PAIR_SPLITS}
    return result


SPLITS = ("fresh", "heldout", "tune", "train", "bulk", "spantest", "spantest2", "spantest3", "spantrain", "all")
DEFAULT_PAPERS = Path("../shared/data/papers")  # beside a checkout; elsewhere --papers or $KG_PAPERS


def evaluate_gold(gold: Path, pred: Path | None = None, split: str = "fresh", papers: Path = DEFAULT_PAPERS,
                  errors: int = 0, ner: Path | None = None, model: str | None = None) -> dict:
    """Score extraction against a gold file (``kg eval``): SciER sentences, paper-level gold,
    or a folder of mention-level batches; extracting now, or reading predictions ``pred``."""
    from kg.errors import InputError
    from kg.extract import Extractor, resolve_pipeline
    from kg.records import Extraction

    if not gold.exists():
        raise InputError(f"{gold}: no such gold file")
    first = "" if gold.is_dir() else gold.read_text(encoding="utf-8").split("\n", 1)[0]
    scier = '"ner"' in first and '"sentence"' in first
    if scier:
        rows = read_scier(gold)
        ps = scier_papers(rows)
    else:
        if split not in SPLITS:
            raise InputError(f"--split {split!r}: choose one of {', '.join(SPLITS)}")
        rows = read_paper_gold(gold, split)
        ps = None if pred else gold_papers(rows, papers)
    if pred is not None:
        if not pred.exists():
            raise InputError(f"{pred}: no such prediction file")
        lines = [json.loads(x) for x in pred.read_text(encoding="utf-8").splitlines() if x.strip()]
        if lines and "proposes" in lines[0]:  # another annotation of the gold papers
            by_id = {ex.paper.id: ex for ex in gold_extractions(lines)}
        else:
            by_id = {}
            for d in lines:
                ex = Extraction.from_json(d)
                by_id[ex.paper.id] = ex
        ids = [p.id for p in ps] if ps else [r["id"] for r in rows]
        missing = [i for i in ids if i not in by_id]
        if missing:
            raise InputError(f"{pred}: no prediction for {len(missing)} gold item(s), e.g. {missing[0]}")
        exs = [by_id[i] for i in ids]
    else:
        cnn, enc = resolve_pipeline(model)
        exs = list(Extractor(ner_model=ner or "", spans_model=str(cnn or ""), encoder=str(enc or "")).extract_all(ps))
    result = score_scier(rows, exs) if scier else score_papers(rows, exs, max(errors, 5))
    result["gold"] = str(gold)
    result["items"] = len(rows)
    result["ner_model"] = str(ner) if ner and pred is None else None
    if pred is None:
        cnn, enc = resolve_pipeline(model)
        result["spans_model"] = str(cnn or "off")
        result["encoder"] = str(enc or "off")
    else:
        result["spans_model"] = None
    if not scier:
        result["split"] = split
    return result


def evaluate_pairs(gold: Path, graph: Path, examples: int = 0) -> dict:
    """Score the merges of a built graph against judged resolution pairs (``kg eval DIR -g``)."""
    from kg.errors import GraphNotFoundError
    from kg.io.format import EXTRACTIONS_FILE, load_extractions
    from kg.lexicon import default_lexicon
    from kg.resolve import canonical_ids, collect

    if not (graph / EXTRACTIONS_FILE).is_file():
        raise GraphNotFoundError(f"{graph}: no graph folder here (no {EXTRACTIONS_FILE}); build one with kg build")
    rows = read_pairs(gold)
    exs = load_extractions(graph)
    from kg.senses import scope

    lexicon = default_lexicon()
    exs = [scope(ex, lexicon) for ex in exs]  # the ids resolution reads
    remap = canonical_ids(collect(exs, None, lexicon), lexicon)
    result = score_draws(rows, node_of_mention(exs, remap), max(examples, 10))
    result.update(gold=str(gold), graph=str(graph))
    return result


def labelled_facts(rows: list[dict], extractions: Iterable[Extraction]) -> list[tuple[str, float, bool]]:
    """(kind, raw score, right) for every entity with a confidence, PROPOSES and typed edge
    extracted from the gold papers ``rows`` (paper-level gold, as ``kg eval`` reads it),
    matched as ``kg eval`` matches: an entity by its label and normalised name or an alias, an
    edge by those of its target (and, for a typed edge, its type, OUTPERFORMS counting as
    COMPARED_WITH)."""
    out = []
    for row, ex in zip(rows, extractions, strict=True):
        gold_e: dict[str, set[str]] = {}
        for g in row["entities"]:
            gold_e.setdefault(g["label"], set()).update(_keys(g["name"], g.get("aliases", ())))
        for e in sorted(ex.entities, key=lambda e: e.id):
            conf = dict(e.props).get("confidence")
            if conf is not None and e.type != "Repository":
                out.append(("entity", conf, bool(_keys(e.name, e.aliases) & gold_e.get(e.type, set()))))
        names = {g["name"]: {norm(g["name"])} | {norm(a) for a in g.get("aliases", ())} for g in row["entities"]}
        gold_p = set().union(*(names.get(n, {norm(n)}) for n in row.get("proposes", ())))
        gold_r: dict[str, set[str]] = {}
        for g in row.get("relations", ()):
            t = "COMPARED_WITH" if g["type"] == "OUTPERFORMS" else g["type"]
            gold_r.setdefault(t, set()).update(names.get(g["target"], {norm(g["target"])}))
        ents = {e.id: {norm(e.name)} | {norm(a) for a in e.aliases} for e in ex.entities}
        for r in sorted(ex.relations, key=lambda r: (r.type, r.source, r.target)):
            keys = ents.get(r.target)
            if keys is None:
                continue
            if r.type == "PROPOSES":
                out.append(("PROPOSES", r.confidence, bool(keys & gold_p)))
            elif r.type in ROLE_TYPES:
                t = "COMPARED_WITH" if r.type == "OUTPERFORMS" else r.type
                out.append(("role", r.confidence, bool(keys & gold_r.get(t, set()))))
    return out
