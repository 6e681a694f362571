from hypothesis import given, settings
from hypothesis import strategies as st

from kg.extract.patterns import (
    ModelFinder,
    find_acronyms,
    find_urls,
    is_name_shaped,
    long_form,
    normalize_url,
)

FAMILIES = {"Qwen3": "Qwen3", "Qwen2.5": "Qwen2.5", "Llama 2": "Llama 2", "Llama-2": "Llama 2",
            "OLMo-2": "OLMo 2", "OLMo 2": "OLMo 2", "BERT": "BERT"}


def models(text):
    return [(f.name, dict(f.props)) for f in ModelFinder(FAMILIES).find(text)]


def test_model_names_split_into_parts():
    assert models("we train Qwen2.5-VL-7B and Qwen3-8B") == [
        ("Qwen2.5-VL-7B", {"family": "Qwen2.5", "size": "7B", "variant": "VL"}),
        ("Qwen3-8B", {"family": "Qwen3", "size": "8B"}),
    ]
    assert models("Qwen3-235B-A22B") == [("Qwen3-235B-A22B", {"family": "Qwen3", "size": "235B", "variant": "A22B"})]
    assert models("OLMo-2-1B") == [("OLMo-2-1B", {"family": "OLMo 2", "size": "1B"})]
    assert models("Llama 2 13B") == [("Llama 2 13B", {"family": "Llama 2", "size": "13B"})]
    assert models("the BERT encoder") == [("BERT", {})]
    assert models("Vicuna-13B") == [("Vicuna-13B", {"family": "Vicuna", "size": "13B"})]


def test_urls():
    text = "Code: https://github.com/sxu-yaokx/HHCL. Page at \\url{x} https://mercerai.github.io/MVISTA-4D/)."
    assert [u.name for u in find_urls(text)] == ["github.com/sxu-yaokx/HHCL", "mercerai.github.io/MVISTA-4D"]
    assert normalize_url("https://www.GitHub.com/a/b.git/") == "github.com/a/b"
    bare = "The project page is available at rectified-scaling-law.github.io. Mail me@x.github.io."
    assert [u.name for u in find_urls(bare)] == ["rectified-scaling-law.github.io"]


def test_a_link_to_a_paper_is_not_a_repository():
    text = ("Code is available at [GitHub](https://github.com/MAGICS-LAB/UHop); future updates are on "
            "[arXiv](https://arxiv.org/abs/2404.03827). See http://arxiv.org/pdf/2306.14809v2, "
            "https://doi.org/10.1000/182 and https://openreview.net/forum?id=abc.")
    assert [u.name for u in find_urls(text)] == ["github.com/MAGICS-LAB/UHop"]
    assert [u.name for u in find_urls("data at https://arxiv-dataset.github.io/x")] == ["arxiv-dataset.github.io/x"]


def test_acronym_long_forms():
    assert long_form("SAM", "three approaches: Sharpness-Aware Minimization") == "Sharpness-Aware Minimization"
    assert long_form("MoE", "leverages the mixture-of-experts") == "mixture-of-experts"
    assert long_form("OAK", "we propose the Optimizer Aware Kernel") == "Optimizer Aware Kernel"
    assert long_form("XYZ", "nothing matches here") is None
    text = "Large Language Models (LLMs) and (i) not this (e.g. nor this)"
    assert [(a.long, a.short) for a in find_acronyms(text, [(0, len(text))])] == [("Large Language Models", "LLMs")]


def test_name_shapes():
    for w in ["SpecForge", "EAGLE-3", "Retro-Expert", "H²CL", "HeRL", "LpJEPA", "Explore-Then-Exploit"]:
        assert is_name_shaped(w), w
    for w in ["RGBD", "KL-regularized", "target-draft", "Transformer", "GPUs", "COVID-19", "x86"]:
        assert not is_name_shaped(w), w


def test_task_phrases():
    from kg.extract.patterns import find_task_phrases

    text = ("We study graph decomposition and improve histopathology image classification; "
            "we enhance set-level image classification and decode predictions.")
    assert [f.name for f in find_task_phrases(text)] == \
        ["graph decomposition", "histopathology image classification", "set-level image classification"]


@settings(max_examples=1500, deadline=None)
@given(st.lists(st.text(st.sampled_from(list("Aab-1 ")), min_size=1, max_size=5), min_size=1, max_size=6),
       st.text(st.sampled_from(list("Aab-1 \t.")), max_size=12))
def test_family_trie_matches_what_the_longest_first_alternation_matches(words, text):
    import re

    from kg.extract.patterns import _trie

    flat = "|".join(re.escape(w).replace(r"\-", r"[-\s]").replace(r"\ ", r"[-\s]")
                    for w in sorted(words, key=len, reverse=True))
    for pattern in (r"({})(?![\w])", r"({})(1*)(?![\w-])"):
        want = re.match(pattern.format(flat), text)
        got = re.match(pattern.format(_trie(words)), text)
        assert (want and want.groups()) == (got and got.groups())


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.sampled_from(["object", "detection", "image", "3d", "(video", "tracking,", "super-resolution",
                                 "Graph", "x-ray", "segmentation", " ", "\n", "-", "detections", "a_b"]),
                max_size=14).map(" ".join))
def test_task_phrase_matches_are_what_the_pattern_finds_anywhere(text):
    from kg.extract.patterns import _TASK, _task_matches

    assert [m.span(1) for m in _task_matches(text)] == [m.span(1) for m in _TASK.finditer(text)]
