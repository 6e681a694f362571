"""The RDF sink: terms and the one term writer (:mod:`.terms`), subject blocks and the rules of
what stays out (:mod:`.triples`), rendering as N-Triples, Turtle or JSON-LD (:mod:`.render`, with
the fast N-Triples path :mod:`.nt`), the generated ontology, shapes and context
(:mod:`.ontology`), reading RDF files (:mod:`.files`), SHACL validation (:mod:`.validate`) and
SPARQL over an export (:mod:`.sparql`)."""
