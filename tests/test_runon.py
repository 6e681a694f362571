"""Work per record grows linearly: run-on text with no sentence break is read in bounded pieces."""

from __future__ import annotations

import json
import resource
import subprocess
import sys

from kg.extract.docutil import MAX_SENTENCE, sentence_chars

PHRASE = ("we propose FooNet, a transformer with sparse attention, and evaluate it on ImageNet "
          "against ResNet-50 with top-1 accuracy and calibration error, ")


def test_run_on_text_is_cut_into_bounded_pieces():
    text = PHRASE * 3000  # 400 KB, no sentence end
    pieces = sentence_chars(text)
    assert max(b - a for a, b in pieces) <= MAX_SENTENCE
    assert all(text[b:n].strip(" ,;:") == "" for (_, b), (n, _) in zip(pieces, pieces[1:], strict=False))
    assert pieces[0][0] == 0 and pieces[-1][1] == len(text.rstrip())
    # ordinary sentences are not touched
    assert sentence_chars("We use BERT. It works.") == [(0, 12), (13, 22)]


def test_run_on_abstract_builds_in_bounded_memory_and_output(tmp_path):
    rec = {"id": "runon", "title": "A run-on abstract", "abstract": PHRASE * 2000}  # 270 KB
    src = tmp_path / "runon.jsonl"
    src.write_text(json.dumps(rec) + "\n", encoding="utf-8")
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    proc = subprocess.run([sys.executable, "-m", "kg.cli", "build", str(src), "-o", str(tmp_path / "g")],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    written = sum(p.stat().st_size for p in (tmp_path / "g").rglob("*") if p.is_file() and not p.is_symlink())
    # one evidence sentence per mention used to be the whole abstract: 824 MB written, 1.4 GB peak
    assert written < 40 * len(rec["abstract"]), written
    if before < 500 * 1024:  # an earlier child of this process may have been bigger
        assert peak_mb < 500, peak_mb
