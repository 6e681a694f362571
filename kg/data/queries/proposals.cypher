// What does each paper propose? One row per paper and what it introduces (PROPOSES): a
// method, dataset, model…, with its label.
// Params: none.
MATCH (p:Paper)-[:PROPOSES]->(e:Entity)
RETURN p.title AS paper, e.name AS proposes, [l IN labels(e) WHERE l <> 'Entity'][0] AS label
ORDER BY paper, proposes;
