// Which acronyms and other names does each entity have? Entities with aliases, by label.
// Params: none.
MATCH (e:Entity)
WHERE size(coalesce(e.aliases, [])) > 0
RETURN e.name AS name, [l IN labels(e) WHERE l <> 'Entity'][0] AS label, e.aliases AS aliases
ORDER BY label, name;
