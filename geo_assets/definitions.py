"""The Dagster code location: ``dagster dev`` (workspace.yaml) and ``geo-rag ingest`` load this."""

import dagster as dg

from geo_assets.assets import graph, index, ingest, queries
from geo_assets.partitions import papers_partitions
from geo_assets.resources import default_resources
from geo_assets.sensors import build_sensor_and_schedule

PER_PAPER_ASSETS = [
    ingest.tei_xml,
    ingest.paper_json,
    ingest.cleaned_text,
    ingest.chunks,
    index.chunk_embeddings,
    graph.triples,
    graph.knowledge_graph,
]
SOURCE_ASSETS = [ingest.raw_pdf]
CORPUS_ASSETS: list[dg.AssetsDefinition] = [queries.synthetic_queries, queries.query_classifier]

ingest_paper_job = dg.define_asset_job(
    "ingest_paper_job",
    selection=dg.AssetSelection.assets(*PER_PAPER_ASSETS),
    partitions_def=papers_partitions,
    description="Everything for one paper: TEI, JSON, cleaned text, chunks, embeddings, triples, graph.",
)

new_papers_sensor, nightly_rescan = build_sensor_and_schedule(ingest_paper_job)


def build_definitions() -> dg.Definitions:
    return dg.Definitions(
        assets=[*SOURCE_ASSETS, *PER_PAPER_ASSETS, *CORPUS_ASSETS],
        jobs=[ingest_paper_job],
        sensors=[new_papers_sensor],
        schedules=[nightly_rescan],
        resources=default_resources(),
    )


defs = build_definitions()
