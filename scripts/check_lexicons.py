"""Check the curated lexicons in this folder.

Usage: python schema/lexicons/check.py [--strict] [--quiet]

Errors (exit status 1): a line that is not a JSON object; unknown or misordered
keys; empty values; a file not sorted by name (case-insensitive); a name used
twice; an alias claimed by two entries or equal to another entry's name; an
alias repeating its own name (up to case when the name is lower-case; a
lower-case alias of a capitalised name is allowed, being its case-insensitive
form); a generic English word as a name or alias; a `broader` cycle.

Warnings (exit status 1 only with --strict): a `broader` value found in no
lexicon; a form whose regular plural is another entry's form; an alias that is
only a regular plural or hyphen/space variant of the entry's lower-case forms
(the matcher adds those); a surface form shared by two files (except a model
family with the Method or Technique of the same architecture); a very short
lower-case alphabetic alias.

Info: `broader` values that point into another lexicon (e.g. a Method whose
broader concept is a Technique), counted per file.
"""

from __future__ import annotations

import json
import re
import sys
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parents[1] / "kg" / "data" / "schema" / "lexicons"
FILES = ("technique", "task", "dataset", "metric", "software", "model_family", "method")
KEYS = ("name", "aliases", "broader")
EXTRA_KEYS = {"model_family": ("org",)}

# Words that must never be a name or alias on their own: they would match
# ordinary prose in every abstract.
GENERIC = frozenset(
    """
    a an the model models method methods framework frameworks approach approaches
    learning training data dataset datasets network networks attention algorithm
    algorithms system systems task tasks performance result results analysis theory
    optimization inference generation prediction classification regression
    representation representations embedding embeddings architecture module layer
    loss objective policy agent memory reasoning planning search sampling experiment
    evaluation benchmark benchmarks baseline feature features structure graph function
    process information knowledge language image images text video signal noise score
    error distance quality efficiency robustness generalization scale scaling transfer
    alignment adaptation control decoding encoding retrieval detection segmentation
    translation recognition understanding tuning distillation augmentation
    normalization estimation solver simulation environment agents tool tools
    momentum forecasting exploration recommendation""".split()  # noqa: SIM905
)


def key(form: str) -> str:
    """Comparison key: case-folded, hyphens/dashes/underscores as spaces."""
    return " ".join(re.sub(r"[-\u2010-\u2015_]", " ", form.casefold()).split())


def case_sensitive(form: str) -> bool:
    """Forms with an upper-case letter are matched as written."""
    return any(c.isupper() for c in form)


def clash(a: str, b: str) -> bool:
    """Would the matcher treat these two surface forms as the same?"""
    if key(a) != key(b):
        return False
    if case_sensitive(a) and case_sensitive(b):
        # both matched as written: only hyphen/space variants collide
        return re.sub(r"[-\s]", "", a) == re.sub(r"[-\s]", "", b)
    return True


def load(stem: str, errors: list[str]) -> list[dict]:
    path = HERE / f"{stem}.jsonl"
    if not path.exists():
        errors.append(f"{path.name}: missing")
        return []
    allowed = KEYS + EXTRA_KEYS.get(stem, ())
    rows = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        where = f"{path.name}:{n}"
        try:
            e = json.loads(line)
        except json.JSONDecodeError as exc:
            errors.append(f"{where}: not JSON ({exc})")
            continue
        if not isinstance(e, dict):
            errors.append(f"{where}: not an object")
            continue
        keys = list(e)
        if any(k not in allowed for k in keys):
            errors.append(f"{where}: unknown key(s) {[k for k in keys if k not in allowed]}")
        elif keys != [k for k in allowed if k in e]:
            errors.append(f"{where}: keys out of order {keys}; expected order {list(allowed)}")
        name = e.get("name")
        if not isinstance(name, str) or not name.strip() or name != " ".join(name.split()):
            errors.append(f"{where}: bad name {name!r}")
            continue
        for k in ("aliases", "broader"):
            if k in e:
                v = e[k]
                if not isinstance(v, list) or not v or not all(
                    isinstance(x, str) and x.strip() and x == " ".join(x.split()) for x in v
                ):
                    errors.append(f"{where}: {k} must be a non-empty list of trimmed strings")
                elif len(set(v)) != len(v):
                    errors.append(f"{where}: repeated value in {k}")
        if "org" in e and (not isinstance(e["org"], str) or not e["org"].strip()):
            errors.append(f"{where}: empty org")
        e["_where"] = where
        rows.append(e)
    names = [e["name"].casefold() for e in rows]
    for i in range(1, len(names)):
        if names[i] < names[i - 1]:
            errors.append(f"{rows[i]['_where']}: not sorted ({rows[i]['name']!r} after {rows[i-1]['name']!r})")
    return rows


def check_file(stem: str, rows: list[dict], errors: list[str], warnings: list[str]) -> None:
    forms: list[tuple[str, str, bool]] = []  # (form, owner name, is_name)
    for e in rows:
        forms.append((e["name"], e["name"], True))
        for a in e.get("aliases", []):
            forms.append((a, e["name"], False))
    by_key = defaultdict(list)
    for f in forms:
        by_key[key(f[0])].append(f)

    for e in rows:
        where, name = e["_where"], e["name"]
        own = [name] + e.get("aliases", [])
        for f in own:
            if key(f) in GENERIC:
                errors.append(f"{where}: generic word {f!r}")
        for a in e.get("aliases", []):
            if a == name or (not case_sensitive(name) and a.casefold() == name.casefold()):
                errors.append(f"{where}: alias {a!r} repeats the name")
            elif not case_sensitive(a) and not case_sensitive(name) and key(a) == key(name):
                warnings.append(f"{where}: alias {a!r} is only a hyphen/space variant of the name (the matcher adds those)")
            others = [o for o in e.get("aliases", []) if o != a]
            for base in [name] + others:
                # acronym plurals (LLMs) are wanted: forms with capitals are matched as written
                if not case_sensitive(base) and not case_sensitive(a) and key(a) in (key(base) + "s", key(base) + "es"):
                    warnings.append(f"{where}: alias {a!r} is a regular plural of {base!r} (the matcher adds plurals)")
                    break
            if not case_sensitive(a) and len(a) <= 3 and a.isalpha():
                warnings.append(f"{where}: very short lowercase alias {a!r}")
        for b in e.get("broader", []):
            if key(b) == key(name):
                errors.append(f"{where}: broader points to itself")

    for _key, group in by_key.items():
        owners = {g[1] for g in group}
        if len(owners) < 2:
            continue
        for i, (fa, oa, na) in enumerate(group):
            for fb, ob, nb in group[i + 1 :]:
                if oa == ob or not clash(fa, fb):
                    continue
                if na and nb:
                    errors.append(f"{stem}: duplicate name {fa!r} / {fb!r}")
                elif na or nb:
                    alias, owner, target = (fb, ob, fa) if na else (fa, oa, fb)
                    errors.append(f"{stem}: alias {alias!r} of {owner!r} equals the name {target!r}")
                else:
                    errors.append(f"{stem}: alias {fa!r} claimed by both {oa!r} and {ob!r}")

    # the matcher adds regular plurals: "X" + "s" must not be another entry's form
    exact = defaultdict(set)
    for f, owner, _ in forms:
        exact[f].add(owner)
    for f, owner, _ in forms:
        for suffix in ("s", "es"):
            plural = f + suffix
            if case_sensitive(f):
                others = exact.get(plural, set()) - {owner}
            else:
                others = {o for g, o, _ in by_key.get(key(plural), []) if o != owner}
            for o in sorted(others):
                warnings.append(f"{stem}: plural of {f!r} ({owner!r}) is a form of {o!r}")

    # broader cycles
    name_of = {key(e["name"]): e["name"] for e in rows}
    parents = {e["name"]: [name_of[key(b)] for b in e.get("broader", []) if key(b) in name_of] for e in rows}

    def cyclic(start: str) -> bool:
        seen, stack = set(), list(parents[start])
        while stack:
            p = stack.pop()
            if p == start:
                return True
            if p not in seen:
                seen.add(p)
                stack.extend(parents.get(p, []))
        return False

    for e in rows:
        if cyclic(e["name"]):
            errors.append(f"{e['_where']}: broader cycle through {e['name']!r}")


def _architecture(stem_a: str, stem_b: str) -> bool:
    """A model family that also names an architecture (ResNet, Swin Transformer, ViT) is listed
    twice on purpose: the bare name is the Method or Technique, sized checkpoints (ResNet-50,
    ViT-B/16) are Models found through the family."""
    return {stem_a, stem_b} in ({"model_family", "method"}, {"model_family", "technique"})


def main(argv: list[str]) -> int:
    strict, quiet = "--strict" in argv, "--quiet" in argv
    errors: list[str] = []
    warnings: list[str] = []
    data = {stem: load(stem, errors) for stem in FILES}
    for stem, rows in data.items():
        check_file(stem, rows, errors, warnings)

    all_names = {stem: {key(e["name"]) for e in rows} for stem, rows in data.items()}
    missing: dict[str, list[str]] = defaultdict(list)
    cross: dict[str, list[str]] = defaultdict(list)
    for stem, rows in data.items():
        for e in rows:
            for b in e.get("broader", []):
                if key(b) in all_names[stem]:
                    continue
                homes = [s for s in FILES if key(b) in all_names[s]]
                if homes:
                    cross[stem].append(f"{e['name']} -> {b} ({', '.join(homes)})")
                else:
                    missing[stem].append(f"{e['name']} -> {b}")
    for stem in FILES:
        for m in missing[stem]:
            warnings.append(f"{stem}: broader not found in any lexicon: {m}")

    # the same surface form in two files: the type depends on context
    seen: dict[str, list[tuple[str, str, str]]] = defaultdict(list)
    for stem, rows in data.items():
        for e in rows:
            for f in [e["name"]] + e.get("aliases", []):
                seen[key(f)].append((stem, e["name"], f))
    shared = []
    for k, hits in sorted(seen.items()):
        files = {h[0] for h in hits}
        if len(files) > 1:
            pairs = [(a, b) for i, a in enumerate(hits) for b in hits[i + 1 :] if a[0] != b[0] and clash(a[2], b[2])
                     and not _architecture(a[0], b[0])]
            if pairs:
                shared.append(k + ": " + "; ".join(f"{s}/{n}" for s, n, _ in hits))
    for s in shared:
        warnings.append(f"form shared across files: {s}")

    counts = {stem: len(rows) for stem, rows in data.items()}
    for msg in errors:
        print("ERROR", msg)
    if not quiet:
        for msg in warnings:
            print("warning", msg)
        for stem in FILES:
            if cross[stem]:
                print(f"info {stem}: {len(cross[stem])} broader value(s) point into another lexicon, e.g. {cross[stem][0]}")
    print("counts:", ", ".join(f"{k}={v}" for k, v in counts.items()))
    print(f"{len(errors)} error(s), {len(warnings)} warning(s)")
    return 1 if errors or (strict and warnings) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
