// What does the graph contain? Nodes per label and relationships per type (the Neo4j side of
// `kg stats`; `Entity` is left out, as it only groups the entity labels). Neo4j 5.23+.
// Params: none.
CALL () {
  MATCH (n)
  UNWIND [l IN labels(n) WHERE l <> 'Entity'] AS name
  RETURN 'node' AS kind, name, count(*) AS count
  UNION ALL
  MATCH ()-[r]->()
  RETURN 'relationship' AS kind, type(r) AS name, count(*) AS count
}
RETURN kind, name, count
ORDER BY kind, count DESC, name;
