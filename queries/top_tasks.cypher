// Which tasks do the most papers address? Tasks ranked by the number of papers with an
// ADDRESSES relationship to them.
// Params: $limit (integer, rows to return).
:param limit => 20;
MATCH (p:Paper)-[:ADDRESSES]->(t:Task)
RETURN t.name AS task, count(DISTINCT p) AS papers
ORDER BY papers DESC, task
LIMIT $limit;
