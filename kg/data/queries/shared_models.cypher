// Which models or model families are used by more than one paper? A family counts the papers
// that use any of its variants (VARIANT_OF chains), themselves or through what they propose;
// `used_as` lists the models named.
// Params: none.
MATCH (p:Paper)-[:PROPOSES*0..1]->()-[:USES]->(u:Model)-[:VARIANT_OF*0..]->(m:Model)
WITH m, u, p ORDER BY u.name
WITH m, count(DISTINCT p) AS papers, collect(DISTINCT u.name) AS used_as
WHERE papers > 1
RETURN m.name AS model, papers, used_as
ORDER BY papers DESC, model;
