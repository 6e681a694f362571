"""Pure finders over plain text: URLs, model names, acronym definitions, name-shaped words.

No spaCy here: each finder takes a string and yields character offsets, so it is easy to
test and reuse.

>>> [u.name for u in find_urls("code at https://github.com/a/B-c. and \\\\url{x}")]
['github.com/a/B-c']
>>> long_form("LLM", "reasoning of Large Language Models")
'Large Language Models'
>>> is_name_shaped("SpecForge"), is_name_shaped("Retro-Expert"), is_name_shaped("RGBD")
(True, True, False)
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from kg.extract import cues

# ---------------------------------------------------------------- URLs

_URL = re.compile(
    r"(?:https?://|www\.|(?<![\w./@-])(?=(?:github|gitlab|bitbucket)\.(?:com|org)/|huggingface\.co/"
    r"|[\w-]+\.(?:github|gitlab)\.io\b))"
    r"[^\s<>\"'{}|\\^`\[\]]+"
)
_URL_TRAIL = ".,;:!?)]}'\"*"
#: hosts of papers, not code: an arXiv abstract or PDF, a DOI, an OpenReview forum
_PAPER_HOSTS = re.compile(r"^(?:(?:export\.)?arxiv\.org|(?:dx\.)?doi\.org|openreview\.net|aclanthology\.org)(?:/|$)")


@dataclass(frozen=True, slots=True)
class Found:
    start: int
    end: int
    name: str  # canonical name
    label: str = ""
    rule: str = ""
    props: tuple[tuple[str, str], ...] = ()


def normalize_url(url: str) -> str:
    """``https://www.GitHub.com/a/b/`` -> ``github.com/a/b``: the canonical repository name."""
    u = re.sub(r"^https?://", "", url.strip(), flags=re.I)
    u = re.sub(r"^www\.", "", u, flags=re.I)
    host, _, path = u.partition("/")
    u = host.lower() + ("/" + path if path else "")
    u = re.sub(r"\.git$", "", u.rstrip("/"))
    return u.rstrip("/")


def find_urls(text: str) -> Iterator[Found]:
    for m in _URL.finditer(text):
        url = m.group(0)
        while url and url[-1] in _URL_TRAIL:
            if url[-1] == ")" and url.count("(") >= url.count(")"):
                break
            url = url[:-1]
        if "." not in url or len(url) < 8 or _PAPER_HOSTS.match(normalize_url(url)):
            continue
        yield Found(m.start(), m.start() + len(url), normalize_url(url), "Repository", "url",
                    (("url", url if "://" in url else "https://" + url),))


# ---------------------------------------------------------------- model names

_SIZE = r"\d+(?:\.\d+)?(?:[xX]\d+(?:\.\d+)?)?[BMKT]"
_PART = (r"(?:" + _SIZE + r"|A\d+(?:\.\d+)?B|v?\d+(?:\.\d+)*[a-z]?|VL|Instruct|Chat|Base|base|Coder|Math|"
         r"Mini|mini|Pro|Turbo|Flash|Large|large|Medium|medium|Small|small|Tiny|tiny|XL|XXL|"
         r"Nano|nano|Lite|Distill|Preview|Omni|Vision|Thinking|It|it|hf|HF|Sonnet|Opus|Haiku|"
         r"[Oo]|R1|V\d+(?:\.\d+)?)")
_TAIL = r"(?:(?:[-_]|(?<=[A-Za-z])(?=\d))" + _PART + r"|\s(?=" + _SIZE + r"\b)" + _SIZE + r")*"
_GENERIC_MODEL = re.compile(r"(?<![\w.-])([A-Z][A-Za-z]{2,}\d*(?:\.\d+)?(?:-[A-Z][A-Za-z]+)?)-(" + _SIZE + r")(?![\w-])")
_SIZE_RE = re.compile(r"^" + _SIZE + r"$")
_SIZED = re.compile(r"\d[BMKT]")
_VARIANT_WORD = re.compile(r"^(?:VL|Instruct|Chat|Base|Coder|Math|Mini|Pro|Turbo|Flash|Omni|Vision|Audio|Lite|Nano)$")
_VERSION_RE = re.compile(r"^v?\d+(?:\.\d+)*[a-z]?$")


def _trie(words: list[str]) -> str:
    """One regex for ``words`` as a trie of characters, a hyphen or a space matching either.

    Matches what the alternation of the words, longest first, matches: words that match at one
    place lie on one path, and a longer continuation is tried before a shorter one. Python's
    engine tries alternatives one by one, so 445 family names as a flat alternation cost a try
    each at every capitalised word; the trie costs one per character.

    >>> re.fullmatch(_trie(["Llama 2", "Llama", "LLaVA"]), "Llama-2") is not None
    True
    """
    root: dict = {}
    for w in words:
        node = root
        for ch in w:
            node = node.setdefault("-" if ch in "- " else ch, {})
        node[""] = {}

    def emit(node: dict) -> str:
        alts = [("[-\\s]" if ch == "-" else re.escape(ch)) + emit(node[ch]) for ch in sorted(node) if ch]
        if "" in node and alts:
            alts.append("")  # ending here is tried last: the longer name first
        if len(alts) <= 1:
            return alts[0] if alts else ""
        return "(?:" + "|".join(alts) + ")"

    return emit(root)


class ModelFinder:
    """Finds model names that start with a known family and parses their parts."""

    def __init__(self, families: dict[str, str], parents: dict[str, str] | None = None):
        """``families`` maps each surface form of a family to its canonical family name;
        ``parents`` maps a family to its broader family (``Qwen2.5-VL`` -> ``Qwen2.5``), so a
        family that is its parent plus a variant word is split into the two."""
        self.families = families
        self.parents = parents or {}
        alts = sorted(families, key=len, reverse=True)
        body = _trie(alts)
        firsts = "".join(sorted({re.escape(a[0]) for a in alts}))
        # the lookahead on first letters lets the engine skip most positions cheaply
        self._re = re.compile(r"(?<![\w.-])(?=[" + firsts + r"])(" + body + r")(" + _TAIL + r")(?![\w])") \
            if alts else None
        self._canon = {re.sub(r"[-\s]", " ", k): v for k, v in families.items()}

    def find(self, text: str) -> Iterator[Found]:
        seen: set[int] = set()
        if self._re is not None:
            for m in self._re.finditer(text):
                fam_surface, tail = m.group(1), m.group(2)
                family = self._canon.get(re.sub(r"[-\s]", " ", fam_surface), fam_surface)
                seen.add(m.start())
                parent = self.parents.get(family)
                if parent and family.startswith(parent + "-") and _VARIANT_WORD.match(family[len(parent) + 1 :]) \
                        and fam_surface.startswith(parent):
                    fam_surface, tail = parent, fam_surface[len(parent):] + tail
                    family = parent
                f = self._parse(m.start(), m.end(), m.group(0), family, fam_surface, tail)
                if not f.props:  # a bare family name: a lexicon Method or Technique of that name wins
                    f = Found(f.start, f.end, f.name, f.label, "model-generic", f.props)  # (ResNet, ViT)
                yield f
        for m in _GENERIC_MODEL.finditer(text) if _SIZED.search(text) else ():  # (a size needs a digit then B/M/K/T)
            if m.start() not in seen and m.group(2)[-1] in "BM":
                f = self._parse(m.start(), m.end(), m.group(0), m.group(1), m.group(1), "-" + m.group(2))
                yield Found(f.start, f.end, f.name, f.label, "model-generic", f.props)

    @staticmethod
    def _parse(start: int, end: int, surface: str, family: str, fam_surface: str, tail: str) -> Found:
        parts = [p for p in re.split(r"[-_\s]", tail) if p]
        props: dict[str, str] = {}
        if tail and tail[0] not in "-_ " and parts and _VERSION_RE.match(parts[0]):
            family = fam_surface + parts.pop(0)  # "Qwen" + "4" -> family "Qwen4"
        variant = []
        for p in parts:
            if _SIZE_RE.match(p) and "size" not in props:
                props["size"] = p
            elif _VERSION_RE.match(p) and "version" not in props and not variant:
                props["version"] = p
            else:
                variant.append(p)
        if variant:
            props["variant"] = "-".join(variant)
        if parts or family != fam_surface:
            props["family"] = family
        name = re.sub(r"\s+", " ", surface)
        return Found(start, end, name if parts else family, "Model", "model-name", tuple(sorted(props.items())))


# ---------------------------------------------------------------- acronyms

_SHORT = re.compile(r"\(\s*([A-Za-zΑ-Ω][\w²³¹⁰-⁹&+./-]{0,11}?)\s*\)")


def is_short_form(sf: str) -> bool:
    core = sf[:-1] if sf.endswith("s") and sum(c.isupper() for c in sf) >= 2 else sf
    upper = sum(c.isupper() for c in core)
    return len(core) >= 2 and upper >= 2 and upper * 3 >= len(core.replace("-", ""))


def acronym_core(sf: str) -> str:
    """``LLMs`` -> ``LLM``: the singular of an acronym."""
    if len(sf) > 2 and sf.endswith("s") and sf[-2].isupper():
        return sf[:-1]
    return sf


def long_form(sf: str, before: str) -> str | None:
    """Schwartz & Hearst (2003): the shortest tail of ``before`` whose letters spell ``sf``."""
    s = [c for c in acronym_core(sf).lower() if c.isalnum()]
    if len(s) < 2:
        return None
    lf = _spell(s, sf, before)
    if lf is None and any(c in "24" for c in s):  # UP2ME: "Pre-training to Multivariate", 2 = "to"
        lf = _spell([{"2": "t", "4": "f"}.get(c, c) for c in s], sf, before)
        if lf is not None and not re.search(r"\b(?:to|two|for|four)\b", lf, re.I):
            return None
    return lf


def _spell(s: list[str], sf: str, before: str) -> str | None:
    words = before.split()
    limit = min(len(s) + 5, len(s) * 2)
    text = " ".join(words[-limit:])
    low = text.lower()
    si, li = len(s) - 1, len(low) - 1
    while si >= 0:
        c = s[si]
        while li >= 0 and (low[li] != c or (si == 0 and li > 0 and low[li - 1].isalnum())):
            li -= 1
        if li < 0:
            return None
        si -= 1
        li -= 1
    start = max(low.rfind(" ", 0, li + 1), low.rfind("-", 0, li + 1) if False else -1) + 1
    lf = re.split(r"[—–]", text[start:])[-1].strip(" ,;:-")
    if not lf or lf.lower() == sf.lower() or len(lf) <= len(sf) or any(c in lf for c in "()[]"):
        return None
    caps = sum(1 for c in sf if c.isupper() or c.isdigit())
    if len(lf.split()) > max(caps, 1) + 2:  # letters scattered over a whole clause: not a definition
        return None
    return lf


@dataclass(frozen=True, slots=True)
class Acronym:
    long_start: int
    long_end: int
    long: str
    short_start: int
    short_end: int
    short: str


def leading_long_form(sf: str, after: str) -> str | None:
    """The reverse case, ``SF (Long Form)`` or ``SF: Long Form``: the longest prefix of
    ``after`` (up to a few words more than the acronym has letters) whose words spell ``sf``."""
    words = after.split()
    best = None
    n = sum(1 for c in acronym_core(sf) if c.isupper() or c.isdigit())
    for k in range(2, min(len(words), n + 3) + 1):
        cand = " ".join(words[:k]).rstrip(",;:.)")
        if cand and cand[0].lower() == acronym_core(sf)[0].lower() and long_form(sf, cand) == cand \
                and acronym_core(sf)[-1].lower() in words[k - 1].lower():  # the last word spells a letter
            best = cand
    return best


_LONG_IN_PARENS = re.compile(r"(?<![\w-])([A-Za-z][\w²³-]{1,11})\s*\(([A-Za-z][^()]{4,80})\)")


_OPEN_QUOTES, _CLOSE_QUOTES = "\"“‘", "\"”’"


def find_acronyms(text: str, sentences: Iterable[tuple[int, int]]) -> Iterator[Acronym]:
    """``Long Form (LF)`` and ``LF (Long Form)`` definitions within sentences ((start, end)).
    Quotes around a long form (``"Binarized BackPropagation" (BBP)``) are not part of it."""
    for ac in _acronyms(text, sentences):
        lf = ac.long.lstrip(_OPEN_QUOTES)
        start = ac.long_start + len(ac.long) - len(lf)
        lf = lf.rstrip(_CLOSE_QUOTES)
        if len(lf) >= 2:
            yield Acronym(start, start + len(lf), lf, ac.short_start, ac.short_end, ac.short)


def _acronyms(text: str, sentences: Iterable[tuple[int, int]]) -> Iterator[Acronym]:
    for s0, s1 in sentences:
        sent = text[s0:s1]
        # each pattern needs a literal ("(", a naming word, ","): checking for it first is exact
        # and skips most sentences without running the pattern
        parens = "(" in sent
        for m in _SHORT.finditer(sent) if parens else ():
            sf = m.group(1)
            if not is_short_form(sf):
                continue
            lf = long_form(sf, sent[: m.start()])
            if lf is None:
                continue
            lf_end = s0 + len(sent[: m.start()].rstrip())
            yield Acronym(lf_end - len(lf), lf_end, lf, s0 + m.start(1), s0 + m.end(1), sf)
        for m in _LONG_IN_PARENS.finditer(sent) if parens else ():
            sf, inner = m.group(1), m.group(2)
            if not is_short_form(sf) or len(inner.split()) < 2:
                continue
            lf = leading_long_form(sf, inner)
            if lf is not None and lf == inner.strip():
                start = s0 + m.start(2)
                yield Acronym(start, start + len(lf), lf, s0 + m.start(1), s0 + m.end(1), sf)
        named = any(w in sent for w in _NAMING_WORDS)
        for m in _NAMED_SHORT.finditer(sent) if named else ():  # "federated ... optimization, named FADAS"
            sf = m.group(1)
            if not is_short_form(sf):
                continue
            before = sent[: m.start()].rstrip()
            lf = long_form(sf, before)
            if lf is not None and before.endswith(lf) and _plain_long_form(lf, sf):
                yield Acronym(s0 + len(before) - len(lf), s0 + len(before), lf, s0 + m.start(1), s0 + m.end(1), sf)
        for m in _SHORT_THEN_LONG.finditer(sent) if "," in sent else ():  # "GAPN, a Generative ..."
            sf = m.group(1)
            if not is_short_form(sf):
                continue
            lf = leading_long_form(sf, sent[m.end():])
            if lf is not None and _plain_long_form(lf, sf) and all(  # a proper name, not a description
                    w[:1].isupper() or w in _SMALL_WORDS for w in re.split(r"[\s-]+", lf)):
                yield Acronym(s0 + m.end(), s0 + m.end() + len(lf), lf, s0 + m.start(1), s0 + m.end(1), sf)


_SMALL_WORDS = cues.word_set("name_glue")


def _plain_long_form(lf: str, sf: str) -> bool:
    """A long form found without brackets must read as a name: no acronym inside ("structural
    uses of WAEs"), not ending in a function word ("The proposed method is"), and one word per
    letter or so ("Exposure" does not spell EOE)."""
    words = lf.split()
    caps = sum(c.isupper() for c in sf)
    return not any(len(w) >= 2 and acronym_core(w).isupper() for w in words) \
        and words[-1].lower() not in {"is", "are", "was", "were", "be", "the", "a", "an", "of", "and", "to", "for",
                                      "in", "on", "with", "by", "we", "our", "this", "that"} \
        and len(re.split(r"[\s-]+", lf)) >= min(caps, 3) - 1 and words[0].lower() not in {"the", "this", "these", "our"}


_NAMING_PHRASES = cues.words("acronym_naming")
_NAMED_SHORT = re.compile(r",?\s+(?:" + "|".join(map(re.escape, _NAMING_PHRASES))
                          + r")\s+(?:as\s+)?([A-Za-zΑ-Ω][\w²³-]{1,11})(?![\w-])")
_NAMING_WORDS = tuple(dict.fromkeys(p.split()[0] for p in _NAMING_PHRASES))  # a cheap test before the regex
_SHORT_THEN_LONG = re.compile(r"(?<![\w-])([A-ZΑ-Ω][\w²³-]{1,11}),\s+(?:(?:a|an|the)\s+|(?:a|an|the)(?=[A-Z][a-z]))?")


# ---------------------------------------------------------------- name-shaped words

_WORD = re.compile(r"(?<![\w-])[A-Za-z][\w²³¹⁰-⁹]*(?:[-+][\w²³¹⁰-⁹]+)*(?![\w])")
_CAMEL = re.compile(r"[a-z][A-Z]|[A-Z]{2}[a-z]")
_STOP_NAMES = cues.word_set("stop_names")
_HARDWARE = re.compile(r"[AHVLTBP]\d{2,3}[A-Z]?|(?:RTX|GTX)\d{3,4}(?:Ti)?|TX[12]|M[1-4]")


def is_name_shaped(word: str) -> bool:
    """Looks like a coined name: CamelCase, letters with digits, or Capitalised-Hyphenated."""
    if word in _STOP_NAMES or len(word) < 3 or re.fullmatch(r"[A-Z]{2,}s", word) or _HARDWARE.fullmatch(word):
        return False  # ANNs: a plural acronym; A100, RTX4090: hardware
    letters = [c for c in word if c.isalpha()]
    if not letters:
        return False
    if re.fullmatch(r"(?:a|an|the)[A-Z][a-z]+", word):  # "aGenerative": a space lost in the source
        return False
    if all(c.isupper() for c in letters):  # ALLCAPS: an acronym unless it carries a digit part
        return bool(re.search(r"[A-Z]-?[\d²³¹⁰-⁹]", word)) and not re.fullmatch(r"[A-Z]\d", word) \
            or _acronym_compound(word)
    if any(_CAMEL.search(p) for p in word.split("-")):
        return True
    if _acronym_compound(word):
        return True
    if "-" in word:
        parts = [p for p in word.split("-") if p]
        return len(parts) >= 2 and all(p[0].isupper() or p[0].isdigit() for p in parts) \
            and any(p[0].isupper() for p in parts[1:])
    return bool(re.search(r"[A-Za-z]\d|\d[A-Za-z]", word)) and word[0].isupper()


_NOT_NAME_PARTS = cues.word_set("not_name_parts")


def _acronym_compound(word: str) -> bool:
    """``RGIB-SSL``, ``LSVI-UCB``, ``meta-VBO``, ``opt-HSIC``: a hyphenated name with an acronym
    part, not an acronym used as a modifier ("SGD-based", "LLM-generated", "non-IID")."""
    parts = word.split("-")
    if not 2 <= len(parts) <= 3 or any(len(p) < 2 for p in parts) \
            or not any(p.isupper() and p.isalpha() for p in parts):
        return False
    words = [p.lower() for p in parts if not p.isupper()]
    return not any(p in _NOT_NAME_PARTS or p.endswith(("ed", "ing")) for p in words)


def is_strong_name(word: str) -> bool:
    """Name-shaped by its letters alone (CamelCase, digits), not just by Capitalised-Hyphens,
    which title case and sentence starts produce everywhere ("Zero-Shot", "Large-Scale")."""
    return is_name_shaped(word) and not (
        "-" in word and not any(_CAMEL.search(p) for p in word.split("-"))
        and not re.search(r"[A-Za-z]\d|\d[A-Za-z]|[A-Z]-?\d", word)
        and not all(p.isupper() for p in word.split("-") if p) and not _acronym_compound(word))


def find_names(text: str) -> Iterator[Found]:
    """Coined names; Capitalised-Hyphenated ones are weak (kept only when proposed)."""
    for m in _WORD.finditer(text):
        w = m.group(0)
        if w.islower() or w[1:].islower() and "-" not in w:
            continue  # plain words: the common case, skipped before the full test
        if is_name_shaped(w):  # "StrWAEs" names StrWAE
            yield Found(m.start(), m.end(), acronym_core(w), name_label(w),
                        "name-shape" if is_strong_name(w) else "name-weak")


_DATASET_SUFFIX = re.compile(r"(?:[Bb]ench|BENCH|QA|Eval|EVAL|-\d+[Kk])$")
_METRIC_SUFFIX = re.compile(r"(?:Score|-score|SCORE)$")


def name_label(word: str) -> str:
    """The label a coined name's ending implies: benchmarks (T2I-CompBench, HotpotQA,
    CRUXEval), scores (TM-Score, CLIPScore); otherwise Method.

    >>> [name_label(w) for w in ["MMT-Bench", "TM-Score", "FreTS"]]
    ['Dataset', 'Metric', 'Method']
    """
    if _DATASET_SUFFIX.search(word) and len(word) > 4:
        return "Dataset"
    if _METRIC_SUFFIX.search(word) and len(word) > 5:
        return "Metric"
    return "Method"


# ---------------------------------------------------------------- task phrases

TASK_HEADS = cues.words("task_heads")
#: words that never stand inside a name; shared with the noun-phrase finder (kg/extract/phrases.py)
NOT_IN_NAMES = cues.word_set("not_in_names")
_TASK = re.compile(r"(?<![\w-])((?:[a-z][a-z0-9-]*\s+){1,3}(?:" + "|".join(TASK_HEADS) + r"))(?![\w-])")
_VERBISH = re.compile(r"(?:ing|ate|ize|ise|ify|ed)$")
_NOT_TASK_MODIFIERS = cues.word_set("not_task_modifiers") | NOT_IN_NAMES
_TASK_HEAD = re.compile(r"(?<=\s)(?:" + "|".join(TASK_HEADS) + r")(?![\w-])")
_RUN_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789-")


def _task_matches(text: str) -> Iterator[re.Match]:
    """What ``_TASK.finditer(text)`` finds, about 3x faster: the pattern is tried only where a
    match can start, at the first, second or third word before a head word (it spends most of
    its time failing at every other lower-case word). Leftmost first, without overlaps."""
    pos = 0
    for hm in _TASK_HEAD.finditer(text):
        h = hm.start()
        if h < pos:
            continue
        starts, i = [], h
        for _ in range(3):  # the words before the head, right to left
            j = i
            while j > 0 and text[j - 1].isspace():
                j -= 1
            if j == i:
                break
            k = j
            while k > 0 and not text[k - 1].isspace():
                k -= 1
            r = j
            while r > k and text[r - 1] in _RUN_CHARS:
                r -= 1
            starts.append(r)
            if r != k:  # "(object": no word further left joins the phrase
                break
            i = k
        for start in reversed(starts):
            if start >= pos and (m := _TASK.match(text, start)):
                yield m
                pos = m.end()
                break


def find_task_phrases(text: str) -> Iterator[Found]:
    """Lower-case noun phrases headed by a task word: "retrosynthesis prediction",
    "video super-resolution", "graph decomposition". Leading function words and vague
    adjectives are trimmed; at least one content modifier must remain."""
    for m in _task_matches(text):
        words = m.group(1).split()
        start = m.start(1)
        while len(words) > 1 and (words[0] in _NOT_TASK_MODIFIERS or _VERBISH.search(words[0])):
            start += len(words[0])
            start = text.index(words[1], start)
            words = words[1:]
        if len(words) < 2 or any(w in _NOT_TASK_MODIFIERS for w in words[:-1]):
            continue
        yield Found(start, m.end(1), " ".join(words), "Task", "task-phrase")
