// What does each paper propose? One row per paper: its title and the methods, datasets,
// models… it introduces (PROPOSES), with their labels.
// Params: none.
MATCH (p:Paper)-[:PROPOSES]->(e:Entity)
WITH p, e ORDER BY e.name
RETURN p.title AS paper,
       collect(DISTINCT e.name) AS proposes,
       collect(DISTINCT [l IN labels(e) WHERE l <> 'Entity'][0]) AS labels
ORDER BY paper;
