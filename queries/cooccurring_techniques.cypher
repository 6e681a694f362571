// Which techniques are used together? Pairs of techniques used by the same paper, ranked by
// the number of papers that use both.
// Params: $limit (integer, rows to return).
:param limit => 25;
MATCH (a:Technique)<-[:USES]-(p:Paper)-[:USES]->(b:Technique)
WHERE a.name < b.name
RETURN a.name AS technique, b.name AS other, count(DISTINCT p) AS papers
ORDER BY papers DESC, technique, other
LIMIT $limit;
