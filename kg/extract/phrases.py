"""Lower-case noun phrases that name techniques, tasks and metrics no lexicon lists.

Abstracts name most concepts as plain noun phrases: "linear function approximation",
"online reinforcement learning", "dot-product self-attention", "asymptotic variance",
"text-to-music generation". :func:`find_phrases` reads them without a parser: within a run of
words uninterrupted by punctuation it takes a head (the last words of a lexicon term, or a
head noun such as *learning*, *approximation*, *accuracy*) and extends it to the left over
modifiers, stopping at function words, verbs, adverbs and evaluative adjectives ("standard",
"efficient", "novel"). A phrase must add at least one modifier to its head; a bare lexicon
term is the lexicon's to find.

The label comes from the head: the lexicon term's label, else the head noun's.

>>> [(f.name, f.label) for f in find_phrases("we study online reinforcement learning with linear "
...                                          "function approximation and report test accuracy.")]
[('online reinforcement learning', 'Technique'), ('linear function approximation', 'Technique'), ('test accuracy', 'Metric')]
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from functools import lru_cache

from kg.extract import cues
from kg.extract.patterns import NOT_IN_NAMES, Found
from kg.text import singular

# head nouns (singular) -> label
HEADS = cues.labels("phrase_heads")
_NARROW = cues.groups("narrow_heads")  # heads that count only with one of their modifiers before them
# modifiers that describe rather than name ("standard dot-product self-attention" -> drop "standard")
NOT_MODIFIERS = NOT_IN_NAMES | cues.word_set("not_modifiers")
_WORD = re.compile(r"[A-Za-zΑ-Ωα-ωℓ0-9][\w'ℓ-]*")
_RUN = re.compile(rf"{_WORD.pattern}(?: {_WORD.pattern})*")  # words separated by single spaces
_SENT_END = re.compile(r"[.!?;:]\s*$")


@lru_cache(maxsize=1 << 16)
def _modifier(word: str, initial: bool, title: bool = False) -> str | None:
    """The modifier as it goes into the name, or None when the word cannot modify."""
    low = word.lower()
    if low in NOT_MODIFIERS or low.endswith("ly") or len(low) < 3 and not re.search(r"\d", low) and low != "k":
        return None
    if title and word[:1].isupper():  # "Sparse-View" in a Title Case title
        word = _untitle(word)
    if title and word[:1].isupper() and word[1:].islower() and word not in _EPONYMS:
        word, initial = low, False
    if word[:1].isupper() and not initial:
        return word if word[1:].islower() and word in _EPONYMS else None  # not "CLIP image embeddings"
    if "-" not in low and re.search(r"[^s]s$", low) and _singular(low) != low and low not in _S_WORDS:
        return None  # verbs and plurals ("improves", "methods") do not modify
    if re.fullmatch(r"\d+", low):
        return None
    if "-" not in low and low.endswith("ed") and low not in _ED_MODIFIERS:
        return None  # "reduced inference time", "established GFlowNet": descriptions, not names
    return low if initial and word[1:].islower() else word


_EPONYMS = cues.word_set("eponyms")
_ED_MODIFIERS = cues.word_set("ed_modifiers")  # -ed words that modify a noun inside a name
_S_WORDS = cues.word_set("s_nouns")  # -s words that are not plurals


_singular = lru_cache(maxsize=1 << 16)(singular)


def _key(words: list[str], keep_case: bool = False) -> str:
    """Index key of a phrase: lower case (unless ``keep_case``), hyphens as spaces, last word singular."""
    return _key_of(tuple(words), keep_case)


@lru_cache(maxsize=1 << 16)
def _key_of(words: tuple[str, ...], keep_case: bool) -> str:
    text = " ".join(words)
    parts = (text if keep_case else text.lower()).replace("-", " ").split()
    if parts:
        parts[-1] = _singular(parts[-1])
    return " ".join(parts)


class _Index:
    """Lexicon terms of the labels phrases extend, by :func:`_key`, and the longest term (in
    words) ending in each last word: a dictionary probe instead of a full lexicon lookup."""

    def __init__(self, lexicon):
        self.terms: dict[str, str] = {}
        self.before: dict[str, set[str]] = {}  # last part -> the parts seen right before it in a term
        lengths: dict[str, set[int]] = {}
        for entry, surface, cs in lexicon.patterns():
            if entry.label not in ("Technique", "Task", "Metric", "Method", "Dataset", "Software"):
                continue
            key = _key(surface.split(), keep_case=cs)  # "MAP" (the metric) is not "map"
            if not key:
                continue
            self.terms.setdefault(key, entry.label)
            lengths.setdefault(key.rsplit(" ", 1)[-1].lower(), set()).add(len(surface.split()))
            parts = key.lower().split()
            if len(parts) >= 2:
                self.before.setdefault(parts[-1], set()).add(parts[-2])
        # the lengths in words of the surface forms ending in each last word, longest first
        self.ends: dict[str, tuple[int, ...]] = {w: tuple(sorted(n, reverse=True)) for w, n in lengths.items()}

        self._can_end: dict[str, bool] = {}
        self._get1: dict[str, str | None] = {}

    def can_end(self, word: str) -> bool:
        """Whether a head (a lexicon term or a head noun) can end at ``word``; cached per word."""
        hit = self._can_end.get(word)
        if hit is None:
            lower = word.lower()
            hit = _singular(lower.rsplit("-", 1)[-1]) in self.ends or _singular(lower) in HEADS
            if len(self._can_end) < 500_000:
                self._can_end[word] = hit
        return hit

    def get(self, words: list[str]) -> str | None:
        hit = self.terms.get(_key(words))
        if hit is None and not all(w.islower() for w in words):
            hit = self.terms.get(_key(words, keep_case=True))
        return hit

    def get1(self, word: str) -> str | None:
        """:meth:`get` of one word, cached per word."""
        hit = self._get1.get(word, _MISSING)
        if hit is _MISSING:
            hit = self.get([word])
            if len(self._get1) < 500_000:
                self._get1[word] = hit
        return hit


_INDEXES: dict[int, _Index] = {}
_MISSING = object()


def _can_end_plain(word: str) -> bool:
    return _singular(word.lower()) in HEADS


def _index(lookup) -> _Index | None:
    lexicon = getattr(lookup, "__self__", None)
    if lexicon is None or not hasattr(lexicon, "patterns"):
        return None
    idx = _INDEXES.get(id(lexicon))
    if idx is None:
        idx = _INDEXES[id(lexicon)] = _Index(lexicon)
    return idx


def find_phrases(text: str, lookup: Callable[[str], object | None] | None = None) -> Iterator[Found]:
    """Noun phrases that extend a head with at least one modifier; ``lookup`` is the bound
    ``Lexicon.lookup`` of the lexicon whose terms serve as heads."""
    lookup = _index(lookup) if lookup is not None else None
    title = _looks_like_title(text)
    if lookup is not None:
        cached, can_end = lookup._can_end.get, lookup.can_end
    else:
        cached, can_end = {}.get, _can_end_plain
    for m in _RUN.finditer(text):  # a run: words separated by single spaces only
        words = m.group(0).split(" ")
        if not any((hit := cached(w)) or hit is None and can_end(w) for w in words):
            continue  # the common case: no head in the run
        run, pos = [], m.start()
        for w in words:
            run.append((pos, pos + len(w), w))
            pos += len(w) + 1
        yield from reversed(list(_phrases_in_run(text, run, lookup, title)))


_DETERMINERS = cues.word_set("noun_markers")
_BEFORE_VERB = cues.word_set("verb_markers")


def _phrases_in_run(text: str, run: list[tuple[int, int, str]], lookup, title: bool = False) -> Iterator[Found]:
    if lookup is not None:  # the cached answers first: this runs for every word of every abstract
        cached, can_end = lookup._can_end.get, lookup.can_end
        ends_here = [e for e in range(len(run), 1, -1)
                     if (hit := cached(run[e - 1][2])) or hit is None and can_end(run[e - 1][2])]
    else:
        ends_here = [e for e in range(len(run), 1, -1) if _can_end_plain(run[e - 1][2])]
    # (a head that opens its run has no modifier before it: it never makes a phrase)
    if not ends_here:
        return  # the common case: no head in the run
    initial0 = run[0][0] == 0 or bool(_SENT_END.search(text[max(0, run[0][0] - 3) : run[0][0]]))
    taken = len(run)  # phrases do not overlap: scan heads right to left
    for e in ends_here:
        if e > taken:
            continue
        base, label, head = _head(run, e, lookup, title)
        if base is None:
            continue
        k = base
        mods: list[str] = []
        while k > 0 and len(mods) < 3:
            mod = _modifier(run[k - 1][2], initial0 and k - 1 == 0, title)
            if mod is None:
                break
            if head in _NARROW and not mods and mod.lower() not in _NARROW[head]:
                break
            mods.insert(0, mod)
            k -= 1
        while mods and (mods[0].endswith("ing") and "-" not in mods[0] or mods[0] in _VERBISH) and not (
                k > 0 and run[k - 1][2].lower() in _DETERMINERS) and not (  # "for learning tree ensembles": a verb
                len(mods) == 1 and head in _NARROW):  # "speed up training time": the noun the head needs
            if not mods[0].endswith("ing") and (k > 0 and run[k - 1][2].lower() not in _BEFORE_VERB
                                                or k == 0 and _after_number(text, run[0][0])):
                break  # "99% test accuracy": a number measures a noun
            mods.pop(0)
            k += 1
        if not mods and e - base >= 2:  # a bare lexicon term can still share its head with a conjunct
            conj = _conjunct(run, k, [run[k][2]], head, initial0, title)
            if conj is not None:
                words = _name_words(text, run, k, e, initial0, title)
                yield Found(run[k - 2][0], run[k - 2][1], " ".join([conj, *words[1:]]),
                            lookup.get([conj, *words[1:]]) or label, "noun-phrase")
                taken = k - 2
            continue
        if not mods or head in _NARROW and mods[-1].lower() not in _NARROW[head]:
            continue
        if lookup is not None and e - k >= 3 and run[e - 1][2].lower() in _GENERIC_TAILS \
                and lookup.get([w for _, _, w in run[k : e - 1]]):
            continue  # "the information bottleneck principle": the lexicon's term, without the generic word
        words = _name_words(text, run, k, e, initial0, title)
        conj = _conjunct(run, k, mods, head, initial0, title)
        if conj is not None:  # "text-to-music and text-to-audio generation"
            conj_words = [conj, *words[1:]]
            conj_label = lookup.get(conj_words) if lookup is not None else None
            yield Found(run[k - 2][0], run[k - 2][1], " ".join(conj_words), conj_label or label, "noun-phrase")
        if lookup is not None and lookup.get([w for _, _, w in run[k:e]]):
            taken = k - 2 if conj is not None else taken
            continue  # the lexicon knows the whole phrase
        yield Found(run[k][0], run[e - 1][1], " ".join(words), label, "noun-phrase")
        taken = k - 2 if conj is not None else k


# generic last words that add nothing to a known term before them
_GENERIC_TAILS = cues.word_set("generic_tails")


def _name_words(text: str, run, k: int, e: int, initial0: bool, title: bool) -> list[str]:
    """The words of the phrase ``run[k:e]`` as they go into its name: the last one singular."""
    words = text[run[k][0] : run[e - 1][1]].split(" ")
    if initial0 and k == 0 and words[0][1:].islower():
        words[0] = words[0].lower()
    if title:  # "Sparse-View 3D Modeling" -> "sparse-view 3D modeling"
        words = [_untitle(w) for w in words]
    parts = re.split(r"(-)", words[-1])
    parts[-1] = _singular(parts[-1])
    words[-1] = "".join(parts)
    return words


def _conjunct(run, k: int, mods: list[str], head: str, initial0: bool, title: bool) -> str | None:
    """``A and B X`` where ``B X`` is the phrase from ``k``: the modifier A that shares B's head
    when A and B are parallel ("instance-level and set-level", "autoregressive and
    non-autoregressive"), else None."""
    if k < 2 or run[k - 1][2] not in ("and", "or"):
        return None
    a = _modifier(run[k - 2][2], initial0 and k - 2 == 0, title)
    if a is None or a.endswith("-") or a.endswith("ing") and "-" not in a:  # "first- and second-order"
        return None
    if title:
        a = _untitle(a)
    al, bl = a.lower(), mods[0].lower()
    if not ("-" in al and "-" in bl or bl.endswith("-" + al) or al.endswith("-" + bl)) or al == bl:
        return None
    if head in _NARROW and len(mods) == 1 and al not in _NARROW[head]:
        return None
    return a


def _after_number(text: str, start: int) -> bool:
    """The text right before ``start`` ends in a number or a percentage ("99% ", "4 ")."""
    before = text[max(0, start - 3) : start].rstrip()
    return bool(before) and (before[-1].isdigit() or before[-1] == "%")


def _untitle(word: str) -> str:
    return "-".join(p.lower() if p[1:].islower() and p not in _EPONYMS else p for p in word.split("-"))


def _looks_like_title(text: str) -> bool:
    """Title Case text: short, no final full stop, most long words capitalised."""
    if len(text) > 300 or text.rstrip().endswith("."):
        return False
    long_words = [w for w in re.findall(r"[A-Za-z][\w'-]*", text) if len(w) >= 4]
    return bool(long_words) and sum(w[0].isupper() for w in long_words) >= 0.6 * len(long_words)


# verbs that look like adjectives or nouns; as the first modifier after "to", "we", ... they are verbs
_VERBISH = cues.word_set("verbish_modifiers")


@lru_cache(maxsize=1 << 16)
def _facts(word: str) -> tuple[str, str, str]:
    """Of a possible head word: lower case, head noun (singular unless mixed case), last part."""
    lower = word.lower()
    low = _singular(lower) if word.islower() or word[1:].islower() else word
    return lower, low, _singular(lower.rsplit("-", 1)[-1])


def _head(run, e: int, lookup, title: bool = False) -> tuple[int | None, str, str]:
    """Where the head ending at word ``e`` starts, its label and head noun."""
    last = run[e - 1][2]
    lower, low, last_part = _facts(last)
    if title and last[1:].islower():
        last = lower
    if lookup is not None:
        ends = lookup.ends.get(last_part, ())
        # a longer term needs the word before to be one a term has there (most do not)
        longer = ends and ("-" in lower or e >= 2 and run[e - 2][2].lower().rsplit("-", 1)[-1]
                           in lookup.before.get(last_part, ()))
        for k in ends:
            if k > e or k > 1 and not longer:
                continue
            label = lookup.get1(run[e - 1][2]) if k == 1 else lookup.get([w for _, _, w in run[e - k : e]])
            if label in ("Technique", "Task", "Metric"):
                if k == 1 and low in _NARROW:
                    break
                return e - k, label, low
    if low in HEADS and last[:1].islower():
        return e - 1, HEADS[low], low
    return None, "", low
