// Which entities match a word? Full-text search over entity names and aliases (the
// kg_entity_names index that kg load creates); Lucene syntax, e.g. 'decod*' or '"KV cache"'.
// $q defaults to the name of the entity most papers name, as a phrase.
// Params: $q (string, a Lucene query), $limit (integer).
:param q => COLLECT { MATCH (e:Entity) WHERE e.papers IS NOT NULL RETURN '"' + replace(e.name, '"', ' ') + '"' ORDER BY e.papers DESC, e.name LIMIT 1 }[0];
:param limit => 10;
CALL db.index.fulltext.queryNodes('kg_entity_names', $q) YIELD node, score
RETURN node.name AS name, [l IN labels(node) WHERE l <> 'Entity'][0] AS label,
       node.aliases AS aliases, node.papers AS papers, round(score, 3) AS score
ORDER BY score DESC, name
LIMIT $limit;
