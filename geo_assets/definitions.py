"""The Dagster code location: ``dagster dev`` (workspace.yaml) and ``geo-rag ingest`` load this.

Runs execute in process (one process per run, steps one after the other): the ``home_writer``
resource then holds the home's writer lock from before the first step to after the last, so a run
launched by the sensor, the schedule or the UI writes only while no ``geo-rag ingest``, backup,
restore or purge does — and it waits for the lock before it claims any pool slot, so it never
holds a slot that the lock's holder needs (a step-per-process executor would take the lock per
step, after its slot). Steps of one paper were mostly sequential anyway (the pools allow one
``docstore`` writer), and the models load once per run instead of once per step.
"""

import dagster as dg

from geo_assets.answers import assets as answers
from geo_assets.evaluation import assets as evaluation
from geo_assets.graph import assets as graph
from geo_assets.index import assets as index
from geo_assets.ingest import assets as ingest
from geo_assets.ingest.sensors import build_sensor_and_schedule
from geo_assets.measurements import assets as measurements
from geo_assets.partitions import papers_partitions
from geo_assets.queries import assets as queries
from geo_assets.resources import default_resources

PER_PAPER_ASSETS = [
    ingest.tei_xml,
    ingest.paper_json,
    ingest.cleaned_text,
    ingest.chunks,
    index.chunk_embeddings,
    index.sentence_embeddings,
    graph.triples,
    graph.knowledge_graph,
    measurements.measurements,
    ingest.published_paper,
]
SOURCE_ASSETS = [ingest.raw_pdf]
CORPUS_ASSETS: list[dg.AssetsDefinition] = [
    queries.synthetic_queries,
    queries.query_classifier,
    answers.answer_selector,
]

# evaluation runs on request (geo-rag evaluate, or the UI), not as part of every ingest
EVALUATION_ASSETS = [evaluation.evaluation_dataset, evaluation.evaluation_results]

ingest_paper_job = dg.define_asset_job(
    "ingest_paper_job",
    selection=dg.AssetSelection.assets(*PER_PAPER_ASSETS),
    partitions_def=papers_partitions,
    description="Everything for one paper: TEI, JSON, cleaned text, chunks, embeddings, sentence vectors, triples, graph, "
    "measurements, published.",
)

evaluation_job = dg.define_asset_job(
    "evaluation_job",
    selection=dg.AssetSelection.groups("evaluation"),
    description="HybridRAG vs BaselineRAG on the evaluation dataset with the RAGAS metrics.",
    tags={"georag/reason": "evaluation"},
)

new_papers_sensor, nightly_rescan = build_sensor_and_schedule(ingest_paper_job)

# The corpus assets (synthetic queries, query classifier, answer ranker) follow the papers the sensor
# brings in: their automation condition (partitions.after_papers_change) is evaluated by this sensor,
# on by default, so a daemon-driven deployment retrains them without anyone materializing by hand.
# Plain runs (no backfills) so they queue and take the home's writer lock like every other run.
corpus_refresh_sensor = dg.AutomationConditionSensorDefinition(
    "corpus_refresh_sensor",
    target=dg.AssetSelection.assets(*CORPUS_ASSETS),
    default_status=dg.DefaultSensorStatus.RUNNING,
    minimum_interval_seconds=30,
    emit_backfills=False,
    run_tags={"georag/reason": "corpus"},
    description="Retrains the query classifier and the answer ranker after papers change "
    "(partitions.after_papers_change): once a paper's run has finished and none is in progress.",
)


def build_definitions() -> dg.Definitions:
    return dg.Definitions(
        assets=[*SOURCE_ASSETS, *PER_PAPER_ASSETS, *CORPUS_ASSETS, *EVALUATION_ASSETS],
        jobs=[ingest_paper_job, evaluation_job],
        sensors=[new_papers_sensor, corpus_refresh_sensor],
        schedules=[nightly_rescan],
        resources=default_resources(),
        executor=dg.in_process_executor,
    )


defs = build_definitions()
