"""Sentence bounds (kg/extract/docutil.py)."""

from hypothesis import given, settings
from hypothesis import strategies as st

from kg.extract import docutil
from kg.extract.docutil import sentence_chars, set_sentences

PIECES = ["e.g.", "i.e.", "ly.", "Thus", "2023.", ".The", "a.com/x.Y", ").", "et al.", "vs.", "Fig.", "ConFig.", "w.r.t.", "A.", "Ab.", "x", "We", "It", "3",
          "(a)", "\"q\"", ".", "!", "?", " ", "  ", "approx.", "No.", "etc."]


def reference(text: str) -> list[tuple[int, int]]:
    """sentence_chars as first written: the abbreviation test over the whole sentence so far."""
    out, start = [], 0
    for m in docutil._END.finditer(text):
        piece_end = m.start() + (len(m.group(0)) - len(m.group(0).lstrip("\"')]")))
        if docutil._ABBREV.search(text[start:m.start()]):
            continue
        if not m.group(0) and docutil.glued_in_url(text, m.start()):
            continue
        out.append((start, piece_end))
        start = m.end()
    if start < len(text):
        out.append((start, len(text.rstrip()) if text.rstrip() else len(text)))
    return out or [(0, len(text))]


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=25).map("".join))
def test_abbreviation_window_finds_what_the_whole_sentence_finds(text):
    assert sentence_chars(text) == reference(text)


def test_sentence_tokens_follow_the_characters(extractor):
    doc = extractor.nlp.make_doc("We use e.g. BERT here. It works!  Fig. 2 shows it.")
    bounds = set_sentences(doc).user_data["kg_sents"]
    assert [doc.text[c0:c1] for _, _, c0, c1 in bounds] == ["We use e.g. BERT here.", "It works!",
                                                            "Fig. 2 shows it."]
    assert [doc[t0:t1].text for t0, t1, _, _ in bounds] == ["We use e.g. BERT here.", "It works!",
                                                            "Fig. 2 shows it."]


def test_glued_sentences_split_on_token_bounds(extractor):
    text = "Results improved recently.Thus we test in 2023.The code is at github.com/a/Foo.Bar now."
    doc = extractor.nlp.make_doc(text)
    bounds = set_sentences(doc).user_data["kg_sents"]
    assert [text[c0:c1] for _, _, c0, c1 in bounds] == [
        "Results improved recently.", "Thus we test in 2023.", "The code is at github.com/a/Foo.Bar now."]
    assert [doc[t0:t1].text for t0, t1, _, _ in bounds] == [text[c0:c1] for _, _, c0, c1 in bounds]


def test_latex_comment_marks_and_glued_numbered_items_end_sentences():
    t = "DARTS is widely adopted. % Nevertheless, DARTS fails. We study this variation.(1) Despite noise, it holds."
    assert [t[a:b] for a, b in sentence_chars(t)] == [
        "DARTS is widely adopted.", "% Nevertheless, DARTS fails.", "We study this variation.",
        "(1) Despite noise, it holds."]
    # a percentage or a parenthesised number inside a sentence is not a boundary
    t = "Accuracy rose by 5. %s of cases (1) and (2) agree."
    assert len(sentence_chars(t)) == 1
