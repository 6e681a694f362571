from hypothesis import given, settings
from hypothesis import strategies as st

from kg.records import Paper


def run(extractor, text, pid="p"):
    return extractor.extract(Paper(id=pid, abstract=text))


def by_name(ex):
    return {e.name: e for e in ex.entities}


def test_mentions_index_the_printed_abstract(extractor):
    text = "We propose FooNet, a framework for image classification with Qwen3-8B (see https://github.com/a/b)."
    ex = run(extractor, text)
    for e in ex.entities:
        for m in e.mentions:
            assert ex.paper.abstract[m.start:m.end] == m.text
    for r in ex.relations:
        if r.evidence:
            assert ex.paper.abstract[r.evidence.start:r.evidence.end] == r.evidence.text


def test_proposal_acronym_and_appositive(extractor):
    ex = run(extractor, "Motivated by this, we propose Explore-Then-Exploit (ETE), a training-free decoding "
                        "strategy. ETE integrates with KV caching.")
    ents = by_name(ex)
    ete = ents["Explore-Then-Exploit"]
    assert ete.type == "Method" and ete.id == "method:explore-then-exploit" and ete.aliases == ("ETE",)
    assert [m.text for m in ete.mentions] == ["Explore-Then-Exploit", "ETE", "ETE"]
    props = [r for r in ex.relations if r.type == "PROPOSES"]
    assert [(r.source, r.target) for r in props] == [("p", "method:explore-then-exploit")]
    assert props[0].rule.startswith("proposal:") and 0 < props[0].confidence <= 1


def test_generic_phrases_are_not_entities(extractor):
    ex = run(extractor, "In this paper, we propose a novel method that shows strong potential. "
                        "Our method and the model outperform this paper's baselines.")
    names = {e.name.lower() for e in ex.entities}
    assert not names & {"our method", "this paper", "strong potential", "the model", "a novel method"}
    assert not [r for r in ex.relations if r.type == "PROPOSES"]


def test_models_link_to_their_family(extractor):
    ex = run(extractor, "We fine-tune Qwen3-8B and Qwen2.5-VL-7B.")
    ents = by_name(ex)
    assert ents["Qwen3-8B"].type == "Model" and dict(ents["Qwen3-8B"].props)["size"] == "8B"
    props = dict(ents["Qwen2.5-VL-7B"].props)
    assert 0 < props.pop("confidence") <= 1  # how sure the reading is (kg.calibration)
    assert props == {"family": "Qwen2.5", "size": "7B", "variant": "VL"}
    variant = {(r.source, r.target) for r in ex.relations if r.type == "VARIANT_OF"}
    assert ("model:qwen3-8b", "model:qwen3") in variant


def test_comparison(extractor):
    ex = run(extractor, "We propose DraftMixer, a decoding method. DraftMixer outperforms EAGLE-2 and Medusa.")
    outp = {(r.source, r.target) for r in ex.relations if r.type == "OUTPERFORMS"}
    assert ("method:draftmixer", "method:eagle-2") in outp and ("method:draftmixer", "method:medusa") in outp


def test_record_github_becomes_repository(extractor):
    ex = extractor.extract(Paper(id="g", abstract="We study things.", github="https://github.com/x/y"))
    assert [(r.type, r.target) for r in ex.relations] == [("HAS_CODE", "repository:github-com-x-y")]


ABSTRACTS = [
    "We propose FooNet{i}, a framework for image classification on ImageNet with Qwen3-8B.",
    "Zorblax{i} tokens and Quuxification{i} (QXF{i}) reduce perplexity by {i}% on WikiText-103.",
    "We introduce BarDiffusion{i}, which outperforms DDPM on CIFAR-10 (https://github.com/x/bar{i}).",
]


def test_batches_and_pipeline_renewal_do_not_change_results(monkeypatch):
    """A long-lived extractor rebuilds its pipeline every RENEW papers to bound the vocabulary:
    the records must not depend on where batch and renewal boundaries fall, across calls."""
    import kg.extract as ke

    papers = [Paper(id=f"p{i}", abstract=t.format(i=i)) for i in range(7) for t in ABSTRACTS]
    one_by_one = [ke.Extractor().extract(p) for p in papers]
    monkeypatch.setattr(ke, "RENEW", 3)
    ex = ke.Extractor(batch_size=1)
    assert list(ex.extract_all(papers[:10])) + list(ex.extract_all(papers[10:])) == one_by_one
    more = [Paper(id=f"q{i}", abstract=t.format(i=i)) for i in range(100, 107) for t in ABSTRACTS]
    list(ex.extract_all(more))
    # renewed after every batch of 4: only the words of the last batch are left, as in a
    # pipeline that has seen nothing else
    fresh = ke.Extractor()
    for paper in more[-4:]:
        fresh.extract(paper)
    strings = len(fresh.nlp.vocab.strings)
    assert len(ex.nlp.vocab.strings) <= strings
    monkeypatch.setattr(ke, "RENEW", 10**9)
    list(ex.extract_all([Paper(id=f"r{i}", abstract=t.format(i=i)) for i in range(200, 207) for t in ABSTRACTS]))
    assert len(ex.nlp.vocab.strings) > strings + 30  # (without renewal they accumulate)


def test_doc_text_is_the_input(extractor):
    from kg.extract.docutil import doc_text

    text = "  Tabs\tand  double spaces, ü, 😀 and\nnewlines stay.  "
    doc = extractor.nlp(text)
    assert doc_text(doc) == doc.text == text


@settings(max_examples=2000, deadline=None)
@given(st.text(st.sampled_from(list("RLsx-_ .,(ü²1")), max_size=30),
       st.text(st.sampled_from(list("RLs-x.²")), min_size=1, max_size=4))
def test_acronym_occurrences_match_the_regex_they_replace(text, word):
    import re

    from kg.extract.pipeline import _occurrences

    expected = [m.span() for m in re.finditer(r"(?<![\w-])" + re.escape(word) + r"s?(?![\w-])", text)]
    assert _occurrences(word, text) == expected


def test_quotes_around_a_long_form_are_not_part_of_the_name(extractor):
    text = 'We propose the "Binarized BackPropagation" (BBP) rule and “Conceptor-Aided Backprop” (CAB).'
    ents = by_name(run(extractor, text))
    assert ents["Binarized BackPropagation"].aliases == ("BBP",)
    assert ents["Conceptor-Aided Backprop"].mentions[0].text == "Conceptor-Aided Backprop"
    assert not any('"' in n or "“" in n for n in ents)


def test_a_model_written_other_than_its_canonical_name_keeps_the_surface_as_an_alias(extractor):
    from kg.records import Paper

    ex = extractor.extract(Paper(id="p", title="", abstract="We fine-tune Llama2 on math."))
    model = next(e for e in ex.entities if e.type == "Model")
    assert model.name == "Llama 2" and "Llama2" in model.aliases
