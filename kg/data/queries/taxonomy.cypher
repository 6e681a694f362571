// What is an entity a kind of? Every BROADER step above the entity, up to the roots of the
// taxonomy: one row per step (narrower, broader).
// $name: entity name or alias, case-insensitive (default: the most named entity that has
// something broader).
// Params: $name (string).
:param name => COLLECT { MATCH (e:Entity)-[:BROADER]->() WHERE e.papers IS NOT NULL RETURN e.name ORDER BY e.papers DESC, e.name LIMIT 1 }[0];
MATCH (e:Entity)
WHERE toLower(e.name) = toLower($name)
   OR any(a IN coalesce(e.aliases, []) WHERE toLower(a) = toLower($name))
MATCH (e)-[:BROADER*0..]->(x)-[:BROADER]->(y)
RETURN DISTINCT e.name AS entity, x.name AS narrower, y.name AS broader
ORDER BY entity, narrower, broader;
