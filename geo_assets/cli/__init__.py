"""Command-line entry points that need Dagster (``geo-rag ingest|status|evaluate`` run them in a child
process, so ``geo_rag_runtime`` never imports Dagster)."""
