// What does each venue look like? Papers, papers proposing something, papers with code,
// and the techniques most of its papers use.
// Params: $top (integer, techniques listed per venue).
:param top => 5;
MATCH (v:Venue)<-[:PUBLISHED_IN]-(p:Paper)
WITH v, collect(p) AS papers
RETURN v.name AS venue, v.year AS year, size(papers) AS papers,
       size([p IN papers WHERE EXISTS { (p)-[:PROPOSES]->() }]) AS proposing,
       size([p IN papers WHERE EXISTS { (p)-[:PROPOSES*0..1]->()-[:HAS_CODE]->(:Repository) }]) AS with_code,
       COLLECT {
         UNWIND papers AS p
         MATCH (p)-[:PROPOSES*0..1]->()-[:USES]->(t:Technique)
         WITH t, count(DISTINCT p) AS n
         RETURN t.name + ' (' + n + ')' ORDER BY n DESC, t.name LIMIT $top
       } AS top_techniques
ORDER BY year DESC, venue;
