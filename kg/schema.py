"""The one schema source: node labels, their properties, and relationship types.

Neo4j constraints and indexes, the OWL ontology, the SHACL shapes and the JSON-LD context
are all generated from the tables here, so they cannot drift apart.

>>> LABELS["Model"].parent
'Entity'
>>> RELATIONS["PROPOSES"].domain, RELATIONS["PROPOSES"].prop
(('Paper',), 'proposes')
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from pathlib import Path

# Package data, read where the package is (a checkout, an editable install or a wheel): the
# lexicons, cue words and generated ontology, shapes and context (``schema``), the named
# queries, and the span model (``spans``). The checkout's top-level ``schema/`` and
# ``queries/`` are links to these folders.
DATA_DIR = Path(str(resources.files("kg"))) / "data"
SCHEMA_DIR = DATA_DIR / "schema"
LEXICON_DIR = SCHEMA_DIR / "lexicons"
QUERIES_DIR = DATA_DIR / "queries"


def data_file(path: Path) -> Path:
    """``path`` when it is a non-empty file of kg's data, else an error naming it: kg never
    runs on with part of its data missing (a lexicon gone makes ImageNet a Method)."""
    from kg.errors import DataMissing

    try:
        if path.stat().st_size > 0:
            return path
    except OSError:
        pass
    raise DataMissing(f"{path}: kg's data file is missing or empty; reinstall kg (pip install --force-reinstall kg)")

# RDF: the ontology namespace (``kg:``) and the prefixes the CURIEs below expand with; the
# same table serves the exports, the generated ontology and the SPARQL queries.
RDF_NAMESPACE = "https://w3id.org/kg/ontology#"
RDF_PREFIXES = {
    "kg": RDF_NAMESPACE,
    "rdf": "http://www.w3.org/1999/02/22-rdf-syntax-ns#",
    "rdfs": "http://www.w3.org/2000/01/rdf-schema#",
    "owl": "http://www.w3.org/2002/07/owl#",
    "xsd": "http://www.w3.org/2001/XMLSchema#",
    "skos": "http://www.w3.org/2004/02/skos/core#",
    "schema": "https://schema.org/",
    "dcterms": "http://purl.org/dc/terms/",
    "prov": "http://www.w3.org/ns/prov#",
    "fabio": "http://purl.org/spar/fabio/",
    "void": "http://rdfs.org/ns/void#",
}


@dataclass(frozen=True, slots=True)
class Prop:
    name: str  # property key in the graph and Neo4j; camelCase in RDF via ``rdf``
    datatype: str  # string | integer | float | string[]
    comment: str
    required: bool = False
    rdf: str = ""  # term in the kg namespace or a CURIE of a standard vocabulary


@dataclass(frozen=True, slots=True)
class Label:
    name: str
    comment: str
    parent: str | None = None  # an abstract superclass in the ontology
    equivalent: tuple[str, ...] = ()  # standard classes this label is a subclass of
    props: tuple[Prop, ...] = ()


@dataclass(frozen=True, slots=True)
class RelType:
    name: str  # UPPER_SNAKE as in Neo4j
    prop: str  # camelCase RDF property
    comment: str
    domain: tuple[str, ...]
    range: tuple[str, ...]
    equivalent: tuple[str, ...] = ()


COMMON = (
    Prop("id", "string", "Stable identifier derived from label and canonical name.", True, "dcterms:identifier"),
    Prop("name", "string", "Canonical display name.", True, "rdfs:label"),
)
# What a person's curation decision (kg.curate) puts on the node or edge it made or changed:
# confidence 1.0, who decided and when, as PROV-O attribution in RDF.
CURATED = (
    Prop("confidence", "float", "Confidence in [0, 1]: of an entity, the calibrated probability that it is an "
         "entity of its label (its surest reading in any paper); 1.0 when a person's curation decision made it.",
         False, "confidence"),
    Prop("curated_by", "string", "Who recorded the curation decision that made or changed it.", False,
         "prov:wasAttributedTo"),
    Prop("curated_at", "string", "When that decision was recorded (ISO 8601, UTC).", False,
         "prov:generatedAtTime"),
)
ENTITY_PROPS = COMMON + (
    Prop("aliases", "string[]", "Other names found for the entity (acronyms, spellings).", False, "skos:altLabel"),
    Prop("papers", "integer", "Number of papers that mention the entity.", False, "papers"),
    Prop("merges", "string[]", "Why other extracted names joined the entity: each rule, how many names it "
         "merged and its lowest score.", False, "mergeReason"),
) + CURATED

LABELS: dict[str, Label] = {
    lab.name: lab
    for lab in (
        Label("Paper", "A research paper.", None, ("schema:ScholarlyArticle", "fabio:ResearchPaper"), COMMON + (
            Prop("title", "string", "Title of the paper.", False, "dcterms:title"),
            Prop("abstract", "string", "Normalised abstract; evidence offsets index it.", False, "dcterms:abstract"),
            Prop("year", "integer", "Publication year.", False, "year"),
            Prop("url", "string", "Landing page of the paper (OpenReview forum, proceedings page).", False, "url"),
            Prop("pdf", "string", "Link to the paper's PDF.", False, "pdf"),
            Prop("keywords", "string[]", "Keywords the authors gave.", False, "schema:keywords"),
            Prop("area", "string", "Subject area the venue filed the paper under (primary area).", False, "subjectArea"),
            Prop("source", "string", "Input file and line the record came from.", False, "sourceRecord"),
        )),
        Label("Venue", "A conference edition, e.g. ICML 2026.", None, ("schema:Event",), COMMON + (
            Prop("year", "integer", "Year of the edition.", False, "year"),
        )),
        Label("Author", "A person listed as an author.", None, ("schema:Person",), COMMON),
        Label("Method", "A named, specific approach: algorithm, framework, architecture, system.", "Entity", (), ENTITY_PROPS),
        Label("Technique", "A general technique, concept or model class.", "Entity", ("skos:Concept",), ENTITY_PROPS),
        Label("Model", "A named pretrained model or model family.", "Entity", ("schema:SoftwareApplication",), ENTITY_PROPS + (
            Prop("family", "string", "Model family, e.g. Qwen3.", False, "family"),
            Prop("size", "string", "Parameter count as written, e.g. 8B.", False, "size"),
            Prop("variant", "string", "Variant, e.g. VL, Instruct.", False, "variant"),
            Prop("version", "string", "Version, e.g. 2.5.", False, "version"),
        )),
        Label("Task", "A problem or application.", "Entity", ("skos:Concept",), ENTITY_PROPS),
        Label("Dataset", "A dataset or benchmark.", "Entity", ("schema:Dataset",), ENTITY_PROPS),
        Label("Metric", "An evaluation measure.", "Entity", ("skos:Concept",), ENTITY_PROPS),
        Label("Software", "A library, engine or tool.", "Entity", ("schema:SoftwareApplication",), ENTITY_PROPS),
        Label("Repository", "A code repository or project page.", "Entity", ("schema:SoftwareSourceCode",), ENTITY_PROPS + (
            Prop("url", "string", "The URL as given.", False, "url"),
        )),
        Label("Result", "A numeric claim a paper reports, e.g. up to 4.48x inference speedup.", None, (), COMMON + (
            Prop("value", "float", "The number as stated.", True, "value"),
            Prop("unit", "string", "Unit: %, x, points or dB.", False, "unit"),
            Prop("direction", "string", "increase or decrease, when the text says.", False, "direction"),
            Prop("qualifier", "string", "As stated before the number: up to, by, average of.", False, "qualifier"),
            Prop("measure", "string", "What is measured, as written.", False, "measureText"),
            Prop("sentence", "string", "Sentence stating the claim.", False, "claimSentence"),
            Prop("valueStart", "integer", "Start offset of the number in the abstract.", False, "valueStart"),
            Prop("valueEnd", "integer", "End offset of the number in the abstract.", False, "valueEnd"),
        )),
    )
}
#: also the label policy of resolution: one name read under several labels (ViT as a Technique
#: and as a Model) is one node, labelled as the lexicon labels the name, else as most of its
#: papers read it, else by this order; unless papers propose it under two labels (GAIA the
#: method, GAIA the benchmark), which stay two nodes
ENTITY_LABELS = tuple(name for name, lab in LABELS.items() if lab.parent == "Entity")
#: the entity labels whose mentions are names in the text (a Repository is a URL, found exactly)
MENTION_LABELS = tuple(name for name in ENTITY_LABELS if name != "Repository")

# Statistics the RDF export derives from the graph, so that SPARQL need not join large parts
# of it at query time. They are not nodes of the graph: Neo4j and ``kg stats`` compute the same
# with one query. A pair is exported when at least PAIR_MIN_PAPERS papers use both techniques
# (a pair used by one paper is that paper's own USES edges, already in the graph).
PAIR = Label("TechniquePair", "Two techniques that papers use together; derived by the RDF export "
             "from the papers' USES edges, for pairs that at least two papers share.", None, (), (
    Prop("papers", "integer", "Number of papers that use both techniques.", True, "papers"),
))
PAIR_MEMBER = ("hasTechnique", "One of the two techniques of a TechniquePair.", "Technique")
PAIR_MIN_PAPERS = 2
_ENT = ENTITY_LABELS

RELATIONS: dict[str, RelType] = {
    r.name: r
    for r in (
        RelType("PROPOSES", "proposes", "The paper introduces this entity.", ("Paper",), _ENT),
        RelType("MENTIONS", "mentions", "The paper names the entity without stating a role for it (not a use, task, "
                "dataset, metric or baseline of its own).", ("Paper",), _ENT),
        RelType("USES", "uses", "Uses or builds on the entity, as the text states.", ("Paper",) + _ENT, _ENT),
        RelType("ADDRESSES", "addresses", "Addresses the task.", ("Paper",) + _ENT, ("Task",)),
        RelType("EVALUATED_ON", "evaluatedOn", "Evaluated on the dataset or benchmark.", ("Paper",) + _ENT, ("Dataset",)),
        RelType("MEASURES", "measures", "Reports the metric.", ("Paper",) + _ENT, ("Metric",)),
        RelType("COMPARED_WITH", "comparedWith", "Compared with the entity.", ("Paper",) + _ENT, _ENT),
        RelType("OUTPERFORMS", "outperforms", "Reported to outperform the entity.", ("Paper",) + _ENT, _ENT),
        RelType("HAS_CODE", "hasCode", "Code or project page.", ("Paper",) + _ENT, ("Repository",), ("schema:codeRepository",)),
        RelType("VARIANT_OF", "variantOf", "A model is a variant of a model family.", ("Model",), ("Model",)),
        RelType("BROADER", "broader", "Taxonomy: the entity is a kind of the target. Not a sub-property of "
                "skos:broader, whose domain and range skos:Concept would make every method, model or dataset "
                "with a broader entity a skos:Concept.", _ENT, _ENT),
        RelType("PUBLISHED_IN", "publishedIn", "The paper appeared at the venue.", ("Paper",), ("Venue",)),
        RelType("AUTHORED", "authored", "The author wrote the paper.", ("Author",), ("Paper",)),
        RelType("REPORTS", "reports", "The paper reports the numeric result.", ("Paper",), ("Result",)),
        RelType("ACHIEVED_BY", "achievedBy", "The result is achieved by the method.", ("Result",), _ENT),
        RelType("ON_METRIC", "onMetric", "The result is measured by the metric.", ("Result",), ("Metric",)),
        RelType("IN_SETTING", "inSetting", "The result holds on this dataset, model, software or task.",
                ("Result",), ("Dataset", "Model", "Software", "Task")),
    )
}

# A short caption for graph views, on every node Neo4j holds: what a paper proposes (else its
# title cut on a word boundary), any other node's name, at most DISPLAY_CHARS characters. The
# Neo4j sink derives it from the graph when it loads or writes import files; it is not a graph
# attribute, so the RDF export, the ontology and the shapes leave it out (they take LABELS only).
DISPLAY = Prop("display", "string", "Short caption for graph views (Neo4j only).")
# A paper's venue as kg show prints it ("ICML 2024"), on its Paper node in Neo4j, so that a
# query or Browser's node panel need not follow PUBLISHED_IN for it; derived like DISPLAY.
VENUE = Prop("venue", "string", "Name of the venue the paper appeared at (Neo4j only; PUBLISHED_IN links it).")
DISPLAY_CHARS = 40


# The provenance of an extracted edge is an RDF reification node (typed rdf:Statement in the
# export) that EDGE_PROPS describe; in the ontology their domain is this class, because OWL 2 DL
# reserves rdf:Statement and does not allow it as a class.
EDGE_STATEMENT = ("EdgeStatement", "The provenance of one extracted edge: the source paper, the evidence "
                  "sentence and its offsets, the rule and the confidence. Its instances are the subjects of "
                  "these properties (their domain); the export writes them as RDF reification (rdf:subject, "
                  "rdf:predicate, rdf:object) typed rdf:Statement, which OWL 2 DL does not allow as a class, "
                  "so the ontology does not relate the two.")
EDGE_PROPS = (
    Prop("paper", "string", "Id of the paper the edge was extracted from.", False, "prov:wasDerivedFrom"),
    Prop("evidence", "string", "Sentence that supports the edge.", False, "evidence"),
    Prop("start", "integer", "Start offset of the evidence in the abstract.", False, "startOffset"),
    Prop("end", "integer", "End offset of the evidence in the abstract.", False, "endOffset"),
    Prop("rule", "string", "Rule or component that found the edge.", False, "rule"),
    Prop("confidence", "float", "Confidence in [0, 1].", False, "confidence"),
) + CURATED[1:]

# Which relation states a role for an entity, by the entity's label (a paper's or proposal's
# edge to it when the text states one; otherwise the paper MENTIONS it).
MENTION_RELATION = {
    "Task": "ADDRESSES",
    "Dataset": "EVALUATED_ON",
    "Metric": "MEASURES",
    "Repository": "HAS_CODE",
    "Method": "USES",
    "Technique": "USES",
    "Model": "USES",
    "Software": "USES",
}


def fit_relation(rtype: str, src_label: str, dst_label: str) -> str | None:
    """The relation type that fits the labels after resolution (or curation): a mention edge
    follows the target's final label (a Task resolved into a Technique is USED, not ADDRESSED);
    a model whose family resolved to a non-model is BROADER than it; anything else that breaks
    the schema's domain or range is dropped (None).

    >>> fit_relation("ADDRESSES", "Paper", "Technique"), fit_relation("PROPOSES", "Paper", "Venue")
    ('USES', None)
    """
    if rtype in ("USES", "ADDRESSES", "EVALUATED_ON", "MEASURES") and dst_label in MENTION_RELATION:
        rtype = MENTION_RELATION[dst_label] if dst_label != "Repository" else "HAS_CODE"
    elif rtype == "VARIANT_OF" and dst_label != "Model":
        rtype = "BROADER"
    rel = RELATIONS[rtype]
    return rtype if src_label in rel.domain and dst_label in rel.range else None
