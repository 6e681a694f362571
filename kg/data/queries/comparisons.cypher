// Which methods are compared with, or reported to outperform, which? One row per
// COMPARED_WITH / OUTPERFORMS relationship, with the paper it comes from (a paper that
// proposes nothing named compares itself).
// Params: none.
MATCH (a)-[r:COMPARED_WITH|OUTPERFORMS]->(b:Entity)
OPTIONAL MATCH (p:Paper {id: 'paper:' + r.paper})
RETURN coalesce(a.name, a.title) AS method, type(r) AS relation, b.name AS other, p.title AS paper
ORDER BY method, relation, other, paper;
