"""The spaCy pipeline: a blank English tokenizer, the sentencizer, and kg's own components.

Why a blank pipeline rather than ``en_core_web_sm``: the entities kg needs (methods,
techniques, models, datasets, ...) are not among a pretrained pipeline's 18 OntoNotes types,
so its NER would be discarded; its tagger and parser would cost about 6x the tokenizer's time
(measured: ~6k words/s for the full small pipeline vs ~72k for the tokenizer on 2 cores)
for a modest gain in candidate spans. Rules over the tokenizer, a PhraseMatcher over curated
lexicons and regex finders for model names, URLs and acronym definitions give the precision
we need at tokenizer speed, and install from the package registry with no model download.

Components, in order (each annotates the Doc in place):

- ``kg_sentences``: sentence boundaries (evidence is a sentence), by punctuation rules.
- ``kg_lexicon``: PhraseMatcher over ``schema/lexicons`` -> ``doc.spans["kg_lexicon"]``.
- ``kg_patterns``: URLs, model names, acronym definitions, name-shaped words ->
  ``doc.user_data["kg_found"]``.
- ``kg_ner`` (optional, ``KG_NER_MODEL=DIR`` or ``--ner DIR``): a trained span model's
  Method/Task/Dataset spans -> ``doc.user_data["kg_ner"]`` (see ``kg/extract/ner.py``).
- ``kg_entities``: merges candidates, types acronym long forms -> ``doc.spans["kg"]``
  (label = entity type, kb_id = canonical name).
- ``kg_relations``: what the paper proposes, comparisons -> ``doc.user_data["kg_rel"]``.
"""

from __future__ import annotations

import dataclasses
import re
from functools import cache
from pathlib import Path

import spacy
from spacy.language import Language
from spacy.matcher import PhraseMatcher
from spacy.tokens import Doc, Span

from kg.calibration import CALIBRATION_FILE
from kg.extract import cues, rules
from kg.extract.docutil import TextKeepingTokenizer, doc_text, sentences, set_sentences
from kg.extract.names import EPONYMS, canonical_long_form, lower_common_words, stoplist  # noqa: F401  (public here too)
from kg.extract.patterns import (
    Found,
    ModelFinder,
    acronym_core,
    find_acronyms,
    find_names,
    find_task_phrases,
    find_urls,
)
from kg.extract.phrases import find_phrases
from kg.lexicon import Lexicon, lexicon_at
from kg.schema import LEXICON_DIR, SCHEMA_DIR
from kg.text import fold, singular

PIPELINE_VERSION = "rules-3"


def pipeline_id(ner_model: Path | str | None = None, spans_model: Path | str | None = None,
                encoder: Path | str | None = None, lexicon_dir: Path | str = LEXICON_DIR) -> str:
    """What made an extraction: the parts (``rules-3``, ``+spans-1`` with kg's span model,
    ``+encoder-1`` with the contextual encoder, ``+ner-scier-1`` with the optional SciER one)
    and, after ``@``, a hash of the content that decides what is extracted: the weights of
    every model used, the lexicons and the rules' cue words. So an incremental build never
    mixes the extractions of two extractors, even when only a lexicon or a weight changed."""
    out = PIPELINE_VERSION
    folders: list[Path] = [Path(lexicon_dir), SCHEMA_DIR / "cues"]
    if spans_model:
        from kg.extract.spans import SPANS_VERSION

        out += f"+spans-{SPANS_VERSION}"
        folders.append(Path(spans_model))
    if encoder:
        from kg.extract.encoder import ENCODER_VERSION

        out += f"+encoder-{ENCODER_VERSION}"
        folders.append(Path(encoder))
    if ner_model:
        from kg.extract.ner import NER_VERSION

        out += f"+ner-scier-{NER_VERSION}"
        folders.append(Path(ner_model))
    files = [SCHEMA_DIR / n for n in ("stoplist.txt", "role_cues.txt", "spelling.txt")]
    files.append(CALIBRATION_FILE)  # scores calibrated otherwise are other scores (absent: as before)
    return f"{out}@{content_hash(tuple(str(f) for f in folders), tuple(str(f) for f in files))}"


@cache
def content_hash(folders: tuple[str, ...], files: tuple[str, ...] = ()) -> str:
    """A short SHA-256 over the files of ``folders`` (relative paths and bytes, in sorted
    order) and of ``files``: the same content hashes the same wherever it is installed."""
    import hashlib

    h = hashlib.sha256()
    for i, folder in enumerate(folders):
        root = Path(folder)
        for path in sorted(p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
            h.update(f"{i}:{path.relative_to(root).as_posix()}\0".encode())
            h.update(path.read_bytes())
    for f in files:
        p = Path(f)
        if p.is_file():
            h.update(f"{p.name}\0".encode())
            h.update(p.read_bytes())
    return h.hexdigest()[:12]


@Language.component("kg_sentences")
def sentence_bounds(doc: Doc) -> Doc:
    """Sentence bounds by punctuation rules, cached for the other components (cheaper than
    the sentencizer plus ``Doc.sents``, which build a Token object per token)."""
    return set_sentences(doc)


@Language.factory("kg_lexicon", default_config={"lexicon_dir": str(LEXICON_DIR)})
def make_lexicon_matcher(nlp: Language, name: str, lexicon_dir: str) -> LexiconMatcher:
    return LexiconMatcher(nlp, lexicon_at(lexicon_dir))


class LexiconMatcher:
    """Marks every surface form of a curated entry; acronyms match case-sensitively."""

    def __init__(self, nlp: Language, lexicon: Lexicon):
        self.lower = PhraseMatcher(nlp.vocab, attr="LOWER")
        self.exact = PhraseMatcher(nlp.vocab, attr="ORTH")
        self.keys: dict[str, tuple[str, str]] = {}
        seen: dict[tuple[str, bool], str] = {}
        groups: dict[tuple[str, bool], list[Doc]] = {}
        # Pattern docs are made in a scratch vocabulary (matching compares string hashes, which
        # are the same in any vocabulary): the 60k surface forms kept in the shared one made
        # the tokenizer about 50% slower on every abstract afterwards (measured).
        make_doc = spacy.blank(nlp.lang).make_doc
        for entry, surface, cs in lexicon.patterns():
            if entry.label == "Model":
                continue  # model names are parsed by the model finder
            skey = (surface if cs else surface.lower(), cs)
            if skey in seen:
                continue
            key = f"{entry.label}\t{entry.name}"
            seen[skey] = key
            self.keys[key] = (entry.label, entry.name)
            groups.setdefault((key, cs), []).append(make_doc(surface))
        for (key, cs), docs in groups.items():
            (self.exact if cs else self.lower).add(key, docs)

    def __call__(self, doc: Doc) -> Doc:
        spans = []
        for matcher in (self.exact, self.lower):
            for match_id, start, end in matcher(doc):
                label, name = self.keys[doc.vocab.strings[match_id]]
                spans.append(Span(doc, start, end, label=label, kb_id=name))
        doc.spans["kg_lexicon"] = spans
        return doc


@Language.factory("kg_patterns", default_config={"lexicon_dir": str(LEXICON_DIR)})
def make_patterns(nlp: Language, name: str, lexicon_dir: str) -> PatternFinder:
    return PatternFinder(lexicon_at(lexicon_dir))


class PatternFinder:
    """Regex finders over the text: URLs, model names, acronym definitions, coined names."""

    def __init__(self, lexicon: Lexicon):
        families: dict[str, str] = {}
        parents: dict[str, str] = {}
        for e in lexicon.entries:
            if e.label == "Model":
                for s in (e.name, *e.aliases):
                    families.setdefault(s, e.name)
                if e.broader:
                    parents[e.name] = e.broader[0]
        self.models = ModelFinder(families, parents)
        self.lookup = lexicon.lookup

    def __call__(self, doc: Doc) -> Doc:
        text = doc_text(doc)
        sents = [(s[2], s[3]) for s in sentences(doc)]
        found: list[Found] = list(find_urls(text))
        found += self.models.find(text)
        found += find_names(text)
        found += find_task_phrases(text)
        found += find_phrases(text, self.lookup)
        doc.user_data["kg_found"] = found
        doc.user_data["kg_acronyms"] = list(find_acronyms(text, sents))
        return doc


# ---------------------------------------------------------------- typing acronym long forms

LONG_FORM_HEADS = cues.labels("long_form_heads")
_SMALL = cues.word_set("name_glue")


def type_long_form(long: str) -> str:
    """The label of an acronym's long form that no lexicon knows, from its head word.

    >>> type_long_form("Prompt Boundary Problem"), type_long_form("vision-language action")
    ('Task', 'Technique')
    >>> type_long_form("Optimizer Aware Kernel"), type_long_form("Gaussian process")
    ('Method', 'Technique')
    """
    words = re.split(r"[\s-]+", long.strip())
    head = singular(words[-1]).lower()
    label = LONG_FORM_HEADS.get(head)
    if label:
        return label
    title = all(w[:1].isupper() or w.lower() in _SMALL or not w[:1].isalpha() for w in words)
    if title and len(words) >= 2:
        return "Method"
    return "Technique"


@Language.factory("kg_entities", default_config={"lexicon_dir": str(LEXICON_DIR), "selector_dir": ""})
def make_entities(nlp: Language, name: str, lexicon_dir: str, selector_dir: str) -> EntityMerger:
    lexicon = lexicon_at(lexicon_dir)
    selector = None
    if selector_dir:
        from kg.extract.select import Selector

        selector = Selector.load(selector_dir, name_of=lambda surface, label: reading_name(lexicon, surface, label))
    return EntityMerger(lexicon, stoplist(lexicon_dir), selector)


def reading_name(lexicon: Lexicon, surface: str, label: str) -> str:
    """The canonical name of ``surface`` read as ``label``: the lexicon's when it knows the
    surface under that label, else the surface's canonical form (common nouns in lower case)."""
    entry = lexicon.lookup(surface)
    if entry is not None and entry.label == label:
        return entry.name
    name = canonical_long_form(surface, label)
    return lower_common_words(name) if label in ("Technique", "Task", "Metric") else name



class EntityMerger:
    """Chooses one reading per stretch of text and sets ``doc.spans["kg"]``.

    Each span's ``label_`` is the entity type, ``kb_id_`` its canonical name and ``id_`` the
    rule that found it. Extra information (aliases, model parts) goes to
    ``doc.user_data["kg_info"]`` keyed by canonical (label, name); with a learned selector,
    ``doc.user_data["kg_entity_confidence"]`` holds, per span (token start, end), the
    probability it gave the reading.
    """

    def __init__(self, lexicon: Lexicon, stoplist: frozenset[str] = frozenset(), selector=None):
        self.lexicon = lexicon
        self.stoplist = stoplist
        self.selector = selector  # a learned chooser (kg.extract.select.Selector) or None

    def __call__(self, doc: Doc) -> Doc:
        text = doc_text(doc)
        cands, info = self.candidates(doc, text)
        scored: dict[tuple[int, int, str, str, str], float] = {}
        if self.selector is not None:
            scored = dict(self.selector.choose_scored(doc, text, cands))
            chosen = list(scored)
        else:
            chosen = by_priority(text, cands)
        spans = []
        for start, end, label, name, rule in sorted(chosen):
            sp = doc.char_span(start, end, label=label, kb_id=name, alignment_mode="expand")
            if sp is None:
                continue
            sp.id_ = rule
            spans.append(sp)
            doc.user_data.setdefault("kg_offsets", {})[(sp.start, sp.end)] = (start, end)
            if scored:  # how sure the selector is of the reading (absent with the rules alone)
                doc.user_data.setdefault("kg_entity_confidence", {})[(sp.start, sp.end)] = \
                    scored[(start, end, label, name, rule)]
        doc.spans["kg"] = spans
        doc.user_data["kg_info"] = info
        return doc

    def candidates(self, doc: Doc, text: str) -> tuple[list[tuple[int, int, str, str, str]], dict]:
        """Every reading the rules, lexicons and span model offer, ``(start, end, label, name,
        rule)``, and the extra information per (label, name)."""
        cands: list[tuple[int, int, str, str, str]] = []  # start, end, label, name, rule
        info: dict[tuple[str, str], dict] = {}
        for sp in doc.spans.get("kg_lexicon", []):
            cands.append((sp.start_char, sp.end_char, sp.label_, sp.kb_id_, "lexicon"))
        for f in doc.user_data.get("kg_found", []):
            if f.rule in ("name-shape", "name-weak"):
                entry = self.lexicon.lookup(f.name)
                if entry is not None and entry.label != "Model":
                    cands.append((f.start, f.end, entry.label, entry.name, "lexicon"))
                    continue
                if f.label == "Method" and _dataset_inside(self.lexicon, f.name):
                    f = dataclasses.replace(f, label="Dataset")
            cands.append((f.start, f.end, f.label, f.name, f.rule))
            if f.props:
                info.setdefault((f.label, f.name), {}).setdefault("props", dict(f.props))
        for ac in doc.user_data.get("kg_acronyms", []):
            entry = self.lexicon.lookup(ac.long)
            if entry is None:  # the lexicon's expansion of the acronym, if the paper means it
                entry = self.lexicon.lookup(ac.short) or self.lexicon.lookup(acronym_core(ac.short))
                if entry is not None and not same_expansion(ac.long, entry):
                    entry = None  # "Tensor Product Representation (TPR)" is not true positive rate
            if entry is not None and entry.label == "Model":
                continue
            rule = "lexicon-acronym" if entry is not None else "acronym"
            if entry is not None:
                label, name = entry.label, entry.name
            else:
                label = type_long_form(ac.long)
                name = canonical_long_form(ac.long, label)
            core = acronym_core(ac.short)
            info.setdefault((label, name), {}).setdefault("aliases", set()).add(core)
            cands.append((ac.long_start, ac.long_end, label, name, rule))
            cands.append((ac.short_start, ac.short_end, label, name, rule))
            cands += [(a, b, label, name, rule) for a, b in _occurrences(core, text)]
        if "kg_ner" in doc.user_data:  # the optional trained span model ran
            from kg.extract.ner import ner_candidates

            cands += ner_candidates(doc, self.lexicon, canonical_long_form, single_lower=False)
        if "kg_spans" in doc.user_data:  # kg's span model ran
            from kg.extract.spans import span_candidates

            cands += span_candidates(doc, self.lexicon, canonical_long_form, lower_common_words)
        if Doc.has_extension("kg_encoder_spans"):  # the contextual encoder ran
            cands += [(s.start, s.end, s.label, s.name, "encoder") for s in doc._.kg_encoder_spans]
        # an acronym the paper defines means its definition wherever it occurs: the lexicon's
        # reading of the same letters is not offered there
        own = {(c[0], c[1]) for c in cands if c[4] == "acronym"}
        cands = [c for c in cands if fold(c[3]) not in self.stoplist and not (
            c[4] == "lexicon" and c[0] >= 2 and text[c[0] - 1] == "-" and text[c[0] - 2].isalnum())
            and not (c[4] == "lexicon" and (c[0], c[1]) in own)]
        return cands, info


def same_expansion(long: str, entry) -> bool:
    """Whether a paper's long form of an acronym is the lexicon entry's (another spelling of
    it): at least half of its words are words of the entry's name or aliases. A paper's own
    definition beats the lexicon's expansion of the same letters."""
    words = {singular(w) for w in re.findall(r"[a-z0-9]+", long.lower())}
    known = {singular(w) for n in (entry.name, *entry.aliases) for w in re.findall(r"[a-z0-9]+", n.lower())}
    return bool(words) and 2 * len(words & known) >= len(words)


def by_priority(text: str, cands: list[tuple[int, int, str, str, str]]) -> list[tuple[int, int, str, str, str]]:
    """One reading per stretch of text by rule priority, then length, then position."""
    cands = sorted(cands, key=lambda c: (-rules.priority(c[4]), -(c[1] - c[0]), c[0], c[2], c[3]))
    taken = bytearray(len(text) + 1)
    chosen = []
    for c in cands:
        if any(taken[c[0]:c[1]]) or c[1] <= c[0]:
            continue
        taken[c[0]:c[1]] = b"\x01" * (c[1] - c[0])
        chosen.append(c)
    return chosen


@cache
def _dataset_names(lexicon: Lexicon) -> re.Pattern | None:
    """Known dataset names of five characters or more that carry a capital or digit, as one
    case-sensitive pattern: the parts a derived dataset's name is built from (None if none)."""
    names = {s for e in lexicon.entries if e.label == "Dataset" for s in (e.name, *e.aliases)
             if len(s) >= 5 and " " not in s and any(c.isupper() or c.isdigit() for c in s)}
    if not names:
        return None
    return re.compile("|".join(re.escape(n) for n in sorted(names, key=len, reverse=True)))


# what makes a name built on a dataset's name a model instead ("MNISTNet", "KineticsFormer")
_MODEL_TAIL = re.compile(r"^[-_]?(?:Net|Nets|Former|GAN|BERT|Transformer|ViT|Mixer|Model|LM|Diffusion|CNN|RNN)\b")


def _dataset_inside(lexicon: Lexicon, name: str) -> bool:
    """``PartImageNet``, ``DVS-CIFAR10``, ``MultiCelebA``: a name built on a known dataset's name
    is a dataset too, unless a model word follows it (``MNISTNet``).

    >>> from kg.lexicon import default_lexicon
    >>> lex = default_lexicon()
    >>> [_dataset_inside(lex, n) for n in ("PartImageNet", "DVS-CIFAR10", "ResNet-50", "FooNet", "CIFARNet")]
    [True, True, False, False, False]
    """
    pattern = _dataset_names(lexicon)
    m = pattern.search(name) if pattern is not None else None
    return m is not None and not _MODEL_TAIL.match(name[m.end():])


def _is_word(c: str) -> bool:
    return c.isalnum() or c in "_-"


def _occurrences(word: str, text: str) -> list[tuple[int, int]]:
    r"""Where ``word`` (or its plural in s) stands alone in ``text``, not inside a longer word or
    hyphenated name: ``(?<![\w-])WORD s?(?![\w-])`` with ``str.find`` instead of a regex
    compiled per acronym per paper.

    >>> _occurrences("RL", "RL and deep RLs, not RL-HF, CURL or RLx.")
    [(0, 2), (12, 15)]
    """
    out, n, end = [], len(word), len(text)
    i = text.find(word) if word else -1
    while i >= 0:
        j = i + n
        if i == 0 or not _is_word(text[i - 1]):
            if j < end and text[j] == "s" and (j + 1 == end or not _is_word(text[j + 1])):
                out.append((i, j + 1))
            elif j == end or not _is_word(text[j]):
                out.append((i, j))
        i = text.find(word, i + 1)
    return out


def glue_tokenizer(nlp: Language) -> None:
    """Split a full stop glued between a number and a capitalised word ("in 2023.The"), as
    spaCy already does after a letter ("recently.Thus"), so glued sentences end on a token."""
    from spacy.util import compile_infix_regex

    infixes = [*nlp.Defaults.infixes, r"(?<=[0-9])[.!?](?=[A-Z][a-z])"]
    nlp.tokenizer.infix_finditer = compile_infix_regex(infixes).finditer


def build_nlp(lexicon_dir: Path | str = LEXICON_DIR, ner_model: Path | str | None = None,
              spans_model: Path | str | None = None, encoder: Path | str | None = None) -> Language:
    """The default pipeline: blank English tokenizer + kg components; with ``spans_model`` (a
    folder made by ``make model``) kg's span model; with ``encoder`` (a folder made by ``make
    model``) the ``kg_encoder`` component, which names the spans of the readings the extractor
    puts on each Doc, and the selector trained with them; with ``ner_model`` (a folder made by
    ``scripts/train_ner.py``) also the optional SciER-trained one."""
    import kg.extract.relations  # noqa: F401  (registers kg_relations)

    nlp = spacy.blank("en")
    glue_tokenizer(nlp)
    nlp.tokenizer = TextKeepingTokenizer(nlp.tokenizer)
    nlp.max_length = 5_000_000
    cfg = {"lexicon_dir": str(lexicon_dir)}
    nlp.add_pipe("kg_sentences")
    nlp.add_pipe("kg_lexicon", config=cfg)
    nlp.add_pipe("kg_patterns", config=cfg)
    if ner_model:
        import kg.extract.ner  # noqa: F401  (registers kg_ner)

        nlp.add_pipe("kg_ner", config={"model_path": str(ner_model)})
    ent_cfg = dict(cfg)
    if spans_model:
        import kg.extract.spans  # noqa: F401  (registers kg_spans)

        nlp.add_pipe("kg_spans", config={"model_path": str(spans_model)})
        if (Path(spans_model) / "select" / "weights.npy").is_file():
            ent_cfg["selector_dir"] = str(Path(spans_model) / "select")
    if encoder:
        import kg.extract.contextual  # noqa: F401  (registers kg_encoder)

        nlp.add_pipe("kg_encoder", config=cfg)
        # the selector that learned to weigh the encoder's readings travels with the encoder
        ent_cfg["selector_dir"] = str(Path(encoder) / "select") \
            if (Path(encoder) / "select" / "weights.npy").is_file() else ""
    nlp.add_pipe("kg_entities", config=ent_cfg)
    nlp.add_pipe("kg_relations")
    return nlp


def surface_key(label: str, name: str) -> str:
    """Key under which two names in one paper are the same entity."""
    return f"{label}\t{fold(name)}"
