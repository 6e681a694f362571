from kg.extract.docutil import sentence_chars
from kg.extract.results import find_results


def results(text):
    return [(r["value"], r["unit"], r["direction"], r["metric"]) for r in find_results(text, sentence_chars(text), [])]


def test_numeric_claims():
    assert results("It gives up to 4.48x end-to-end inference speedup on SGLang.") == \
        [(4.48, "x", "increase", "end-to-end inference speedup")]
    assert results("ART reduces forgetting by 31% after MetaMath post-training.") == [(31.0, "%", "decrease", "forgetting")]
    assert results("We see gains of 6.4% in math and 4.5% in QA.") == [(6.4, "%", "increase", None), (4.5, "%", "increase", None)]


def test_settings_are_not_results():
    assert results("We train on 10% of the data.") == []


def test_results_attach_to_the_proposed_method(extractor):
    from kg.records import Paper

    ex = extractor.extract(Paper("p", "We propose FooNet. FooNet gives up to 3.1x faster inference on vLLM."))
    (r,) = ex.results
    assert r["method"] == "method:foonet" and "software:vllm" in r["setting"]
    assert ex.paper.abstract[r["start"]:r["end"]] == r["text"] == "3.1x"
