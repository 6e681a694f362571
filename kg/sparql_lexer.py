"""SPARQL text as tokens: the one reading of a query's words that the ``SERVICE`` check and the
parameter binder share.

The tokens follow the terminals of the SPARQL 1.1 grammar (§19.8): IRIs, prefixed names with
every escape a local name may hold (``kg:a\\'x``, ``schema:a\\#x``, ``%41``), strings of the four
kinds with their escapes, comments, variables, blank nodes, language tags, numbers, and bare
words (keywords, function names). So a word is a keyword only where the query's parser reads a
keyword, never inside an IRI, a string, a comment or a local name, and a brace opens a group
only outside them. Code point escapes (``\\u0053ERVICE``), which SPARQL lets a query use
anywhere, are read both as written and decoded.

>>> [t.text for t in tokens("SELECT * { ?s kg:a\\\\'x 'it''s' } # SERVICE")]
['SELECT', '*', '{', '?s', "kg:a\\\\'x", "'it'", "'s'", '}']
>>> keyword_used("SELECT * { ?s kg:a\\\\'x ?o . SERVICE <http://e/> { ?s ?p ?o } }", "SERVICE")
True
>>> keyword_used('SELECT * { ?s kg:name "SERVICE" }  # SERVICE', "SERVICE")
False
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

_BASE = ("A-Za-z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u02ff\u0370-\u037d\u037f-\u1fff\u200c-\u200d\u2070-\u218f"
         "\u2c00-\u2fef\u3001-\ud7ff\uf900-\ufdcf\ufdf0-\ufffd\U00010000-\U000effff")
_U = _BASE + "_"
_CHARS = _U + "\\-0-9\u00b7\u0300-\u036f\u203f-\u2040"
_PLX = r"%[0-9A-Fa-f]{2}|\\[_~.\-!$&'()*+,;=/?#@%]"
_PREFIX = f"[{_BASE}](?:[{_CHARS}.]*[{_CHARS}])?"
_LOCAL = f"(?:[{_U}:0-9]|{_PLX})(?:(?:[{_CHARS}.:]|{_PLX})*(?:[{_CHARS}:]|{_PLX}))?"
_VARNAME = f"[{_U}0-9][{_U}0-9\u00b7\u0300-\u036f\u203f-\u2040]*"

_TOKEN = re.compile("|".join(f"(?P<{kind}>{pattern})" for kind, pattern in (
    ("space", r"[ \t\r\n]+"),
    ("comment", r"#[^\r\n]*"),
    ("iri", r"<[^<>\"{}|^`\\\x00-\x20]*>"),
    ("string", r"'''(?:(?:'|'')?(?:[^'\\]|\\[\s\S]))*'''|\"\"\"(?:(?:\"|\"\")?(?:[^\"\\]|\\[\s\S]))*\"\"\""
               r"|'(?:[^'\\\r\n]|\\[\s\S])*'|\"(?:[^\"\\\r\n]|\\[\s\S])*\""),
    ("var", f"[?$]{_VARNAME}"),
    ("bnode", f"_:[{_U}0-9](?:[{_CHARS}.]*[{_CHARS}])?"),
    ("lang", r"@[a-zA-Z]+(?:-[a-zA-Z0-9]+)*"),
    ("number", r"(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"),
    ("word", r"[A-Za-z_][A-Za-z0-9_]*"),
    ("punct", r"\^\^|&&|\|\||!=|<=|>=|[\s\S]"),
)))
_NAME_START = re.compile(f"[{_BASE}]")
_PNAME = re.compile(f"(?:{_PREFIX})?:(?:{_LOCAL})?")
_RUN = re.compile(f"[{_CHARS}.]*")  # how far a prefix could reach
_CODEPOINT = re.compile(r"\\u([0-9A-Fa-f]{4})|\\U([0-9A-Fa-f]{8})")


@dataclass(frozen=True, slots=True)
class Token:
    """One token: its kind (``iri``, ``string``, ``var``, ``pname``, ``word``, ``punct``, ...),
    its text, and where it sits in the query text."""

    kind: str
    text: str
    start: int
    end: int

    def is_word(self, word: str) -> bool:
        """Whether the token is the bare word ``word`` (keywords are case-insensitive)."""
        return self.kind == "word" and self.text.upper() == word.upper()


def tokens(text: str) -> Iterator[Token]:
    """The tokens of a query, comments and white space left out.

    >>> [(t.kind, t.text) for t in tokens('VALUES ?x { "a}" } LIMIT 5')]  # doctest: +NORMALIZE_WHITESPACE
    [('word', 'VALUES'), ('var', '?x'), ('punct', '{'), ('string', '"a}"'), ('punct', '}'),
     ('word', 'LIMIT'), ('number', '5')]
    """
    pos, size = 0, len(text)
    no_pname_before = -1  # a prefixed name was tried and cannot start before this point
    while pos < size:
        m = None
        if text[pos] == ":" or (pos >= no_pname_before and _NAME_START.match(text, pos)):
            m = _PNAME.match(text, pos)
            if m is None:  # every later start in this run of name characters fails the same way
                no_pname_before = _RUN.match(text, pos).end()  # type: ignore[union-attr]
            else:
                yield Token("pname", m.group(), pos, m.end())
                pos = m.end()
                continue
        m = _TOKEN.match(text, pos)
        assert m is not None  # the last alternative takes any character
        if m.lastgroup not in ("space", "comment"):
            yield Token(m.lastgroup or "punct", m.group(), pos, m.end())
        pos = m.end()


def decode_codepoints(text: str) -> str:
    """The text with SPARQL's ``\\uXXXX`` and ``\\UXXXXXXXX`` escapes decoded (§19.2).

    >>> decode_codepoints("\\\\u0053ERVICE")
    'SERVICE'
    """
    def char(m: re.Match) -> str:
        code = int(m.group(1) or m.group(2), 16)
        return chr(code) if code <= 0x10FFFF else m.group()

    return _CODEPOINT.sub(char, text)


def keyword_used(text: str, keyword: str) -> bool:
    """Whether ``keyword`` is used as a keyword in the query, read as written or with its code
    point escapes decoded (a parser may do either)."""
    texts = {text, decode_codepoints(text)}
    return any(t.is_word(keyword) for s in texts for t in tokens(s))


def variables(text: str) -> set[str]:
    """The names of the variables a query mentions (``?x`` and ``$x`` are one variable).

    >>> sorted(variables("SELECT ?a { ?a ?b $c . FILTER(?b != 'x ?d') }"))
    ['a', 'b', 'c']
    """
    return {t.text[1:] for t in tokens(text) if t.kind == "var"}


__all__ = ["Token", "decode_codepoints", "keyword_used", "tokens", "variables"]
