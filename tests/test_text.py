import pytest

from kg.text import clean, entity_id, fold, singular, slug


@pytest.mark.parametrize("raw, expected", [
    ("H$^2$CL", "H²CL"),
    ("an $\\ell$-fold", "an ℓ-fold"),
    ("****H***indsight ***e***xperience", "Hindsight experience"),
    ("*associative* memory", "associative memory"),
    ("target\u2013draft", "target-draft"),
    ("up to $1.6\\times$ slower", "up to 1.6× slower"),
    ("6.4\\% in math \\& science", "6.4% in math & science"),
    ("\\url{https://a.io/x/}", "https://a.io/x/"),
    ("``boundary cases''", '"boundary cases"'),
    ("a  \n\t b", "a b"),
    ("zero\u200bwidth and \u202ertl\u202c", "zerowidth and rtl"),
    ("<b>bold</b> &amp; <i>it</i>", "bold & it"),
    ("a * b and 2*3", "a * b and 2*3"),
])
def test_clean(raw, expected):
    assert clean(raw) == expected


def test_clean_is_idempotent():
    for raw in ["H$^2$CL ****H***i", "a — b", "x\u00a0y", "$\\Omega(\\sqrt{T})$"]:
        once = clean(raw)
        assert clean(once) == once


def test_fold_and_ids_merge_spelling_variants():
    assert fold("Large Language Models") == fold("large-language model")
    assert entity_id("Technique", fold("Mixture-of-Experts")) == entity_id("Technique", fold("mixture of experts"))
    assert singular("strategies") == "strategy" and singular("dynamics") == "dynamics"


def test_slug_is_ascii_and_never_empty():
    assert slug("Qwen2.5-VL-7B") == "qwen2-5-vl-7b"
    assert slug("C++") == "c-plus-plus"
    s = slug("深度学习")
    assert s and s.isascii()
    assert slug("深度学习") != slug("强化学习")
