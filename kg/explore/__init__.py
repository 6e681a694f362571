"""Exploring a built graph without writing a query: looking up one entity or paper, searching,
comparing two graphs, trends over years, and pictures. Each module takes the graph
(``networkx.MultiDiGraph`` as :func:`kg.io.format.load_graph` returns it) and gives plain records;
the command line only prints them."""
