// What is around one paper? Every relationship of the paper titled $title (case-insensitive),
// returned as paths so that Neo4j Browser draws the paper and its neighbours as a graph.
// Params: $title (string).
:param title => 'DraftMixer';
MATCH (p:Paper)
WHERE toLower(p.title) = toLower($title)
MATCH path = (p)-[r]-(n)
RETURN path
ORDER BY type(r), n.name;
