// Which entities are named by more than one paper, most shared first? `papers` counts the
// papers that mention, use, address, propose… the entity, counted when the graph is built.
// $label narrows to one label (e.g. 'Dataset'); null means every entity label.
// Params: $label (string or null), $limit (integer).
:param label => null;
:param limit => 50;
MATCH (e:Entity)
WHERE e.papers > 1 AND ($label IS NULL OR $label IN labels(e))
RETURN e.name AS name, [l IN labels(e) WHERE l <> 'Entity'][0] AS label, e.papers AS papers
ORDER BY papers DESC, name, label
LIMIT $limit;
