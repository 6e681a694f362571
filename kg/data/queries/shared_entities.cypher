// Which entities are mentioned by more than one paper, most shared first? Counts papers with
// any relationship to the entity (mentions, uses, evaluates on, measures, addresses, proposes…),
// their own or through what they propose.
// $label narrows to one label (e.g. 'Dataset'); null means every entity label.
// Params: $label (string or null), $limit (integer).
:param label => null;
:param limit => 50;
MATCH (p:Paper)-[:PROPOSES*0..1]->()-[r]->(e:Entity)
WHERE r.paper = substring(p.id, 6)
  AND ($label IS NULL OR $label IN labels(e))
WITH e, p ORDER BY p.title
WITH e, count(DISTINCT p) AS papers, collect(DISTINCT p.title) AS titles
WHERE papers > 1
RETURN e.name AS name, [l IN labels(e) WHERE l <> 'Entity'][0] AS label, papers, titles
ORDER BY papers DESC, name
LIMIT $limit;
