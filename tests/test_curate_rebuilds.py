"""Curation end to end: twenty decisions of every kind survive a rebuild, an incremental add,
a --fresh build and a copy to another graph, and the curated outputs are byte-identical."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

NAMES = ["Alder", "Birch", "Cedar", "Dogwood", "Elm", "Fir", "Ginkgo", "Hazel", "Ivy", "Juniper", "Larch", "Maple",
         "Nutmeg", "Oak", "Pine", "Quince", "Rowan", "Spruce", "Teak", "Umbra", "Vine", "Willow", "Yew", "Zelkova",
         "Acacia", "Banyan", "Cypress", "Durian", "Ebony", "Fig", "Guava", "Hickory", "Iroko", "Jatoba", "Kapok",
         "Lilac", "Mango", "Neem", "Olive", "Poplar"]


def _abstract(i: int) -> str:
    a, g, b = NAMES[i], NAMES[(i + 7) % 40], NAMES[i // 2]
    return (f"We propose {a}Net, a sparse transformer for image classification. {a}Net builds on {g}Former "
            f"and outperforms {b}Flow on ImageNet.")


def _write(path: Path, ids: range) -> Path:
    lines = [json.dumps({"id": f"p{i:02d}", "title": f"{NAMES[i]}Net", "abstract": _abstract(i),
                         "venue": "Curation 2026", "year": 2026}) for i in ids]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _m(name: str) -> str:
    return f"method:{name.lower()}"


def decisions() -> list[dict]:
    """Twenty decisions of each of the six kinds over the forty papers."""
    out: list[dict] = []
    out += [dict(op="merge", node=_m(f"{n}Former"), into=_m(f"{n}Net")) for n in NAMES[:20]]
    out += [dict(op="split", node=_m(f"{NAMES[j]}Flow"), name=f"{NAMES[j]}Flow II", papers=[f"p{2 * j + 1:02d}"])
            for j in range(20)]
    out += [dict(op="reject", node=_m(f"{n}Former")) for n in NAMES[20:30]]
    out += [dict(op="reject", source=f"paper:p{i:02d}", type="PROPOSES", target=_m(f"{NAMES[i]}Net"))
            for i in range(30, 40)]
    out += [dict(op="relabel", node=_m(f"{n}Net"), label="Technique") for n in NAMES[20:40]]
    out += [dict(op="rename", node=_m(f"{n}Former"), name=f"{n} Former") for n in NAMES[30:40]]
    out += [dict(op="rename", node=_m(f"{NAMES[j]}Flow"), name=f"{NAMES[j]} Flow") for j in range(10)]
    out += [dict(op="propose", paper=f"p{i:02d}", node=_m(f"{NAMES[(i + 7) % 40]}Former"))
            for i in [*range(33, 40), *range(13)]]
    return out


@pytest.fixture()
def env(monkeypatch):
    monkeypatch.setenv("KG_SPANS", "off")
    monkeypatch.setenv("KG_ENCODER", "off")
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    monkeypatch.setenv("KG_PROGRESS", "0")


def _curated(folder: Path, sources: bool = True) -> bytes:
    from kg.io.format import graph_lines, load_graph

    G = load_graph(folder)
    if not sources:
        for _, d in G.nodes(data=True):
            d.pop("source", None)
    return b"\n".join(graph_lines(G))


def _outputs(folder: Path, tmp: Path) -> dict[str, bytes]:
    from kg.sinks import export_graph

    export_graph(folder, "nt", tmp / "out.nt")
    export_graph(folder, "graphml", tmp / "out.graphml")
    return {"graph": _curated(folder), "nt": (tmp / "out.nt").read_bytes(), "graphml": (tmp / "out.graphml").read_bytes()}


def test_twenty_decisions_of_every_kind_survive_every_kind_of_build(tmp_path, env):
    import kg
    from kg.builder import build

    papers = _write(tmp_path / "papers.jsonl", range(40))
    g = kg.build([papers], tmp_path / "a")
    for d in decisions():
        g.curate(by="ana", at="2026-12-01T10:00:00Z", **d)
    rows, skipped = g.curation()
    assert len(rows) == 120 and not skipped and all(why is None for _, why in rows)
    first = _outputs(tmp_path / "a", tmp_path)
    G = g.nx

    # what the decisions did
    assert _m("AlderFormer") not in G and "AlderFormer" in G.nodes[_m("AlderNet")]["aliases"]
    assert G.nodes[_m("AlderNet")]["curated_by"] == "ana" and G.nodes[_m("AlderNet")]["confidence"] == 1.0
    assert "method:alderflow-ii" in G and G.nodes["method:alderflow-ii"]["papers"] == 1
    assert _m("VineFormer") not in G and "technique:vinenet" in G and _m("VineNet") not in G
    assert not G.has_edge("paper:p30", "technique:iroconet") and not any(
        d["type"] == "PROPOSES" for _, _, d in G.out_edges("paper:p30", data=True))
    assert G.nodes[_m("GuavaFormer")]["name"] == "Guava Former"
    added = G.get_edge_data("paper:p33", _m("AlderNet"))["PROPOSES|p33"]  # AlderFormer went into AlderNet
    assert added["curated_by"] == "ana" and added["confidence"] == 1.0 and added["rule"] == "curation"

    # the same build again, a --fresh build, and the curated graph is the same, byte for byte
    build([str(papers)], tmp_path / "a")
    assert _outputs(tmp_path / "a", tmp_path) == first
    build([str(papers)], tmp_path / "a", fresh=True)
    assert _outputs(tmp_path / "a", tmp_path) == first

    # a copy to another graph built in two steps: decisions about papers not there yet wait
    part1, part2 = _write(tmp_path / "part1.jsonl", range(30)), _write(tmp_path / "part2.jsonl", range(30, 40))
    r = build([str(part1)], tmp_path / "b", curation=tmp_path / "a" / "curation.jsonl")
    assert r.curation.stale and all("no longer applies" in s and "curation.jsonl:" in s for s in r.curation.stale)
    r = build([str(part2)], tmp_path / "b")
    assert r.curation.applied == 120 and not r.curation.stale
    assert (tmp_path / "b" / "curation.jsonl").read_bytes() == (tmp_path / "a" / "curation.jsonl").read_bytes()

    # equals a one-shot build of the same two lists (a Paper node names its input file)
    build([str(part1), str(part2)], tmp_path / "c", curation=tmp_path / "b" / "curation.jsonl")
    assert _curated(tmp_path / "b") == _curated(tmp_path / "c")
    assert _curated(tmp_path / "c", sources=False) == _curated(tmp_path / "a", sources=False)


def test_the_rdf_export_attributes_curated_facts_with_prov(tmp_path, env):
    import kg

    g = kg.build([_write(tmp_path / "papers.jsonl", range(4))], tmp_path / "g")
    g.curate("propose", paper="p00", node=_m("HazelFormer"), by="ana", at="2026-12-01T10:00:00Z")
    g.curate("rename", node=_m("AlderNet"), name="Alder Net", by="bo", at="2026-12-01T11:00:00Z")
    nt = g.export(tmp_path / "g.nt").read_text(encoding="utf-8")
    prov = "http://www.w3.org/ns/prov#"
    assert f'<{prov}wasAttributedTo> "ana"' in nt and f'<{prov}generatedAtTime> "2026-12-01T10:00:00Z"' in nt
    node = next(line for line in nt.splitlines() if line.startswith("<https://w3id.org/kg/method/aldernet>")
                and "wasAttributedTo" in line)
    assert node.endswith('"bo" .')
    ttl = g.export(tmp_path / "g.ttl")
    from kg.sinks.rdf.validate import validate

    assert validate(ttl).conforms
