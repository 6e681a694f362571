// Which model families are there, and which models belong to each? One row per family and
// model, following VARIANT_OF chains (Qwen has Qwen3 and Qwen3-8B), with the model's size and
// the number of papers that name it.
// Params: none.
MATCH (m:Model)-[:VARIANT_OF*1..]->(f:Model)
WITH DISTINCT f, m
RETURN f.name AS family, m.name AS model, m.size AS size, m.papers AS papers
ORDER BY family, model;
