"""Reading and writing files: paper lists in (:mod:`.readers`), atomic writes (:mod:`.atomic`),
and the graph folder (:mod:`.folder`, :mod:`.generations`)."""
