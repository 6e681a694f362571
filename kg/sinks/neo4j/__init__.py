"""The Neo4j sink: the live, idempotent load and read-only queries (:mod:`.store`, which gathers
:mod:`.cypher`, :mod:`.connection`, :mod:`.loader` and :mod:`.query`), and the CSV files of a
bulk import into an empty database (:mod:`.bulk`)."""
