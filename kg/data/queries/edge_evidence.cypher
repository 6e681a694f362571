// What is the evidence for a relationship? Each edge from $source to $target (names or
// aliases, case-insensitive; $type null for any type) with its paper, sentence, character
// offsets into the paper's abstract, extraction rule and confidence.
// Params: $source (string), $target (string), $type (string or null, e.g. 'OUTPERFORMS').
:param source => 'DraftMixer';
:param target => 'EAGLE-2';
:param type => 'OUTPERFORMS';
MATCH (a)-[r]->(b)
WHERE ($type IS NULL OR type(r) = $type)
  AND (toLower(a.name) = toLower($source)
       OR any(x IN coalesce(a.aliases, []) WHERE toLower(x) = toLower($source)))
  AND (toLower(b.name) = toLower($target)
       OR any(x IN coalesce(b.aliases, []) WHERE toLower(x) = toLower($target)))
OPTIONAL MATCH (p:Paper {id: 'paper:' + r.paper})
RETURN a.name AS source, type(r) AS relation, b.name AS target, p.title AS paper,
       r.evidence AS evidence, r.start AS start, r.end AS end, r.rule AS rule,
       r.confidence AS confidence
ORDER BY confidence DESC, relation, paper;
