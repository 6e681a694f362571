"""``kg eval``: extraction quality against gold (the scoring is :mod:`kg.evaluate`)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from kg.cli import consoles
from kg.defaults import GRAPH_DIR
from kg.evaluate import DEFAULT_PAPERS


def register(app: typer.Typer) -> None:
    @app.command("eval")
    def eval_cmd(
        ctx: typer.Context,
        gold: Annotated[Path, typer.Argument(help="Gold file: SciER sentences (.jsonl with 'ner'), paper-level gold, or a folder of mention-level gold batches (eval/gold/spans).")],
        pred: Annotated[Path | None, typer.Option("--pred", help="kg extract JSONL to score instead of extracting now, or a second paper-level annotation of the same papers (agreement).")] = None,
        split: Annotated[str, typer.Option("--split", help="Paper-level gold split: fresh, heldout, tune, train, bulk, spantest, spantest2 and spantest3 (the blind mention-level test splits), spantrain or all.")] = "fresh",
        papers: Annotated[Path, typer.Option("--papers", envvar="KG_PAPERS", help="Folder of the paper lists the gold ids come from.")] = DEFAULT_PAPERS,
        as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
        errors: Annotated[int, typer.Option("--errors", help="Paper-level gold: list up to N examples of each error kind.")] = 0,
        ner: Annotated[Path | None, typer.Option("--ner", envvar="KG_NER_MODEL",
                                                 help="An optional trained span model's folder (GPL-3.0-derived; trained from a kg checkout).")] = None,
        model: Annotated[str | None, typer.Option("--model", envvar="KG_SPANS", help="The extraction pipeline: default (the contextual encoder and rules), fast (the span CNN and rules), off (rules only), or a folder.")] = None,
        graph: Annotated[Path, typer.Option("--graph", "-g", help="Resolution pairs: the graph folder (kg build) whose merges are scored.")] = GRAPH_DIR,
    ) -> None:
        """Score extraction against gold: precision, recall and F1 per label.

        Example: [bold]kg eval gold.jsonl --split fresh[/]  (a checkout holds the gold in eval/gold)
        """
        from kg.evaluate import evaluate_gold, evaluate_pairs

        con = consoles(ctx).out
        if gold.is_dir() and (gold / "draw.jsonl").is_file():
            result = evaluate_pairs(gold, graph, errors)
            if as_json:
                sys.stdout.write(json.dumps(result, indent=2) + "\n")
            else:
                _print_pairs(con, result, errors)
            return
        result = evaluate_gold(gold, pred, split, papers, errors, ner, model)
        if as_json:
            sys.stdout.write(json.dumps(result, indent=2) + "\n")
            return
        _print(con, result, errors)


def _print_pairs(con, result: dict, examples: int) -> None:
    """Resolution pairs against the merges of a built graph, for people: the first draw, then
    the second draw's fit and test halves."""
    con.print(f"{result['gold']} against {result['graph']}")
    _print_score(con, "first draw (p###)", result, examples)
    for split, score in result.get("draw2", {}).items():
        _print_score(con, f"second draw (r###), {split}", score, examples)


def _print_score(con, title: str, result: dict, examples: int) -> None:
    con.print(f"[bold]{title}[/]: {result['judged']} judged pairs ({result['unsure']} unsure, "
              f"{result['unplaced']} with a paper the graph does not hold, "
              f"{result['absent']} with a mention the graph no longer has)")
    con.print(f"merged {result['merged']}: wrong merges {result['wrong_merges']} "
              f"({result['wrong_merge_rate']:.1%}); missed merges {result['missed_merges']} "
              f"({result['missed_merge_rate']:.1%} of the pairs judged the same)")
    for k, v in result["strata"].items():
        con.print(f"  {k}: " + ", ".join(f"{a} {b}" for a, b in v.items()))
    for kind in ("wrong", "missed"):
        for line in result[f"{kind}_examples"][:examples]:
            con.print(f"[bold]{kind}[/]: {line}", soft_wrap=True)


def _print(con, result: dict, examples: int = 0) -> None:
    from rich.table import Table

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
