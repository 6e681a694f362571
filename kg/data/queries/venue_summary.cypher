// What does each venue look like? Its papers, the papers that propose something named, and
// the papers with code (their own or that of what they propose).
// Params: none.
MATCH (v:Venue)<-[:PUBLISHED_IN]-(p:Paper)
WITH v, collect(p) AS papers
RETURN v.name AS venue, v.year AS year, size(papers) AS papers,
       size([p IN papers WHERE EXISTS { (p)-[:PROPOSES]->() }]) AS proposing,
       size([p IN papers WHERE EXISTS { (p)-[:PROPOSES*0..1]->()-[:HAS_CODE]->(:Repository) }]) AS with_code
ORDER BY year DESC, venue;
