// Which papers have code or a project page? A paper's own HAS_CODE links and those of the
// entities it proposes, with the URLs.
// Params: none.
MATCH (p:Paper)-[:PROPOSES*0..1]->(x)-[:HAS_CODE]->(r:Repository)
WITH p, r ORDER BY r.name
RETURN p.title AS paper, collect(DISTINCT coalesce(r.url, r.name)) AS code
ORDER BY paper;
