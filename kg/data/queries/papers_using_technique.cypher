// Which papers use a technique (or method, model…), directly or through a narrower one?
// $technique: a name or alias, case-insensitive (default: the technique most papers use);
// narrower entities are found through BROADER and VARIANT_OF chains. `via` lists what each
// paper actually uses. A paper uses what the text says it, or what it proposes, USES; a mere
// mention is MENTIONS and does not count.
// Params: $technique (string).
:param technique => COLLECT { MATCH (p:Paper)-[:PROPOSES*0..1]->()-[:USES]->(t:Technique) WITH t, count(DISTINCT p) AS n ORDER BY n DESC, t.name LIMIT 1 RETURN t.name }[0];
MATCH (t:Entity)
WHERE toLower(t.name) = toLower($technique)
   OR any(a IN coalesce(t.aliases, []) WHERE toLower(a) = toLower($technique))
MATCH (n:Entity)-[:BROADER|VARIANT_OF*0..]->(t)
MATCH (p:Paper)-[:PROPOSES*0..1]->()-[:USES]->(n)
WITH p, n ORDER BY n.name
RETURN p.title AS paper, collect(DISTINCT n.name) AS via
ORDER BY paper;
