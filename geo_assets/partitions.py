"""The per-paper partitions: one dynamic partition per registered PDF (key = file name)."""

import dagster as dg

PAPERS = "papers"
papers_partitions = dg.DynamicPartitionsDefinition(name=PAPERS)
