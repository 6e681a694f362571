// Which tasks do the most papers address? Tasks ranked by the number of papers that address
// them, themselves or through what they propose (ADDRESSES; a mere mention does not count).
// Params: $limit (integer, rows to return).
:param limit => 20;
MATCH (p:Paper)-[:PROPOSES*0..1]->()-[:ADDRESSES]->(t:Task)
WITH t, count(DISTINCT p) AS papers
RETURN t.name AS task, papers
ORDER BY papers DESC, task
LIMIT $limit;
