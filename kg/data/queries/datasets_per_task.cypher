// Which datasets and benchmarks serve each task? A dataset counts for a task when it
// ADDRESSES the task itself, or when a paper that addresses the task (itself or through what it
// proposes) evaluates on it or proposes it.
// Params: none.
MATCH (t:Task)
OPTIONAL MATCH (d1:Dataset)-[:ADDRESSES]->(t)
OPTIONAL MATCH (t)<-[:ADDRESSES]-()<-[:PROPOSES*0..1]-(p:Paper)-[:PROPOSES*0..1]->()-[:EVALUATED_ON|PROPOSES]->(d2:Dataset)
WITH t, collect(d1.name) + collect(d2.name) AS names
UNWIND names AS dataset
WITH t, dataset ORDER BY dataset
WITH t, collect(DISTINCT dataset) AS datasets
RETURN t.name AS task, datasets, size(datasets) AS count
ORDER BY count DESC, task;
