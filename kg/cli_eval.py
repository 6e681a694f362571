"""``kg eval``: extraction quality against gold."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer

SPLITS = ("fresh", "heldout", "tune", "train", "bulk", "spantest", "spantrain", "all")
DEFAULT_PAPERS = Path("../shared/data/papers")  # beside a checkout; elsewhere --papers or $KG_PAPERS


def register(app: typer.Typer) -> None:
    @app.command("eval")
    def eval_cmd(
        gold: Annotated[Path, typer.Argument(help="Gold file: SciER sentences (.jsonl with 'ner'), paper-level gold, or a folder of mention-level gold batches (eval/gold/spans).")],
        pred: Annotated[Path | None, typer.Option("--pred", help="kg extract JSONL to score instead of extracting now, or a second paper-level annotation of the same papers (agreement).")] = None,
        split: Annotated[str, typer.Option("--split", help="Paper-level gold split: fresh, heldout, tune, train, bulk, spantest (the blind mention-level test split), spantrain or all.")] = "fresh",
        papers: Annotated[Path, typer.Option("--papers", envvar="KG_PAPERS", help="Folder of the paper lists the gold ids come from.")] = DEFAULT_PAPERS,
        as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
        errors: Annotated[int, typer.Option("--errors", help="Paper-level gold: list up to N examples of each error kind.")] = 0,
        ner: Annotated[Path | None, typer.Option("--ner", envvar="KG_NER_MODEL",
                                                 help="Trained span model folder (scripts/train_ner.py); GPL-3.0-derived, optional.")] = None,
        model: Annotated[str | None, typer.Option("--model", envvar="KG_SPANS", help="kg's span model: a folder, or 'off' for rules only (default: the packaged model).")] = None,
        graph: Annotated[Path, typer.Option("--graph", "-g", help="Resolution pairs: the graph folder (kg build) whose merges are scored.")] = Path("exports"),
    ) -> None:
        """Score extraction against gold: precision, recall and F1 per label.

        Example: [bold]kg eval eval/gold/papers.jsonl --split fresh[/]
        """
        from kg.errors import InputError
        from kg.evaluate import (
            gold_extractions,
            gold_papers,
            read_paper_gold,
            read_scier,
            scier_papers,
            score_papers,
            score_scier,
        )
        from kg.extract import Extractor
        from kg.extract.spans import resolve_model
        from kg.records import Extraction

        if not gold.exists():
            raise InputError(f"{gold}: no such gold file")
        if gold.is_dir() and (gold / "draw.jsonl").is_file():
            _pairs(gold, graph, as_json, errors)
            return
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
            spans_model = resolve_model(model)
            exs = list(Extractor(ner_model=ner or "", spans_model=str(spans_model or "")).extract_all(ps))
        result = score_scier(rows, exs) if scier else score_papers(rows, exs, max(errors, 5))
        result["gold"] = str(gold)
        result["items"] = len(rows)
        result["ner_model"] = str(ner) if ner and pred is None else None
        result["spans_model"] = str(resolve_model(model) or "off") if pred is None else None
        if not scier:
            result["split"] = split
        if as_json:
            sys.stdout.write(json.dumps(result, indent=2) + "\n")
            return
        _print(result, errors)


def _pairs(gold: Path, graph: Path, as_json: bool, examples: int) -> None:
    """Resolution pairs against the merges of a built graph."""
    from kg.errors import GraphNotFoundError
    from kg.evaluate import node_of_mention, read_pairs, score_pairs
    from kg.extract.lexicon import default_lexicon
    from kg.graph import EXTRACTIONS_FILE, load_extractions
    from kg.resolve import canonical_ids, collect

    if not (graph / EXTRACTIONS_FILE).is_file():
        raise GraphNotFoundError(f"{graph}: no graph folder here (no {EXTRACTIONS_FILE}); build one with kg build")
    rows = read_pairs(gold)
    exs = load_extractions(graph)
    remap = canonical_ids(collect(exs), default_lexicon())
    result = score_pairs(rows, node_of_mention(exs, remap), max(examples, 10))
    result.update(gold=str(gold), graph=str(graph))
    if as_json:
        sys.stdout.write(json.dumps(result, indent=2) + "\n")
        return
    from rich.console import Console

    con = Console(highlight=False)
    con.print(f"{gold} against {graph}: {result['judged']} judged pairs ({result['unsure']} unsure, "
              f"{result['absent']} with a mention the graph no longer has)")
    con.print(f"merged {result['merged']}: wrong merges {result['wrong_merges']} "
              f"({result['wrong_merge_rate']:.1%}); missed merges {result['missed_merges']} "
              f"({result['missed_merge_rate']:.1%} of the pairs judged the same)")
    for k, v in result["strata"].items():
        con.print(f"  {k}: " + ", ".join(f"{a} {b}" for a, b in v.items()))
    for kind in ("wrong", "missed"):
        for line in result[f"{kind}_examples"][:examples]:
            con.print(f"[bold]{kind}[/]: {line}", soft_wrap=True)


def _print(result: dict, examples: int = 0) -> None:
    from rich.console import Console
    from rich.table import Table

    con = Console(highlight=False)
    t = Table(title=f"{result['gold']} ({result['items']} items{', ' + result['split'] if 'split' in result else ''})",
              title_justify="left")
    for col in ("label", "precision", "recall", "F1", "tp", "fp", "fn"):
        t.add_column(col, justify="left" if col == "label" else "right")
    rows = dict(result["labels"])
    rows["micro"] = result["micro"]
    for k in ("proposes", "repositories", "relations", "has_code", "roles"):
        if k in result:
            rows[k.upper()] = result[k]
    for k, s in result.get("roles_by_type", {}).items():
        rows[f"  {k}"] = s
    for k, s in rows.items():
        t.add_row(k, f"{s['precision']:.3f}", f"{s['recall']:.3f}", f"{s['f1']:.3f}",
                  str(s["tp"]), str(s["fp"]), str(s["fn"]))
    con.print(t)
    if result.get("errors"):
        con.print("Most frequent errors: " + ", ".join(f"{k} ({v})" for k, v in result["errors"].items()))
    if examples and result.get("error_examples"):
        for kind, items in sorted(result["error_examples"].items(), key=lambda kv: -result["errors"].get(kv[0], 0)):
            con.print(f"[bold]{kind}[/]: " + "; ".join(items[:examples]), soft_wrap=True)
