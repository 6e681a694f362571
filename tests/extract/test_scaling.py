"""Extraction's work grows linearly with run-on text: counted in lines of kg's code executed,
never in seconds (a loaded machine makes time meaningless; counts are deterministic)."""

from __future__ import annotations

import sys
from pathlib import Path

from kg.extract.results import find_results
from kg.extract.select import overlapping
from kg.records import Entity, Mention, Paper

KG = str(Path(__file__).resolve().parents[2] / "kg")
PHRASE = ("we propose FooNet, a transformer with sparse attention, and evaluate it on ImageNet "
          "against ResNet-50 with 81.5% top-1 accuracy and calibration error, ")


def kg_lines(call) -> int:
    """Lines of kg's own code executed by ``call()`` (a jump back to a line counts again, so
    every turn of a loop or comprehension is counted)."""
    count = 0

    def local(frame, event, arg):
        nonlocal count
        if event == "line":
            count += 1
        return local

    def glob(frame, event, arg):
        return local if frame.f_code.co_filename.startswith(KG) else None

    sys.settrace(glob)
    try:
        call()
    finally:
        sys.settrace(None)
    return count


def test_extraction_work_is_linear_in_run_on_text(extractor):
    """Twice the text, twice the work: every stretch compared with every other in the
    selector, or every mention scanned for every sentence's results, made it grow with the
    square of the text (0.5M to 1M characters cost 3.6 times the CPU)."""
    def work(n: int) -> int:
        paper = Paper(id="p", title="A run-on", abstract=(PHRASE * (n // len(PHRASE) + 1))[:n])
        return kg_lines(lambda: extractor.extract(paper))

    extractor.extract(Paper(id="w", abstract="We propose FooNet."))  # caches filled outside the count
    small, large = work(20_000), work(40_000)
    assert 1.8 < large / small < 2.3, (small, large)


def test_overlapping_stretches_are_found_without_comparing_every_pair():
    keys = sorted({(i, i + w) for i in range(0, 4000, 3) for w in (2, 5, 9)})
    near = overlapping(keys)
    brute = [[k2 for k2 in keys if k2 != k and k2[0] < k[1] and k[0] < k2[1]] for k in keys]
    assert near == brute
    # a long stretch reaches back as far as its length, and no further
    assert overlapping([(0, 100), (50, 52), (101, 103)]) == [[(50, 52)], [(0, 100)], []]
    def lines(n: int) -> int:
        return kg_lines(lambda: overlapping(sorted({(i, i + 2) for i in range(0, n, 3)})))

    assert lines(8000) < 2.3 * lines(4000)


def test_results_find_each_sentences_mentions_by_position():
    """Numbers are attached to the mentions of their own sentence, in the entities' order,
    whatever the number of sentences."""
    text = "We cut error by 5% on ImageNet. CIFAR-10 and ImageNet gain 3% accuracy."
    inet = Entity(id="dataset:imagenet", type="Dataset", name="ImageNet",
                  mentions=(Mention(text="ImageNet", start=22, end=30), Mention(text="ImageNet", start=45, end=53)))
    cifar = Entity(id="dataset:cifar-10", type="Dataset", name="CIFAR-10", mentions=(Mention(text="CIFAR-10", start=32, end=40),))
    out = find_results(text, [(0, 31), (32, 71)], [inet, cifar])
    assert [(r["text"], r["setting"]) for r in out] == [
        ("5%", ["dataset:imagenet"]), ("3%", ["dataset:cifar-10", "dataset:imagenet"])]


def test_results_work_is_linear_in_the_number_of_sentences():
    def lines(k: int) -> int:
        sent = "FooNet gains 3% accuracy on ImageNet. "
        text = sent * k
        n = len(sent)
        ents = [Entity(id="dataset:imagenet", type="Dataset", name="ImageNet",
                       mentions=tuple(Mention(text="ImageNet", start=i * n + 28, end=i * n + 36) for i in range(k)))]
        return kg_lines(lambda: find_results(text, [(i * n, i * n + n - 1) for i in range(k)], ents))

    assert lines(800) < 2.2 * lines(400)
