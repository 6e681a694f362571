"""A small graph with known answers, made from hand-written extractions (no extractor):

- p1 (ICLR 2024) proposes LoRA ("low-rank adaptation") for code generation and names a
  Transformer technique;
- p2 (ICML 2023), titled "QLoRA" like the method it proposes (two nodes of one name), proposes
  QLoRA, a kind of LoRA that uses it, for code generation;
- p3 (ICLR 2024) uses QLoRA for speech recognition, so it uses LoRA through a narrower entity;
- p4 (ICLR 2024) only mentions LoRA, and names "low-rank adaption" (a near spelling) and
  PPO (a method) and policy optimization (a technique with the alias PPO);
- p5 (ICML 2023) is titled about code generation, and p6 only says it in its abstract.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from kg.records import Entity, Evidence, Extraction, Paper, Relation

P1 = "We propose low-rank adaptation (LoRA), which freezes the weights. LoRA is strong at code generation."
P2 = "We introduce QLoRA, a quantised variant of LoRA. QLoRA improves code generation."
P3 = "We fine-tune a speech model with QLoRA for speech recognition."
P4 = "Unlike LoRA, we tune all weights with PPO and policy optimization (PPO); low-rank adaption helps."
P5 = "We study benchmarks."
P6 = "Our models write code generation programs."


def ev(text: str, sentence: str) -> Evidence:
    start = text.index(sentence)
    return Evidence(sentence, start, start + len(sentence))


LORA = Entity("method:lora", "Method", "LoRA", ("low-rank adaptation",))
QLORA = Entity("method:qlora", "Method", "QLoRA")
CODE = Entity("task:code-generation", "Task", "code generation")
CODE_BENCH = Entity("dataset:code-generation-benchmark", "Dataset", "code generation benchmark")
CODE_EVAL = Entity("dataset:code-generation-eval", "Dataset", "code generation eval")


def extractions() -> list[Extraction]:
    s1, s2 = P1.split(". ")
    q1, q2 = P2.split(". ")
    return [
        Extraction(Paper("p1", P1, title="Adapting Large Models", venue="ICLR 2024", year=2024,
                         url="https://example.org/p1", authors=("Ada Lovelace",)),
                   (LORA, CODE, Entity("technique:transformer", "Technique", "Transformer"), CODE_BENCH),
                   (Relation("PROPOSES", "p1", "method:lora", ev(P1, s1 + ".")),
                    Relation("ADDRESSES", "method:lora", "task:code-generation", ev(P1, s2)),
                    Relation("MENTIONS", "p1", "technique:transformer"),
                    Relation("EVALUATED_ON", "method:lora", "dataset:code-generation-benchmark"))),
        Extraction(Paper("p2", P2, title="QLoRA", venue="ICML 2023", year=2023),
                   (QLORA, LORA, CODE, CODE_BENCH, CODE_EVAL),
                   (Relation("PROPOSES", "p2", "method:qlora", ev(P2, q1 + ".")),
                    Relation("USES", "method:qlora", "method:lora", ev(P2, q1 + ".")),
                    Relation("BROADER", "method:qlora", "method:lora", ev(P2, q1 + ".")),
                    Relation("ADDRESSES", "method:qlora", "task:code-generation", ev(P2, q2)),
                    Relation("EVALUATED_ON", "p2", "dataset:code-generation-benchmark"),
                    Relation("EVALUATED_ON", "p2", "dataset:code-generation-eval"))),
        Extraction(Paper("p3", P3, title="Speech Tuning", venue="ICLR 2024", year=2024),
                   (replace(QLORA, aliases=("quantised LoRA",)), Entity("task:speech-recognition", "Task", "speech recognition")),
                   (Relation("USES", "p3", "method:qlora", ev(P3, P3)),
                    Relation("ADDRESSES", "p3", "task:speech-recognition", ev(P3, P3)))),
        Extraction(Paper("p4", P4, title="Full Tuning", venue="ICLR 2024", year=2024),
                   (LORA, Entity("technique:low-rank-adaption", "Technique", "low-rank adaption"),
                    Entity("method:ppo", "Method", "PPO", ("proximal policy optimization",)),
                    Entity("technique:policy-optimization", "Technique", "policy optimization", ("PPO",))),
                   (Relation("MENTIONS", "p4", "method:lora", ev(P4, P4)),
                    Relation("MENTIONS", "p4", "technique:low-rank-adaption"),
                    Relation("USES", "p4", "method:ppo"), Relation("USES", "p4", "technique:policy-optimization"))),
        Extraction(Paper("p5", P5, title="Better Code Generation", venue="ICML 2023", year=2023), (), ()),
        Extraction(Paper("p6", P6, title="Writing Programs", venue="ICML 2023", year=2023), (), ()),
    ]


def graph():
    from kg.graph import build_graph

    return build_graph(extractions())


def folder(path: Path) -> Path:
    """The graph saved as a graph folder, as kg build writes it."""
    from kg.io.format import save

    save(path, graph(), extractions(), ["fixture.jsonl"])
    return path
