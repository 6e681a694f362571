"""The contextual encoder's text handling (kg/extract/encoder.py): pieces, windows, tags and
their decoding; and the packaged encoder run as kg runs it."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from kg.extract import encoder as E

PACKAGED = E.available(E.DEFAULT_ENCODER)
needs_encoder = pytest.mark.skipif(not PACKAGED, reason="no packaged encoder (make model builds one)")


@given(st.integers(0, 2000), st.integers(8, 64), st.integers(0, 6))
def test_every_piece_is_read_from_exactly_one_window(n, size, overlap):
    overlap = min(overlap, size - 3)
    ws = E.windows(n, size=size, overlap=overlap)
    owned = [i for w in ws for i in range(w.own_lo, w.own_hi)]
    assert owned == list(range(n))
    for w in ws:
        assert w.hi - w.lo <= size - 2
        assert w.lo <= w.own_lo <= w.own_hi <= w.hi


def test_a_piece_is_read_away_from_the_window_edge_when_it_can_be():
    ws = E.windows(1000, size=322, overlap=64)
    for a, b in zip(ws, ws[1:], strict=False):
        cut = a.own_hi
        assert cut - b.lo >= 16 and a.hi - cut >= 16  # both sides keep context at the cut


def test_shapes_tell_case_apart():
    assert E.shape_id("SAM") != E.shape_id("sam") != E.shape_id("Sam")
    assert E.shape_id("GPT-4") == E.shape_id("CIFAR10") == 6
    assert E.shape_id("") == 0 and E.shape_id("--") == 7


def _pieces(words: list[str]) -> E.Pieces:
    """Pieces of one abstract, one piece per word, words separated by a space."""
    starts, pos = [], 0
    for w in words:
        starts.append(pos)
        pos += len(w) + 1
    n = len(words)
    return E.Pieces(np.arange(n, dtype=np.int64), np.ones(n, dtype=np.int64), np.ones(n, dtype=np.int32),
                    np.array(starts, dtype=np.int32), np.array([s + len(w) for s, w in zip(starts, words, strict=True)],
                                                                  dtype=np.int32),
                    np.arange(n, dtype=np.int32), np.ones(n, dtype=bool), -1)


def test_gold_tags_decode_back_to_the_gold_spans():
    words = ["We", "apply", "speculative", "decoding", "to", "Qwen3", "8B", "on", "GSM8K", "."]
    text = " ".join(words)
    gold = [(text.index("speculative"), text.index(" to"), "Technique"),
            (text.index("Qwen3"), text.index(" on"), "Model"), (text.index("GSM8K"), text.index(" ."), "Dataset")]
    pieces = _pieces(words)
    tags = E.bio_tags(pieces, {1: gold})
    assert [E.TAGS[t] for t in tags] == ["O", "O", "B-Technique", "I-Technique", "O", "B-Model", "I-Model", "O",
                                         "B-Dataset", "O"]
    logits = np.full((len(words), len(E.TAGS)), -5.0, dtype=np.float32)
    logits[np.arange(len(words)), tags] = 5.0
    got = E.word_spans(pieces, logits, 1)
    assert [(s, e, lab) for s, e, lab, _ in got] == gold
    assert all(0.99 < c <= 1.0 for *_, c in got)


def _valid(path: tuple[int, ...]) -> bool:
    prev = "O"
    for t in path:
        tag = E.TAGS[t]
        if tag.startswith("I-") and prev[2:] != tag[2:]:
            return False
        prev = tag
    return True


def _spans_of(path: tuple[int, ...]) -> list[tuple[int, int, str]]:
    out, i = [], 0
    while i < len(path):
        tag = E.TAGS[path[i]]
        if tag == "O":
            i += 1
            continue
        j = i + 1
        while j < len(path) and E.TAGS[path[j]] == "I-" + tag[2:]:
            j += 1
        out.append((i, j, tag[2:]))
        i = j
    return out


@given(st.lists(st.lists(st.floats(-8, 0), min_size=len(E.TAGS), max_size=len(E.TAGS)), min_size=1, max_size=3))
def test_decoding_finds_the_best_sequence_in_which_inside_tags_continue_a_span(rows):
    import itertools

    lp = np.array(rows)
    best = max((p for p in itertools.product(range(len(E.TAGS)), repeat=len(rows)) if _valid(p)),
               key=lambda p: sum(lp[i, t] for i, t in enumerate(p)))
    best_score = sum(lp[i, t] for i, t in enumerate(best))
    got = [(a, b, lab) for a, b, lab, _ in E.decode(lp)]
    # the decoded spans are those of a valid sequence scoring as well as the best one
    candidates = [p for p in itertools.product(range(len(E.TAGS)), repeat=len(rows))
                  if _valid(p) and _spans_of(p) == got]
    assert candidates
    assert max(sum(lp[i, t] for i, t in enumerate(p)) for p in candidates) == pytest.approx(best_score)


@needs_encoder
def test_the_packaged_tokenizer_keeps_offsets_into_each_field():
    reader = E.PieceReader(E.DEFAULT_ENCODER / "tokenizer.json")
    title, abstract = "SAM: Segment Anything", "We train SAM on SA-1B with 11M images."
    p = reader.read(title, abstract)
    assert p.sep == len(p.of_field(0)) and p.ids[p.sep] == reader.sep
    for i in range(len(p)):
        if p.field[i] >= 0:
            text = title if p.field[i] == 0 else abstract
            assert text[p.start[i]:p.end[i]].lower().startswith(
                reader.tok.id_to_token(int(p.ids[i])).replace("##", "")[:1])
    a, b = p.span(1, abstract.index("SA-1B"), abstract.index("SA-1B") + 5)
    assert abstract[p.start[a]:p.end[b - 1]] == "SA-1B"
    assert p.shapes[p.of_field(0)[0]] == E.shape_id("SAM")


@needs_encoder
def test_a_paper_is_read_the_same_alone_and_in_any_window_layout():
    enc = E.load_encoder(str(E.DEFAULT_ENCODER))
    abstract = ("We propose FooNet, a graph neural network for molecule property prediction. " * 3).strip()
    one = enc.read("FooNet", abstract)
    again = enc.read("FooNet", abstract)
    assert one.spans == again.spans
    assert np.array_equal(one.hidden, again.hidden)


@needs_encoder
def test_long_text_is_read_in_windows_with_a_reading_for_every_piece():
    enc = E.load_encoder(str(E.DEFAULT_ENCODER))
    abstract = " ".join(f"We evaluate method M{i} on dataset D{i} with accuracy." for i in range(120))
    r = enc.read("", abstract)
    assert len(E.windows(len(r.pieces))) > 1
    assert not np.any(np.all(r.hidden == 0, axis=1))  # no piece left unread
    assert all(0 <= s < e <= len(abstract) for s, e, _, _ in r.spans[1])
