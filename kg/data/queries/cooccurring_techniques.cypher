// Which techniques are used together? Pairs of techniques that at least two papers use
// (themselves or through what they propose), ranked by the number of papers that use both
// (the kg:TechniquePair statistics of the RDF export hold the same pairs and counts).
// Params: $limit (integer, rows to return).
:param limit => 25;
MATCH (p:Paper)-[:PROPOSES*0..1]->()-[:USES]->(t:Technique)
WITH p, collect(DISTINCT t) AS used
UNWIND used AS a
UNWIND used AS b
WITH a, b, p WHERE a.id < b.id
WITH a, b, count(p) AS papers
WHERE papers >= 2
WITH CASE WHEN a.name <= b.name THEN [a.name, b.name] ELSE [b.name, a.name] END AS pair, papers
RETURN pair[0] AS technique, pair[1] AS other, papers
ORDER BY papers DESC, technique, other
LIMIT $limit;
