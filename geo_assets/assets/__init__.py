"""Assets grouped by stage: ingest, index, graph, queries, evaluation."""
