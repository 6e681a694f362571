// What is the evidence for a relationship? Each edge extracted from a paper, from $source to
// $target (names or aliases, case-insensitive; by default the ends of the comparison stated
// with the highest confidence), of type $type (null: any type), with its paper, sentence,
// character offsets into the paper's abstract, extraction rule and confidence.
// Params: $source (string), $target (string), $type (string or null, e.g. 'OUTPERFORMS').
:param source => COLLECT { MATCH (a)-[r:OUTPERFORMS|COMPARED_WITH]->(b) WHERE r.confidence IS NOT NULL RETURN a.name ORDER BY r.confidence DESC, a.name, b.name LIMIT 1 }[0];
:param target => COLLECT { MATCH (a)-[r:OUTPERFORMS|COMPARED_WITH]->(b) WHERE r.confidence IS NOT NULL RETURN b.name ORDER BY r.confidence DESC, a.name, b.name LIMIT 1 }[0];
:param type => null;
MATCH (a)-[r]->(b)
WHERE r.paper IS NOT NULL
  AND ($type IS NULL OR type(r) = $type)
  AND (toLower(a.name) = toLower($source)
       OR any(x IN coalesce(a.aliases, []) WHERE toLower(x) = toLower($source)))
  AND (toLower(b.name) = toLower($target)
       OR any(x IN coalesce(b.aliases, []) WHERE toLower(x) = toLower($target)))
OPTIONAL MATCH (p:Paper {id: 'paper:' + r.paper})
RETURN a.name AS subject, type(r) AS relation, b.name AS object, p.title AS paper,
       r.evidence AS evidence, r.start AS start, r.end AS end, r.rule AS rule,
       r.confidence AS confidence
ORDER BY confidence DESC, relation, paper, start;
