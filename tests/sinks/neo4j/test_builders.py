"""The Neo4j sink without a server: Cypher builders as strings, parameter rows, query files,
the Browser style, the CLI's parsing, and the loader's batching against a stub driver."""

from __future__ import annotations

import re
from pathlib import Path

import networkx as nx
import pytest
from typer.testing import CliRunner

from kg.cli import app, exit_code
from kg.cli.neo4j import parse_param
from kg.errors import ExportError, Neo4jUnavailable, QueryError
from kg.schema import EDGE_PROPS, LABELS, RELATIONS
from kg.sinks.neo4j import store as ns

ROOT = Path(__file__).resolve().parents[3]
QUERIES = sorted((ROOT / "queries").glob("*.cypher"))
BAD_NAMES = ["Foo", "paper", "Paper) DETACH DELETE n //", "Paper`", "USES]->() //", "", "Entity ", "Paper:Venue"]


# ---------------------------------------------------------------- builders


def test_constraints_one_per_label_from_the_schema():
    stmts = ns.constraint_statements()
    labels = [re.search(r"FOR \(n:(\w+)\) REQUIRE n\.id IS UNIQUE\Z", q).group(1) for q in stmts]
    assert labels == [*LABELS, "Entity"]
    names = [q.split()[2] for q in stmts]
    assert len(set(names)) == len(names)
    assert all(q.startswith("CREATE CONSTRAINT kg_") and " IF NOT EXISTS " in q for q in stmts)


def test_indexes_cover_names_and_full_text():
    stmts = ns.index_statements()
    assert all(" IF NOT EXISTS " in q for q in stmts)
    for label in LABELS:
        assert f"CREATE INDEX kg_{label.lower()}_name IF NOT EXISTS FOR (n:{label}) ON (n.name)" in stmts
    assert "CREATE INDEX kg_paper_year IF NOT EXISTS FOR (n:Paper) ON (n.year)" in stmts
    assert "CREATE INDEX kg_model_family IF NOT EXISTS FOR (n:Model) ON (n.family)" in stmts
    assert ("CREATE FULLTEXT INDEX kg_entity_names IF NOT EXISTS FOR (n:Entity) "
            "ON EACH [n.name, n.aliases]") in stmts
    assert ns.schema_statements() == ns.constraint_statements() + stmts


def test_node_merge_statements():
    assert ns.merge_nodes_query("Paper") == (
        "UNWIND $rows AS row\nMERGE (n:Paper {id: row.id})\nSET n += row.props")
    assert ns.merge_nodes_query("Technique") == (
        "UNWIND $rows AS row\nMERGE (n:Technique {id: row.id})\nSET n += row.props, n:Entity")
    assert ns.merge_node_row_query("Model") == "MERGE (n:Model {id: $id})\nSET n += $props, n:Entity"
    assert ns.merge_node_row_query("Venue") == "MERGE (n:Venue {id: $id})\nSET n += $props"


def test_relationship_merge_statements_match_both_ends_by_label():
    assert ns.merge_relationships_query("Author", "AUTHORED", "Paper") == (
        "UNWIND $rows AS row\nMATCH (a:Author {id: row.src})\nMATCH (b:Paper {id: row.dst})\n"
        "MERGE (a)-[r:AUTHORED {key: row.key}]->(b)\nSET r += row.props\nRETURN count(r) AS n")
    assert ns.merge_relationship_row_query("Model", "VARIANT_OF", "Model") == (
        "MATCH (a:Model {id: $src})\nMATCH (b:Model {id: $dst})\n"
        "MERGE (a)-[r:VARIANT_OF {key: $key}]->(b)\nSET r += $props\nRETURN count(r) AS n")


def test_wipe_and_count_statements_name_only_kg_labels_and_types():
    roots = "|".join([n for n, lab in LABELS.items() if lab.parent is None] + ["Entity"])
    assert roots.startswith("Paper|Venue|Author|")
    assert ns.wipe_query(100) == f"MATCH (n:{roots}) WITH n LIMIT 100 DETACH DELETE n RETURN count(*) AS n"
    assert ns.count_nodes_query() == f"MATCH (n:{roots}) RETURN count(n) AS n"
    assert ns.count_relationships_query() == f"MATCH ()-[r:{'|'.join(RELATIONS)}]->() RETURN count(r) AS n"


@pytest.mark.parametrize("bad", BAD_NAMES)
def test_builders_refuse_names_outside_the_schema(bad):
    for build in (ns.merge_nodes_query, ns.merge_node_row_query, ns.label_name):
        with pytest.raises(ValueError, match="kg.schema"):
            build(bad)
    with pytest.raises(ValueError):
        ns.merge_relationships_query("Paper", bad, "Method")
    with pytest.raises(ValueError):
        ns.merge_relationships_query(bad, "USES", "Method")
    with pytest.raises(ValueError):
        ns.merge_relationship_row_query("Paper", "USES", bad)


def test_no_statement_carries_a_literal_value():
    """Values only ever travel as parameters: no quotes in any generated statement."""
    stmts = ns.schema_statements() + [ns.wipe_query(), ns.count_nodes_query(), ns.count_relationships_query()]
    for label in LABELS:
        stmts += [ns.merge_nodes_query(label), ns.merge_node_row_query(label)]
    for t in RELATIONS:
        for s in LABELS:
            stmts += [ns.merge_relationships_query(s, t, "Paper"), ns.merge_relationship_row_query(s, t, "Method")]
    for q in stmts:
        assert "'" not in q and '"' not in q and "`" not in q, q


# ---------------------------------------------------------------- parameter rows


def _tiny() -> nx.MultiDiGraph:
    G = nx.MultiDiGraph()
    G.add_node("paper:p1", label="Paper", name="P", title="P", abstract="We use BERT.", year=2024)
    G.add_node("model:bert", label="Model", name="BERT", aliases=("Bert",), papers=1, extra={"a": 1})
    G.add_edge("paper:p1", "model:bert", key="USES|p1", type="USES", paper="p1", confidence=0.5)
    G.add_edge("paper:p1", "model:bert", key="MEASURES|p1", type="USES", paper="p1")
    return G


def test_node_rows_null_absent_declared_properties():
    rows = ns.node_rows(_tiny())
    assert set(rows) == {"Paper", "Model"}
    (bert,) = rows["Model"]
    assert bert["id"] == "model:bert"
    assert bert["props"]["aliases"] == ["Bert"]  # tuples become lists
    assert bert["props"]["extra"] == '{"a": 1}'  # maps are not property values: JSON text
    assert bert["props"]["family"] is None and "label" not in bert["props"] and "id" not in bert["props"]
    paper = rows["Paper"][0]["props"]
    assert paper["url"] is None and paper["year"] == 2024 and "papers" not in paper


def test_a_paper_carries_its_venue_as_kg_show_prints_it():
    """Paper nodes in Neo4j had no venue: a query or Browser's panel had to follow PUBLISHED_IN."""
    from kg.explore.lookup import show

    G = _tiny()
    G.add_node("paper:p2", label="Paper", name="Q", title="Q", abstract="We use BERT too.")
    G.add_node("venue:icml-2024", label="Venue", name="ICML 2024", year=2024)
    G.add_edge("paper:p1", "venue:icml-2024", key="PUBLISHED_IN", type="PUBLISHED_IN")
    papers = {r["id"]: r["props"] for r in ns.node_rows(G)["Paper"]}
    assert papers["paper:p1"]["venue"] == show(G, "paper:p1").matches[0].venue == "ICML 2024"
    assert "venue" in papers["paper:p2"] and papers["paper:p2"]["venue"] is None  # null: an old venue goes
    assert all("venue" not in r["props"] for r in ns.node_rows(G)["Venue"])


def test_relationship_rows_grouped_by_labels_and_type():
    rows = ns.relationship_rows(_tiny())
    assert list(rows) == [("Paper", "USES", "Model")]
    assert sorted(r["key"] for r in rows[("Paper", "USES", "Model")]) == ["MEASURES|p1", "USES|p1"]
    props = rows[("Paper", "USES", "Model")][0]["props"]
    assert set(props) >= {p.name for p in EDGE_PROPS} and "type" not in props and "key" not in props


def test_rows_refuse_labels_and_types_outside_the_schema():
    G = _tiny()
    G.nodes["model:bert"]["label"] = "Model) DETACH DELETE n //"
    with pytest.raises(ExportError, match="kg.schema does not define"):
        ns.node_rows(G)
    G = _tiny()
    G.add_edge("paper:p1", "model:bert", key="x", type="DROPS")
    with pytest.raises(ExportError, match="'DROPS'"):
        ns.relationship_rows(G)


# ---------------------------------------------------------------- loader against a stub driver


class _Counters:
    def __init__(self, nodes=0, rels=0):
        self.nodes_created, self.relationships_created = nodes, rels


class _Result:
    def __init__(self, query, params):
        self.query, self.params = query, params
        self.rows = params.get("rows", [params])

    def __iter__(self):
        return iter([{"n": len(self.rows)}] if "RETURN count(r)" in self.query else [])

    def single(self):  # a wipe: nothing left to delete
        return {"n": 0}

    def consume(self):
        rels = "MERGE (a)" in self.query
        return type("S", (), {"counters": _Counters(0 if rels else len(self.rows), len(self.rows) if rels else 0)})


class _Stub:
    """Records what a load sends: statements run outside and inside write transactions."""

    def __init__(self):
        self.run_calls, self.tx_calls = [], []

    def session(self, **_):
        return self

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def run(self, query, params=None):
        self.run_calls.append(query)
        return _Result(query, params or {})

    def execute_write(self, fn, *args):
        stub = self

        class Tx:
            def run(self, query, params=None):
                stub.tx_calls.append((query, params or {}))
                return _Result(query, params or {})

        return fn(Tx(), *args)


def test_batch_mode_sends_one_transaction_per_batch():
    G = nx.MultiDiGraph()
    for i in range(25):
        G.add_node(f"technique:t{i}", label="Technique", name=f"t{i}")
        G.add_node(f"paper:p{i}", label="Paper", name=f"p{i}")
        G.add_edge(f"paper:p{i}", f"technique:t{i}", key=f"USES|p{i}", type="USES")
    d = _Stub()
    res = ns.load(G, d, batch_size=10)
    assert d.run_calls[:len(ns.schema_statements())] == ns.schema_statements()
    sizes = [len(p["rows"]) for _, p in d.tx_calls]
    assert sizes == [10, 10, 5, 10, 10, 5, 10, 10, 5]  # Paper nodes, Technique nodes, USES
    assert (res.nodes, res.relationships, res.nodes_created, res.relationships_created) == (50, 25, 50, 25)


def test_row_mode_sends_one_statement_per_row():
    d = _Stub()
    res = ns.load(_tiny(), d, mode="row")
    assert len(d.tx_calls) == 2 + 2
    assert all("UNWIND" not in q for q, _ in d.tx_calls)
    assert res.mode == "row" and res.relationships_created == 2


class _Occupied(_Stub):
    """A database that already holds three papers of another graph."""

    def run(self, query, params=None):
        if query == ns.foreign_papers_query():
            self.asked = sorted(params["ids"])
            return [{"n": 3}]
        return super().run(query, params)


def test_a_load_beside_another_graphs_papers_says_so_and_names_wipe(sample_graph_dir, monkeypatch):
    """kg load MERGEd into a database holding another graph without a word: queries then counted
    both graphs' papers."""
    d = _Occupied()
    res = ns.load(_tiny(), d)
    assert res.others == 3 and d.asked == ["paper:p1"]
    assert ns.load(_tiny(), _Occupied(), wipe_first=True).others == 0  # wiped: nothing of another graph stays
    assert ns.load(_tiny(), _Stub()).others == 0
    monkeypatch.setattr(ns, "connect", lambda *a, **k: _Closing())
    res = CliRunner().invoke(app, ["load", "-g", str(sample_graph_dir), "--uri", "bolt://127.0.0.1:7687"])
    assert res.exit_code == 0, res.output
    assert "warning: bolt://127.0.0.1:7687 already held 3 papers that are not in" in res.stderr
    assert "kg load --wipe replaces them" in res.stderr
    res = CliRunner().invoke(app, ["load", "-g", str(sample_graph_dir), "--wipe"])
    assert res.exit_code == 0 and "warning" not in res.stderr


class _Closing(_Occupied):
    def close(self):
        pass


def test_load_refuses_bad_mode_and_batch_size():
    with pytest.raises(ValueError):
        ns.load(_tiny(), _Stub(), mode="fast")
    with pytest.raises(ValueError):
        ns.load(_tiny(), _Stub(), batch_size=0)


# ---------------------------------------------------------------- errors


def test_translate_says_what_to_do_and_never_shows_the_password():
    from neo4j.exceptions import AuthError, ServiceUnavailable

    e = ns.translate(ServiceUnavailable("refused"), "bolt://me:s3cret@127.0.0.1:1")
    assert isinstance(e, Neo4jUnavailable) and exit_code(e) == 3
    assert str(e) == ("cannot reach Neo4j at bolt://127.0.0.1:1: start a Neo4j 5 server, or give the address "
                      "of yours (NEO4J_URI, or the uri argument)")  # an installed kg has no scripts/
    e = ns.translate(AuthError("no"), "bolt://127.0.0.1:7687", "neo4j")
    assert isinstance(e, Neo4jUnavailable) and "NEO4J_PASSWORD" in str(e)
    assert "s3cret" not in ns.safe_uri("neo4j+s://u:s3cret@x.databases.neo4j.io")


# ---------------------------------------------------------------- query files


def test_parse_cypher_splits_param_lines():
    s = ns.parse_cypher("// hi\n:param a => 'x; y';\n:param  b=>[1, 2]\nMATCH (n) RETURN n;\n")
    assert s.param_examples == {"a": "'x; y'", "b": "[1, 2]"}
    assert s.query == "// hi\nMATCH (n) RETURN n"
    with pytest.raises(QueryError, match=":param"):
        ns.parse_cypher(":style\nMATCH (n) RETURN n")
    with pytest.raises(QueryError, match="empty"):
        ns.parse_cypher("  ;\n")


def test_there_are_at_least_ten_queries():
    assert len(QUERIES) >= 10


@pytest.mark.parametrize("path", QUERIES, ids=lambda p: p.name)
def test_each_query_says_what_it_answers_and_declares_its_params(path):
    text = path.read_text(encoding="utf-8")
    assert text.startswith("// ") and "?" in text.split("\n", 1)[0], "first line: the question it answers"
    params_line = next(line for line in text.splitlines() if line.startswith("// Params:"))
    script = ns.parse_cypher(text)
    body = "\n".join(line for line in script.query.splitlines() if not line.lstrip().startswith("//"))
    used = set(re.findall(r"\$([A-Za-z_]\w*)", body))
    declared = set(re.findall(r"\$([A-Za-z_]\w*)", params_line))
    assert used == declared, f"{path.name}: Params line says {declared}, query uses {used}"
    assert set(script.param_examples) == used, "one :param example line per parameter"
    assert (params_line == "// Params: none.") == (not used)
    assert ";" not in body, "one statement per file"


# ---------------------------------------------------------------- Browser style


def _grass_rules(text: str) -> dict[str, dict[str, str]]:
    """Parse grass the way Neo4j Browser does: selector { key: value; ... }, no comments."""
    rules = {}
    for sel, body in re.findall(r"([\w.]+)\s*\{([^{}]*(?:\{[^{}]*\}[^{}]*)*)\}", text):
        props = {}
        for decl in body.split(";"):
            kv = decl.split(":")
            if len(kv) == 2:
                props[kv[0].strip()] = kv[1].strip().strip('"')
        rules[sel] = props
    return rules


def test_grass_styles_every_label_and_captions_by_display():
    text = (ROOT / "schema" / "kg.grass").read_text(encoding="utf-8")
    assert "/*" not in text and "//" not in text, "Browser's grass parser has no comments"
    rules = _grass_rules(text)
    colours = {rules[f"node.{lab}"]["color"] for lab in LABELS}
    assert len(colours) == len(LABELS), "one colour per label"
    for lab in LABELS:
        assert rules[f"node.{lab}"]["caption"] == "{display}"
        size = {**rules["node"], **(rules["node.Entity"] if LABELS[lab].parent else {}), **rules[f"node.{lab}"]}
        diameter, font = (float(size[k].removesuffix("px")) for k in ("diameter", "font-size"))
        # Browser fits a caption into the circle at this font size: a diameter of 8.75 to 10
        # font sizes holds 97% of the ICML 2024 displays whole; the default 5 cuts most
        assert font >= 8 and diameter / font >= 8.75, lab
    assert rules["relationship"]["caption"] == "<type>"
    order = list(rules)
    assert all(order.index("node.Entity") < order.index(f"node.{lab}") for lab in LABELS)


# ---------------------------------------------------------------- CLI


def test_parse_param_reads_json_else_text():
    assert parse_param("n=3") == ("n", 3)
    assert parse_param("t=speculative decoding") == ("t", "speculative decoding")
    assert parse_param("x=null") == ("x", None)
    assert parse_param('l=["a", 1]') == ("l", ["a", 1])
    assert parse_param("s=a=b") == ("s", "a=b")
    import typer

    with pytest.raises(typer.BadParameter):
        parse_param("no-equals")


@pytest.mark.parametrize("command", ["load", "cypher"])
def test_help_has_an_example_and_never_shows_the_password(command):
    res = CliRunner().invoke(app, [command, "--help"], env={"NEO4J_PASSWORD": "pw-from-env-123",
                                                            "COLUMNS": "200"})
    assert res.exit_code == 0
    assert "Example:" in res.output and "NEO4J_PASSWORD" in res.output
    assert "pw-from-env-123" not in res.output


@pytest.mark.parametrize("uri", ["http://127.0.0.1:7474", "127.0.0.1:7687", "bolt://me:pw-9z@h:7687"])
def test_uris_kg_cannot_use_are_refused_before_connecting(uri):
    with pytest.raises(Neo4jUnavailable, match="cannot use the Neo4j URI") as info:
        ns.connect(uri, "neo4j", "secret-1")
    assert "pw-9z" not in str(info.value) and "secret-1" not in str(info.value)


class _Stopping(_Stub):
    """A server that stops while the relationships load: its database becomes unavailable."""

    def execute_write(self, fn, *args):
        from neo4j.exceptions import Neo4jError

        if len(self.tx_calls) >= 2:
            raise Neo4jError._hydrate_neo4j(code="Neo.TransientError.General.DatabaseUnavailable",
                                            message="Database 'neo4j' is unavailable.")
        return super().execute_write(fn, *args)


def test_a_server_that_stops_mid_load_is_unreachable_exit_3_not_usage():
    with pytest.raises(Neo4jUnavailable) as info:
        ns.load(_tiny(), _Stopping(), uri="bolt://127.0.0.1:7687")
    assert exit_code(info.value) == 3 and "run the command again" in str(info.value)
    from neo4j.exceptions import Neo4jError

    busy = Neo4jError._hydrate_neo4j(code="Neo.TransientError.General.MemoryPoolOutOfMemoryError", message="full")
    assert exit_code(ns.translate(busy, "bolt://127.0.0.1:7687")) == 3
    syntax = Neo4jError._hydrate_neo4j(code="Neo.ClientError.Statement.SyntaxError", message="bad")
    assert exit_code(ns.translate(syntax, "bolt://127.0.0.1:7687")) == 2  # the request's fault stays 2
