// What is around one paper? Every relationship of the paper titled $title (case-insensitive),
// and those the paper states for what it proposes (DraftMixer USES speculative decoding),
// returned as paths so that Neo4j Browser draws the paper and its neighbours as a graph.
// $title defaults to the paper with the most relationships.
// Params: $title (string).
:param title => COLLECT { MATCH (p:Paper)-[r]-() WITH p, count(r) AS n ORDER BY n DESC, p.title LIMIT 1 RETURN p.title }[0];
MATCH (p:Paper)
WHERE toLower(p.title) = toLower($title)
CALL {
  WITH p
  MATCH path = (p)-[r]-(n)
  RETURN path, type(r) AS rel, n.name AS name
  UNION
  WITH p
  MATCH path = (p)-[:PROPOSES]->()-[r]->(n)
  WHERE r.paper = substring(p.id, 6)
  RETURN path, type(r) AS rel, n.name AS name
}
RETURN path
ORDER BY rel, name;
