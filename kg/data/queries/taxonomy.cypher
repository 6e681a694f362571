// What is an entity a kind of? Every BROADER chain from the entity up to a root of the
// taxonomy (an entity with nothing broader).
// Params: $name (string: entity name or alias, case-insensitive).
:param name => 'draft model';
MATCH (e:Entity)
WHERE toLower(e.name) = toLower($name)
   OR any(a IN coalesce(e.aliases, []) WHERE toLower(a) = toLower($name))
MATCH path = (e)-[:BROADER*1..]->(top:Entity)
WHERE NOT (top)-[:BROADER]->()
RETURN [n IN nodes(path) | n.name] AS chain, length(path) AS steps
ORDER BY steps, chain;
