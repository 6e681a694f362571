// What is around one paper? Every relationship of the paper titled $title (case-insensitive),
// and those the paper states for what it proposes (DraftMixer USES speculative decoding),
// returned as paths so that Neo4j Browser draws the paper and its neighbours as a graph.
// Params: $title (string).
:param title => 'DraftMixer';
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
