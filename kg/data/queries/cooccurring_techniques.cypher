// Which techniques are used together? Pairs of techniques that at least two papers use
// (themselves or through what they propose),
// ranked by the number of papers that use both (the kg:TechniquePair statistics of the RDF
// export hold the same pairs and counts).
// Params: $limit (integer, rows to return).
:param limit => 25;
MATCH (a:Technique)<-[:USES]-()<-[:PROPOSES*0..1]-(p:Paper)-[:PROPOSES*0..1]->()-[:USES]->(b:Technique)
WHERE a.name < b.name
WITH a, b, count(DISTINCT p) AS papers
WHERE papers >= 2
RETURN a.name AS technique, b.name AS other, papers
ORDER BY papers DESC, technique, other
LIMIT $limit;
