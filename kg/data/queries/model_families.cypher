// Which model families are there, and which models (with sizes) belong to each? Follows
// VARIANT_OF chains, so a family lists its sub-families' models too (Qwen: Qwen3, Qwen3-8B…).
// Params: none.
MATCH (m:Model)-[:VARIANT_OF*1..]->(f:Model)
WITH f, m ORDER BY m.name
RETURN f.name AS family,
       collect(DISTINCT m.name) AS models,
       [s IN collect(DISTINCT m.size) WHERE s IS NOT NULL] AS sizes
ORDER BY family;
