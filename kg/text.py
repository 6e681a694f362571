"""Text normalisation: one clean display text per abstract, and keys for matching names.

The clean text is what kg prints and stores as ``Paper.abstract``; every offset indexes it.

>>> clean("we propose H$^2$CL, a ****H***indsight   method")
'we propose H²CL, a Hindsight method'
>>> clean("target\u2013draft at https://x.io/a\\\\_b and \\\\url{https://github.com/a/b}")
'target-draft at https://x.io/a_b and https://github.com/a/b'
>>> fold("Mixture-of-Experts")
'mixture of expert'
>>> slug("Qwen2.5-VL-7B")
'qwen2-5-vl-7b'
"""

from __future__ import annotations

import hashlib
import html
import re
import unicodedata
from functools import lru_cache

_SUPERSCRIPT = str.maketrans("0123456789+-=()nik", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ⁿⁱᵏ")
_SUBSCRIPT = str.maketrans("0123456789+-=()", "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎")
_MACROS = {
    "ell": "ℓ", "times": "×", "cdot": "·", "epsilon": "ε", "varepsilon": "ε", "alpha": "α",
    "beta": "β", "gamma": "γ", "delta": "δ", "Delta": "Δ", "lambda": "λ", "mu": "μ",
    "sigma": "σ", "Sigma": "Σ", "theta": "θ", "pi": "π", "phi": "φ", "psi": "ψ", "omega": "ω",
    "Omega": "Ω", "Theta": "Θ", "eta": "η", "tau": "τ", "rho": "ρ", "kappa": "κ", "nu": "ν",
    "xi": "ξ", "zeta": "ζ", "chi": "χ", "Gamma": "Γ", "Lambda": "Λ", "Phi": "Φ", "Psi": "Ψ",
    "infty": "∞", "leq": "≤", "le": "≤", "geq": "≥", "ge": "≥", "neq": "≠", "approx": "≈",
    "sim": "∼", "in": "∈", "sqrt": "√", "sum": "∑", "prod": "∏", "log": "log", "ln": "ln",
    "to": "→", "rightarrow": "→", "leftarrow": "←", "pm": "±", "partial": "∂", "nabla": "∇",
    "mathbb": "", "mathbf": "", "mathrm": "", "mathcal": "", "text": "", "textbf": "",
    "textit": "", "emph": "", "operatorname": "", "tilde": "", "hat": "", "bar": "",
    "widetilde": "", "widehat": "", "left": "", "right": "", "big": "", "Big": "",
    "frac": "", "dfrac": "", "tfrac": "", "mid": "|", "lvert": "|", "rvert": "|",
    "underline": "", "overline": "", "texttt": "", "textsc": "", "textrm": "", "textsf": "",
    "mathit": "", "mathsf": "", "mathtt": "", "mathscr": "", "mathfrak": "", "boldsymbol": "",
    "bm": "", "textnormal": "", "small": "", "large": "", "footnotesize": "", "emph ": "",
    "dots": "…", "ldots": "…", "cdots": "⋯", "%": "%", "&": "&", "_": "_", "#": "#",
    "$": "$", "{": "{", "}": "}", ",": " ", ";": " ", "!": "", " ": " ", "quad": " ",
}
_DASHES = str.maketrans({"\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2013": "-",
                         "\u2212": "-", "\u2015": "\u2014", "\u201c": '"', "\u201d": '"',
                         "\u201e": '"', "\u2018": "'", "\u2019": "'", "\u00b4": "'"})
_INVISIBLE = re.compile("[\u00ad\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]")
_CONTROL = re.compile("[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]")
_WS = re.compile(r"\s+")
_URL_CMD = re.compile(r"\\(?:url|href)\{([^}]*)\}(?:\{[^}]*\})?")
_FORMAT_CMD = re.compile(r"\\(?:underline|overline|texttt|textsc|textrm|textsf|textbf|textit|emph|mathrm|"
                         r"mathbf|mathit|mathsf|mathtt|mathcal|mathbb|boldsymbol|bm|textnormal)\s*\{([^{}]*)\}")
_MATH = re.compile(r"\$\$(.+?)\$\$|\$(.+?)\$|\\\((.+?)\\\)", re.S)
_MACRO = re.compile(r"\\([A-Za-z]+|[%&_#${},;! ])")
_SCRIPT = re.compile(r"([\^_])(\{[^{}]*\}|[A-Za-z0-9+\-])")
_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9]*(?:\s[^<>]*)?/?>")
_EMPH = re.compile(r"(?<![\w*])\*+(?=\S)|(?<=\S)\*+(?![\w*])|\*{2,}|(?<=[A-Za-z])\*(?=[A-Za-z])")
_UNDERSCORE = re.compile(r"(?<![\w_])_{1,2}(?=\w)|(?<=\w)_{1,2}(?![\w_])")
_TEX_QUOTES = re.compile(r"``|''")


def _script(match: re.Match[str]) -> str:
    body = match.group(2).strip("{}")
    table = _SUPERSCRIPT if match.group(1) == "^" else _SUBSCRIPT
    mapped = body.translate(table)
    if all(c not in table and c not in "0123456789" for c in mapped) or body.isalpha() and match.group(1) == "_":
        return mapped if mapped != body else match.group(1) + body
    return mapped


def _math(match: re.Match[str]) -> str:
    body = next(g for g in match.groups() if g is not None)
    body = _SCRIPT.sub(_script, body)
    body = _MACRO.sub(lambda m: _MACROS.get(m.group(1), m.group(1)), body)
    return body.replace("{", "").replace("}", "")


def clean(text: str) -> str:
    """Return the display text of an abstract or title: LaTeX, HTML and markdown debris
    removed, dashes and quotes unified, invisible characters dropped, whitespace collapsed.
    Cleaning a clean text changes nothing (the rules are applied until nothing changes).
    """
    for _ in range(4):
        out = _clean_once(text)
        if out == text:
            break
        text = out
    return text


def clean_id(text: str) -> str:
    """An identifier as written, less invisible and control characters and extra whitespace; no
    markdown, LaTeX or HTML rules (``nWLt35BU1z_`` keeps its underscore).

    >>> clean_id(" corl2021:nWLt35BU1z_\u200b ")
    'corl2021:nWLt35BU1z_'
    """
    text = unicodedata.normalize("NFC", text)
    text = _CONTROL.sub(" ", _INVISIBLE.sub("", text))
    return _WS.sub(" ", text).strip()


def _clean_once(text: str) -> str:
    if not text:
        return ""
    text = unicodedata.normalize("NFC", text)
    text = _INVISIBLE.sub("", text)
    text = _CONTROL.sub(" ", text)
    if "<" in text:
        text = _TAG.sub("", text)
    if "&" in text:
        text = html.unescape(text)
    if "\\" in text or "$" in text:
        text = _URL_CMD.sub(r"\1", text)
        text = _FORMAT_CMD.sub(r"\1", text)
        text = _MATH.sub(_math, text)
        text = _MACRO.sub(lambda m: _MACROS.get(m.group(1), "\\" + m.group(1)), text)
    if "*" in text:
        text = _EMPH.sub("", text)
    if "_" in text:
        text = _UNDERSCORE.sub("", text)
    text = _TEX_QUOTES.sub('"', text)
    text = text.translate(_DASHES)
    return _WS.sub(" ", text).strip()


_IRREGULAR = {"indices": "index", "matrices": "matrix", "vertices": "vertex", "analyses": "analysis",
              "hypotheses": "hypothesis", "data": "data", "criteria": "criterion",
              "phenomena": "phenomenon", "bases": "basis", "axes": "axis", "series": "series",
              "species": "species", "gaussians": "gaussian", "bayes": "bayes"}
_NO_S = ("ss", "us", "is", "ias", "ics", "ous", "sis", "ness")


def singular(word: str) -> str:
    """Singular of an English plural noun, conservatively.

    >>> [singular(w) for w in ["models", "strategies", "processes", "kernels", "bus", "dynamics", "bias", "biases", "Bayes"]]
    ['model', 'strategy', 'process', 'kernel', 'bus', 'dynamics', 'bias', 'bias', 'Bayes']
    """
    low = word.lower()
    if low in _IRREGULAR:
        out = _IRREGULAR[low]
        return out[:1].upper() + out[1:] if word[:1].isupper() else out
    if len(low) <= 3 or not low.endswith("s") or low.endswith(_NO_S):
        return word
    if low.endswith("ies") and len(low) > 4:
        return word[:-3] + "y"
    if low.endswith(("sses", "ches", "shes", "xes", "zes", "iases")):  # biases, aliases
        return word[:-2]
    return word[:-1]


@lru_cache(maxsize=1 << 17)
def fold(name: str) -> str:
    """Matching key: case-folded, dashes and punctuation as spaces, last word singular.
    Cached: extraction and resolution fold the same names over and over."""
    name = clean(name).lower()
    name = re.sub(r"[-_/\\\s]+", " ", name).strip(" .,;:")
    if not name:
        return ""
    head, _, last = name.rpartition(" ")
    last = singular(last)
    return f"{head} {last}" if head else last


_SLUG_SUB = {"+": " plus ", "#": " sharp ", "&": " and "}
#: Greek letters spelled out, so that ``ε-submodular`` and ``submodular`` get different ids
GREEK = {"α": "alpha", "β": "beta", "γ": "gamma", "δ": "delta", "ε": "epsilon", "ϵ": "epsilon", "ζ": "zeta",
         "η": "eta", "θ": "theta", "ι": "iota", "κ": "kappa", "λ": "lambda", "μ": "mu", "ν": "nu", "ξ": "xi",
         "π": "pi", "ρ": "rho", "σ": "sigma", "τ": "tau", "υ": "upsilon", "φ": "phi", "ϕ": "phi", "χ": "chi",
         "ψ": "psi", "ω": "omega", "Δ": "delta", "Γ": "gamma", "Θ": "theta", "Λ": "lambda", "Π": "pi", "Σ": "sigma",
         "Φ": "phi", "Ψ": "psi", "Ω": "omega"}
_GREEK_SUB = str.maketrans({k: f" {v} " for k, v in GREEK.items()})


def slug(name: str) -> str:
    """A stable, IRI-safe ASCII slug for a canonical name; non-Latin names get a hash."""
    text = unicodedata.normalize("NFKC", name)
    for k, v in _SLUG_SUB.items():
        text = text.replace(k, v)
    text = text.translate(_GREEK_SUB)
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    out = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    if not out or len(out) * 2 < len(name.strip()):
        out = (out + "-" if out else "") + short_hash(name, 8)
    if len(out) > MAX_SLUG:  # every sink takes the id (Neo4j indexes, IRIs, file names)
        out = out[:MAX_SLUG - 17].rstrip("-") + "-" + short_hash(name, 16)
    return out


#: the longest slug kept as written; a longer one keeps its start and gains a hash of the name
MAX_SLUG = 200


_TERMINAL = re.compile("[\u0000-\u0008\u000b-\u001f\u007f-\u009f]")


def shown(text: str) -> str:
    r"""``text`` safe to print on a terminal: control characters (an escape sequence could clear
    the screen, retitle the window or hide what follows) are written as ``\xNN``; tabs and
    line breaks stay.

    >>> shown("Evil\x1b[2JNet\tok")
    'Evil\\x1b[2JNet\tok'
    """
    return _TERMINAL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def short_hash(text: str, n: int = 12) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:n]


@lru_cache(maxsize=1 << 17)
def entity_id(label: str, name: str) -> str:
    """``technique:speculative-decoding``: the stable id of an entity from its label and name."""
    return f"{label.lower()}:{slug(name)}"
