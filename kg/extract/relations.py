"""The ``kg_relations`` component: what a paper proposes, and what it compares against.

Writes ``doc.user_data["kg_proposed"]`` ({canonical (label, name): (label, rule, sentence)})
and ``doc.user_data["kg_compared"]`` (list of (type, source key, target key, sentence)).
"""

from __future__ import annotations

import re

from spacy.language import Language
from spacy.tokens import Doc, Span

from kg.extract import cues
from kg.extract.docutil import doc_text, positions
from kg.extract.proposals import ADJ_PARTS, APPOSITIVE_HEADS, Proposals
from kg.extract.rules import RELABEL
from kg.text import fold, singular


@Language.component("kg_relations")
def find_relations(doc: Doc) -> Doc:
    type_by_head(doc)
    listed_datasets(doc)
    listed_tasks(doc)
    return Proposals(doc).run()


# one-word task names: entities only where the text treats them as tasks
TASK_WORDS = cues.word_set("task_words")
_LIST_CUES = {"such", "like", "including", "include", "includes", "e.g.", "namely"}


def listed_tasks(doc: Doc) -> None:
    """``tasks like forecasting, imputation and anomaly detection``: a one-word task name is a
    Task when it stands in a list with a known task, or in a list of tasks."""
    idx = [i for i in positions(doc, TASK_WORDS) if doc[i].is_lower]
    if not idx:
        return
    spans = list(doc.spans.get("kg", []))
    covered = {t: sp for sp in spans for t in range(sp.start, sp.end)}
    new = []
    for i in idx:
        if i in covered or not _standalone(doc, i):
            continue
        # the list around i: items separated by ",", "and", "or"
        a = i
        while a >= 2 and doc[a - 1].lower_ in (",", "and", "or") and (doc[a - 2].is_alpha or a - 2 in covered):
            a = covered[a - 2].start if a - 2 in covered else a - 2
            if doc[a - 1].lower_ in (",", "and", "or"):
                continue
            break
        b = i + 1
        while b + 1 < len(doc) and doc[b].lower_ in (",", "and", "or") and (doc[b + 1].is_alpha or b + 1 in covered):
            b = covered[b + 1].end if b + 1 in covered else b + 2
            if b < len(doc) and doc[b].lower_ in (",", "and", "or"):
                continue
            break
        items = [covered[t] for t in range(a, b) if t in covered]
        tasky = any(sp.label_ == "Task" for sp in items) \
            or b < len(doc) and doc[b].lower_ in ("tasks", "problems", "applications") \
            or a >= 2 and doc[a - 1].lower_ in _LIST_CUES | {"as"} and doc[max(0, a - 4) : a].text.lower().find("task") >= 0
        if tasky and len(range(a, b)) > 1:
            sp = Span(doc, i, i + 1, label="Task", kb_id=doc[i].lower_)
            sp.id_ = "task-phrase"
            new.append(sp)
    if new:
        doc.spans["kg"] = sorted(spans + new, key=lambda s: s.start)


_LIST_SEP = {",", "and", "or", ";"}
_AFTER_ITEM = {",", ".", ";", ":", ")", "and", "or", "as", "with", "for", "in", "on", "to", "from", "datasets",
               "benchmarks", "dataset", "benchmark"}


def listed_datasets(doc: Doc) -> None:
    """``on MNIST, BA-Shapes and Tree-Cycles``: a name only its shape made a Method is a Dataset
    when it stands in one list with a Dataset. A list is three or more names, or two joined by
    "and"/"or"; a comma alone joins clauses too ("On ImageNet, FooNet reaches ..."), and an item
    followed by a verb ("..., and FooNet improves ...") opens a clause rather than ending an item."""
    spans = list(doc.spans.get("kg", []))
    if not any(sp.label_ == "Dataset" for sp in spans):
        return
    chains: list[list[int]] = []  # runs of spans joined by list separators only
    for n in range(len(spans)):
        gap = [t.lower_ for t in doc[spans[n - 1].end : spans[n].start]] if n else None
        if gap and len(gap) <= 2 and all(w in _LIST_SEP for w in gap):
            chains[-1].append(n)
        else:
            chains.append([n])
    changed: set[int] = set()
    for chain in chains:
        if not any(spans[k].label_ == "Dataset" for k in chain):
            continue
        joined = any(t.lower_ in ("and", "or") for k in chain[1:] for t in doc[spans[k - 1].end : spans[k].start])
        if len(chain) < 3 and not joined:
            continue
        for k in chain:
            sp = spans[k]
            nxt = doc[sp.end].lower_ if sp.end < len(doc) else "."
            if sp.label_ == "Method" and sp.id_ in RELABEL and nxt in _AFTER_ITEM:
                changed.add(k)
    if not changed:
        return
    info = doc.user_data.setdefault("kg_info", {})
    for k in changed:
        spans[k] = _relabelled(doc, spans[k], "Dataset", info)
    doc.spans["kg"] = spans


def _relabelled(doc: Doc, sp: Span, label: str, info: dict) -> Span:
    """The span read with another label; a weak name reading becomes a plain one, and the
    extra information (aliases, parts) kept under the old key is copied to the new one."""
    new = Span(doc, sp.start, sp.end, label=label, kb_id=sp.kb_id_)
    new.id_ = "name-shape" if sp.id_ == "name-weak" else sp.id_
    if (sp.label_, sp.kb_id_) in info:
        info.setdefault((label, sp.kb_id_), dict(info[(sp.label_, sp.kb_id_)]))
    return new


def _standalone(doc: Doc, i: int) -> bool:
    """The word is a noun phrase of its own: no modifier before it, no noun after it."""
    before = doc[i - 1].lower_ if i > 0 else ""
    after = doc[i + 1].lower_ if i + 1 < len(doc) else ""
    return (before in (",", "and", "or", "as", "like", "including", "in", "for", "of", "e.g.", ":", "(")
            and after in (",", "and", "or", ".", ")", ";", "tasks", "problems"))


_DATASET_NOUNS = cues.word_set("dataset_nouns")
_MODEL_NOUNS = {"model", "models", "checkpoint", "checkpoints"}


def type_by_head(doc: Doc) -> None:
    """``on CIFAR-10 and SVHN datasets``, ``the World of Bits benchmark``: names right before a
    dataset noun (and names coordinated with them) are Datasets, whatever their shape said."""
    found = positions(doc, _DATASET_NOUNS)
    models = positions(doc, _MODEL_NOUNS)
    if not found and not models:
        return
    spans = list(doc.spans.get("kg", []))
    end_at = {sp.end: sp for sp in spans}
    start_at = {sp.start: sp for sp in spans}
    covered = {t for sp in spans for t in range(sp.start, sp.end)}
    info = doc.user_data.setdefault("kg_info", {})
    changed: dict[int, Span] = {}
    model_of: dict[int, Span] = {}
    for i in models:  # "the ProteinMPNN model", "a protein design model, ProteinMPNN"
        for sp in (end_at.get(i), start_at.get(i + 2) if i + 2 < len(doc) and doc[i + 1].text == "," else None):
            if sp is not None and sp.id_ in ("name-shape", "model-coined", "new-name") and sp.label_ == "Method":
                model_of[sp.start] = sp
    for i in found:
        if not doc[i].is_lower:
            continue
        k = i
        for _ in range(6):  # the name before the noun, then names coordinated with it
            if k >= 3 and doc[k - 1].text == ")" and doc[k - 3].text == "(":
                k -= 3
            sp = end_at.get(k)
            if sp is not None and sp.id_ in RELABEL and sp.label_ != "Dataset":
                changed[sp.start] = sp
            elif sp is None and k > 0 and k - 1 not in covered and _capitalised(doc[k - 1]):
                j = k - 1
                while j > 0 and j - 1 not in covered and (_capitalised(doc[j - 1]) or doc[j - 1].lower_ == "of"
                                                           and j > 1 and _capitalised(doc[j - 2])):
                    j -= 1
                if j == 0 or doc[j - 1].text in ".!?" and not doc[j].text.isupper():
                    break  # a sentence-opening capital is no evidence of a name
                new = Span(doc, j, k, label="Dataset", kb_id=doc[j:k].text)
                new.id_ = "new-name"
                spans.append(new)
                sp = new
            elif sp is None or sp.label_ != "Dataset" and sp.id_ not in RELABEL:
                break
            k = sp.start
            if k >= 2 and doc[k - 1].lower_ in (",", "and", "or") and (
                    doc[k - 2].lower_ in (",", "and") or doc[k - 2].text not in ".!?"):
                k -= 2 if doc[k - 2].lower_ in (",", "and") else 1
                continue
            break
    if not changed and not model_of and len(spans) == len(doc.spans.get("kg", [])):
        return
    out = []
    for sp in spans:
        label = "Dataset" if changed.get(sp.start) is sp else "Model" if model_of.get(sp.start) is sp else None
        out.append(_relabelled(doc, sp, label, info) if label is not None else sp)
    doc.spans["kg"] = sorted(out, key=lambda s: s.start)


def _capitalised(tok) -> bool:
    return tok.text[:1].isupper() and (tok.is_alpha or any(c.isdigit() for c in tok.text)) and len(tok.text) > 1


_NOT_NAMES = cues.word_set("title_openers")
_TITLE_NAME = re.compile(r"^\s*([A-Za-z][\w²³¹⁰-⁹+.'-]*(?: [A-Za-z0-9][\w²³¹⁰-⁹+.'-]*){0,4})\s*:\s+(\S.*)$")


_TITLE_HEAD_NOT = cues.word_set("title_heads_not_names")


def _named_phrase(words: list[str]) -> bool:
    """A Title Case noun phrase before a title's colon that names something ("Chatbot Arena",
    "Layerwise Proximal Replay", "Chain of Code"), not a topic ("Federated Offline
    Reinforcement Learning"), a task ("Scalable Multiple Kernel Clustering") or a slogan."""
    from kg.extract.phrases import HEADS, NOT_MODIFIERS

    if not 2 <= len(words) <= 4 or any(w.lower() in ("and", "or", "in", "for", "to", "with", "the", "a", "your",
                                                     "my", "our", "we", "you", "is", "are")
                                       or w.endswith(",") for w in words):
        return False
    if not all(w[:1].isupper() or w[:1].isdigit() or w == "of" for w in words) or words[-1] == "of":
        return False
    first, head = words[0].lower(), singular(words[-1].lower())
    if first.endswith("ing") or first in NOT_MODIFIERS or first in _NOT_NAMES:
        return False
    return head not in _TITLE_HEAD_NOT and HEADS.get(head) != "Task" and not any(
        w.lower() in NOT_MODIFIERS and w != "of" for w in words[1:])


def title_proposal(doc: Doc) -> tuple[tuple[str, str], str] | None:
    """``SpecForge: Scalable ...`` -> the (label, name) key of the proposed entity and its label.

    Only a name counts: a name-shaped word, one capitalised word that is not an ordinary title
    opener, or a Title Case noun phrase that names something (:func:`_named_phrase`); slogans
    ("Referee Can Play") and topics do not.
    """
    from kg.extract.patterns import is_name_shaped

    m = _TITLE_NAME.match(doc_text(doc))
    if not m:
        return None
    name, rest = m.group(1), m.group(2)
    words = name.split()
    if words[0].lower() in _NOT_NAMES:
        return None
    if not (any(is_name_shaped(w) for w in words) and len(words) <= 3 or len(words) == 1 and (
            words[0][0].isupper() and len(words[0]) > 2 and (words[0][1:].islower() or words[0].isupper()))
            or _named_phrase(words)):
        return None
    end = m.end(1)
    if len(words) > 1 and any(lx.start_char == 0 and lx.end_char == end for lx in doc.spans.get("kg_lexicon", [])):
        return None  # a known term ("Variational Autoencoders: ..."), not the paper's name
    label = "Method"
    head = rest.lower()
    for word, lab in APPOSITIVE_HEADS.items():
        if re.match(r"^(?:a|an|the)?\s*(?:[\w-]+\s+){0,5}" + word + r"s?\b", head):
            label = lab
            break
    for sp in doc.spans.get("kg", []):
        if sp.start_char == 0 and sp.end_char == end:
            return (sp.label_, sp.kb_id_), label
    sp = doc.char_span(0, end, label=label, kb_id=name)
    if sp is None:
        return None
    sp.id_ = "new-name"
    doc.spans["kg"] = sorted([*doc.spans.get("kg", []), sp], key=lambda s: s.start)
    return (label, name), label


# Title Case phrases that open a title without naming a method: evaluative or generic openers,
# and heads that make the phrase a task, a result or a property ("Semantic Image Synthesis ...",
# "Concentration Inequalities for ...", "Individual Fairness in ...")
_LEAD_OPENERS = _NOT_NAMES | cues.word_set("title_lead_openers")
_LEAD_HEADS_NOT = _TITLE_HEAD_NOT | cues.word_set("title_lead_heads")
_LEAD_VERBS = cues.word_set("title_lead_verbs")
_LEAD_END = re.compile(r"\s+(?i:for|via|with|in|under|using|from|on|through|by|to|and|of|beyond|versus|vs\.?)\s+"
                       r"|\s*[:?,]\s*|\s+-\s+")


def title_lead(title: str) -> str | None:
    """The method a title names in its opening phrase, for a paper whose abstract names none:
    "Adaptive Selective Sampling for Online Prediction with Experts" -> "Adaptive Selective
    Sampling", "Sequential Kernelized Stein Discrepancy" -> itself. The phrase runs up to the
    first preposition, "and", or colon; it must be 2-6 Title Case words, not open with an
    ordinary title word or a verb in -ing, not end in a task, result or property word, hold no
    verb (the lexicon and abstract checks are :func:`title_lead_proposal`'s).

    >>> title_lead("Adaptive Selective Sampling for Online Prediction with Experts")
    'Adaptive Selective Sampling'
    >>> [title_lead(t) for t in ("Semantic Image Synthesis with Unconditional Generator",
    ...  "Towards Robust Federated Learning", "Random Masking Finds Winning Tickets")]
    [None, None, None]
    """
    t = title.rstrip().rstrip(".")
    m = _LEAD_END.search(t)
    phrase = t[: m.start()] if m else t
    words = phrase.split()
    if not 2 <= len(words) <= 6:
        return None
    first, head = words[0].lower(), singular(words[-1].lower().rstrip(","))
    if first in _LEAD_OPENERS or first.endswith("ing") or head in _LEAD_HEADS_NOT:
        return None
    if any(w.lower() in _LEAD_VERBS for w in words[1:]):
        return None
    if not all(w[:1].isupper() or w[:1].isdigit() for w in words):
        return None
    return phrase.strip()


def title_lead_proposal(doc: Doc, abstract: str) -> tuple[tuple[str, str], str] | None:
    """:func:`title_lead` on a title Doc, as ``title_proposal`` returns it: the (label, name) key
    and the label "Method". When a finder already read exactly the phrase, its reading keeps
    its canonical name (lower case for a common-noun phrase, as the guidelines write such
    names); otherwise the phrase becomes a Method span of the title. The abstract must repeat the phrase (word stems in order): on the development gold that
    raised the rule's precision from 20 of 36 to 8 of 10. A phrase the lexicon knows
    ("Federated Learning", "Gaussian Processes") names no new method."""
    title = doc_text(doc)
    name = title_lead(title)
    if name is None:
        return None
    if _stems(name) not in _stems(abstract):
        return None
    start = len(title) - len(title.lstrip())
    end = start + len(name)
    if any(lx.start_char == start and lx.end_char == end for lx in doc.spans.get("kg_lexicon", [])):
        return None
    for sp in doc.spans.get("kg", []):  # a finder read the phrase: a named method, under that name
        if sp.start_char == start and sp.end_char == end and fold(sp.kb_id_) == fold(name):
            return (sp.label_, sp.kb_id_), "Method"
    sp = doc.char_span(start, end, label="Method", kb_id=name)
    if sp is None:
        return None
    sp.id_ = "new-name"
    doc.spans["kg"] = sorted([*doc.spans.get("kg", []), sp], key=lambda s: s.start)
    return ("Method", name), "Method"


_ECHO_SKIP = cues.word_set("echo_skip")
_ECHO_STOP = cues.word_set("echo_stop")
_ECHO_ANALYSIS = cues.word_set("echo_analysis")
_ECHO_HEADS = cues.word_set("echo_heads")


def _stoplist_of(doc: Doc) -> frozenset[str]:
    from kg.extract.names import stoplist
    from kg.schema import LEXICON_DIR

    return stoplist(str(LEXICON_DIR))


def _stems(text: str) -> str:
    """The text's words as :func:`_stem` stems, space-separated and space-padded, so that one
    padded phrase is found in another by substring."""
    return " " + " ".join(_stem(w) for w in re.findall(r"[^\W_]+", text)) + " "


def _stem(word: str) -> str:
    w = word.lower()
    if len(w) > 4 and w.endswith("s") and not w.endswith("ss"):
        w = w[:-1]
    for suffix in ("ing", "er", "ion", "e"):
        if len(w) > len(suffix) + 3 and w.endswith(suffix):
            return w[: -len(suffix)]
    return w


def echo_title(doc: Doc, title_doc: Doc) -> None:
    """``we introduce convolutional deep kernel machines`` under the title "Convolutional Deep
    Kernel Machines": when a trigger verb's direct object names nothing the finders know and
    the title repeats its words, it is the paper's named method. Adds the span to
    ``doc.spans["kg"]`` and the proposal to ``kg_proposed``."""
    regions = doc.user_data.get("kg_unnamed")
    if not regions or title_doc is None:
        return
    title = _stems(doc_text(title_doc))
    kinds = {}
    for sp in doc.spans.get("kg", []):
        for t in range(sp.start, sp.end):
            kinds[t] = sp
    best = None
    for a, b, verb in regions:
        if verb.rstrip("sd") not in ("propose", "introduce", "present", "develop", "proposing", "introducing"):
            continue
        words = []  # the direct object: lower-case words right after the verb
        for k in range(a, b):
            t = doc[k]
            if t.text == "-":
                continue
            if not (t.is_alpha and t.is_lower and t.lower_ not in _ECHO_STOP and (
                    k not in kinds or kinds[k].id_ == "noun-phrase"
                    or kinds[k].id_ == "lexicon" and kinds[k].label_ in ("Technique", "Method"))):
                break
            if words or t.lower_ not in _ECHO_SKIP:
                words.append(k)
        found = _echo(doc, words, title, kinds)
        if found and (best is None or found[1] - found[0] > best[1] - best[0]):
            best = found
    if best is None:
        return
    from kg.extract.names import canonical_long_form

    start, end = best
    p = Proposals(doc)
    sp = p.new_span(start, end, "Method", canonical_long_form(doc[start:end].text.lower(), "Technique"))
    p.propose(sp, "title-echo", "Method")
    doc.spans["kg"] = sorted(p.spans, key=lambda s: s.start)
    doc.user_data.setdefault("kg_proposed", {}).update(p.proposed)


def _echo(doc: Doc, words: list[int], title: str, kinds: dict) -> tuple[int, int] | None:
    """The longest prefix of ``words`` (token positions) that the title repeats."""
    if any(doc[k].lower_ in _ECHO_ANALYSIS for k in words):
        return None  # "a fine-grained sensitivity analysis": a study, not a named method
    for n in range(min(6, len(words)), 1, -1):
        gram = words[:n]
        if doc[gram[-1]].lower_.rstrip("s") in _ECHO_HEADS:
            gram = gram[:-1]
        if len(gram) < 2 or " " not in doc[gram[0] : gram[-1] + 1].text or doc[gram[-1]].lower_ in ADJ_PARTS \
                or re.search(r"(?:ed|al|ive|ous|ful|ic|ly|ate|able|ible)$", doc[gram[-1]].lower_) \
                or gram[0] in kinds and kinds[gram[0]].id_ == "lexicon" and kinds[gram[0]].end <= gram[-1] \
                or any(k in kinds and kinds[k].id_ == "lexicon" and (
                    kinds[k].start < gram[0] or kinds[k].end > gram[-1] + 1) for k in gram):
            continue  # an adjective last, a known name modifying a noun, or cutting a known name
        inner = [kinds[k] for k in gram if k in kinds]
        if inner and inner[0].start == gram[0] and inner[0].end == gram[-1] + 1 and inner[0].id_ == "lexicon":
            continue  # a phrase the lexicon knows ("reinforcement learning"): not a new name
        if " " + " ".join(_stem(doc[k].text) for k in gram) + " " in title \
                and fold(doc[gram[0] : gram[-1] + 1].text) not in _stoplist_of(doc):
            return gram[0], gram[-1] + 1
    return None
