"""Benchmark corpora: the shared paper lists, cut to 1k, 5k and all papers."""

from __future__ import annotations

import json
from pathlib import Path

from kg.io.readers import ReadReport, read_papers
from kg.records import Paper

PAPERS = Path(__file__).resolve().parents[2] / "shared" / "data" / "papers"
LISTS = ["icml2024.jsonl", "iclr2024.jsonl", "neurips2023.jsonl", "paperlists-2010-2025.jsonl"]


def all_papers() -> list[Paper]:
    paths = [str(PAPERS / n) for n in LISTS if (PAPERS / n).exists()]
    if not paths:
        raise SystemExit(f"benchmark corpora not found under {PAPERS}")
    return list(read_papers(paths, ReadReport()))


def write_jsonl(papers: list[Paper], path: Path) -> Path:
    """Write papers as a JSONL paper list (outside the repository, for the benchmark run)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as fh:
        for p in papers:
            rec = {"id": p.id, "title": p.title, "abstract": p.abstract, "venue": p.venue, "year": p.year,
                   "authors": list(p.authors)}
            fh.write(json.dumps(rec, ensure_ascii=False) + "\n")
    return path


def words(papers: list[Paper]) -> int:
    return sum(len(p.abstract.split()) + len(p.title.split()) for p in papers)


def icml2024() -> list[Paper]:
    path = PAPERS / "icml2024.jsonl"
    if not path.exists():
        raise SystemExit(f"benchmark list not found: {path}")
    return list(read_papers([str(path)], ReadReport()))
