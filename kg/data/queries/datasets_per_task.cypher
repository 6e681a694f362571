// Which datasets and benchmarks go with each task? One row per task and dataset, with the
// number of papers that address the task and evaluate on, use or release the dataset (each
// themselves or through what they propose).
// Params: none.
MATCH (p:Paper)-[:PROPOSES*0..1]->()-[:ADDRESSES]->(t:Task)
MATCH (p)-[:PROPOSES*0..1]->(x)-[r:EVALUATED_ON|USES|PROPOSES]->(d:Dataset)
WHERE type(r) <> 'PROPOSES' OR x = p
WITH t, d, count(DISTINCT p) AS papers
RETURN t.name AS task, d.name AS dataset, papers
ORDER BY task, papers DESC, dataset;
