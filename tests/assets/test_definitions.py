"""The code location loads, and its asset keys and dependencies match the design (a snapshot)."""

from __future__ import annotations

import warnings

warnings.filterwarnings("ignore", category=Warning, module="dagster")

import dagster as dg  # noqa: E402

from geo_assets.definitions import defs  # noqa: E402

EXPECTED_DEPS = {
    "raw_pdf": set(),
    "tei_xml": {"raw_pdf"},
    "paper_json": {"tei_xml"},
    "cleaned_text": {"paper_json"},
    "chunks": {"cleaned_text"},
    "chunk_embeddings": {"chunks"},
    "sentence_embeddings": {"chunks"},
    "triples": {"chunks"},
    "knowledge_graph": {"triples"},
    "measurements": {"paper_json", "cleaned_text", "chunks"},
    "synthetic_queries": {"knowledge_graph"},
    "query_classifier": {"synthetic_queries"},
    "answer_selector": {"query_classifier"},
    "evaluation_dataset": set(),
    "evaluation_results": {"evaluation_dataset", "query_classifier", "knowledge_graph", "chunk_embeddings"},
}


def _graph() -> dict[str, set[str]]:
    graph = defs.resolve_asset_graph()
    return {
        key.to_user_string(): {p.to_user_string() for p in graph.get(key).parent_keys}
        for key in graph.get_all_asset_keys()
    }


def test_asset_graph_matches_design() -> None:
    deps = _graph()
    for asset, parents in EXPECTED_DEPS.items():
        assert deps[asset] == parents, asset


def test_every_materializable_asset_has_code_version_and_group() -> None:
    graph = defs.resolve_asset_graph()
    for key in graph.materializable_asset_keys:
        node = graph.get(key)
        assert node.code_version, key
        assert node.group_name in {
            "ingest",
            "index",
            "graph",
            "measurements",
            "queries",
            "answers",
            "evaluation",
        }, key


def test_entity_recognizing_assets_are_versioned_by_the_vocabulary() -> None:
    """Editing vocabulary.json must re-extract triples and measurement rows on the next ingest."""
    from geo_rag_runtime.vocab import vocabulary_version

    graph = defs.resolve_asset_graph()
    for name in ("triples", "measurements"):
        code_version = graph.get(dg.AssetKey(name)).code_version
        assert code_version is not None and code_version.endswith(f"+vocab.{vocabulary_version()}"), name


def test_jobs_sensor_and_schedule_resolve() -> None:
    job = defs.resolve_job_def("ingest_paper_job")
    assert job.partitions_def is not None and job.partitions_def.name == "papers"
    per_paper = {
        "tei_xml",
        "paper_json",
        "cleaned_text",
        "chunks",
        "chunk_embeddings",
        "sentence_embeddings",
        "triples",
        "knowledge_graph",
        "measurements",
    }
    selected = {key.to_user_string() for key in job.asset_layer.executable_asset_keys}
    assert per_paper <= selected and "query_classifier" not in selected, selected

    sensor = defs.resolve_sensor_def("new_papers_sensor")
    assert sensor.job_name == "ingest_paper_job"
    assert sensor.default_status.value == "RUNNING"

    schedule = defs.resolve_schedule_def("nightly_rescan")
    assert schedule.job_name == "ingest_paper_job"
    assert schedule.cron_schedule == "0 2 * * *"

    evaluation = defs.resolve_job_def("evaluation_job")
    assert {key.to_user_string() for key in evaluation.asset_layer.executable_asset_keys} == {
        "evaluation_dataset",
        "evaluation_results",
    }


def test_ingest_asks_an_llm_only_when_opted_in(geo_home, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from geo_assets.resources import GeoRagResource, LLMResource
    from geo_rag_runtime.llm import LLMClient

    monkeypatch.setenv("GEO_RAG_LLM_MODEL", "some-model")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://llm.invalid/v1")
    resource = LLMResource(geo=GeoRagResource())
    assert isinstance(resource.client("answers"), LLMClient)
    assert resource.client("triples") is None and resource.client("queries") is None
    monkeypatch.setenv("GEO_RAG_LLM_INGEST", '["triples"]')
    assert isinstance(resource.client("triples"), LLMClient) and resource.client("queries") is None


def test_corpus_assets_are_stale_until_each_is_materialized_by_its_current_code_version() -> None:
    """An upgrade that changes only a corpus asset's code (the ranker's training, say) is rebuilt by
    a plain ``geo-rag ingest`` even when every paper is up to date."""
    from geo_assets.cli.commands import corpus_assets_stale
    from geo_assets.definitions import CORPUS_ASSETS
    from geo_assets.versions import CODE_VERSION_TAG

    def report(asset: dg.AssetsDefinition, code_version: str | None) -> None:
        tags = {CODE_VERSION_TAG: code_version} if code_version else {}
        instance.report_runless_asset_event(dg.AssetMaterialization(asset_key=asset.key, tags=tags))

    with dg.DagsterInstance.ephemeral() as instance:
        assert corpus_assets_stale(instance, CORPUS_ASSETS)  # never materialized
        for asset in CORPUS_ASSETS:
            report(asset, asset.code_versions_by_key[asset.key])
        assert not corpus_assets_stale(instance, CORPUS_ASSETS)
        report(CORPUS_ASSETS[-1], "an-older-version")
        assert corpus_assets_stale(instance, CORPUS_ASSETS)
        report(CORPUS_ASSETS[-1], CORPUS_ASSETS[-1].code_versions_by_key[CORPUS_ASSETS[-1].key])
        assert not corpus_assets_stale(instance, CORPUS_ASSETS)
