"""The ``kg_relations`` component: what a paper proposes, and what it compares against.

Writes ``doc.user_data["kg_proposed"]`` ({canonical (label, name): (label, rule, sentence)})
and ``doc.user_data["kg_compared"]`` (list of (type, source key, target key, sentence)).
"""

from __future__ import annotations

import re

from spacy.language import Language
from spacy.tokens import Doc

from kg.extract.docutil import doc_text
from kg.extract.proposals import APPOSITIVE_HEADS, Proposals


@Language.component("kg_relations")
def find_relations(doc: Doc) -> Doc:
    return Proposals(doc).run()


_NOT_NAMES = {"towards", "toward", "beyond", "rethinking", "understanding", "revisiting", "on",
              "when", "why", "how", "what", "learning", "improving", "scaling", "position",
              "benchmarking", "unlocking", "exploring", "demystifying", "the", "a", "an", "from",
              "less", "more", "all", "one", "no", "do", "is", "are", "can", "does"}
_TITLE_NAME = re.compile(r"^\s*([A-Za-z][\w²³¹⁰-⁹+.'-]*(?: [A-Za-z0-9][\w²³¹⁰-⁹+.'-]*){0,2})\s*:\s+(\S.*)$")


def title_proposal(doc: Doc) -> tuple[tuple[str, str], str] | None:
    """``SpecForge: Scalable ...`` -> the (label, name) key of the proposed entity and its label.

    Only a coined name counts: a name-shaped word, or one capitalised word that is not an
    ordinary title opener; multi-word slogans ("Referee Can Play") do not.
    """
    from kg.extract.patterns import is_name_shaped

    m = _TITLE_NAME.match(doc_text(doc))
    if not m:
        return None
    name, rest = m.group(1), m.group(2)
    words = name.split()
    if words[0].lower() in _NOT_NAMES:
        return None
    if not (any(is_name_shaped(w) for w in words) or len(words) == 1 and (
            words[0][0].isupper() and len(words[0]) > 2 and (words[0][1:].islower() or words[0].isupper()))):
        return None
    end = m.end(1)
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
