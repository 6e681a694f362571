"""The Neo4j sink: the live, idempotent load and read-only queries (:mod:`.store`), and the
CSV files of a bulk import into an empty database (:mod:`.bulk`)."""
