"""The code location loads, and its asset keys and dependencies match the design (a snapshot)."""

from __future__ import annotations

import warnings

import pytest

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

    # the corpus assets follow the papers by themselves under a daemon (on by default)
    refresh = defs.resolve_sensor_def("corpus_refresh_sensor")
    assert refresh.default_status.value == "RUNNING"
    for name in ("synthetic_queries", "query_classifier", "answer_selector"):
        condition = defs.resolve_assets_def(name).automation_conditions_by_key[dg.AssetKey(name)]
        assert condition is not None and condition.get_label() == "after papers change", name

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


def test_sensor_timing_comes_from_settings_and_a_bad_cron_is_refused(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from geo_assets.definitions import ingest_paper_job
    from geo_assets.ingest.sensors import build_sensor_and_schedule
    from geo_rag_runtime.errors import ConfigurationError

    monkeypatch.setenv("GEO_RAG_SENSOR_INTERVAL_S", "15")
    monkeypatch.setenv("GEO_RAG_RESCAN_CRON", "*/10 * * * *")
    sensor, schedule = build_sensor_and_schedule(ingest_paper_job)
    assert sensor.minimum_interval_seconds == 15 and schedule.cron_schedule == "*/10 * * * *"
    monkeypatch.setenv("GEO_RAG_RESCAN_CRON", "nightly")
    with pytest.raises(ConfigurationError, match="GEO_RAG_RESCAN_CRON"):
        build_sensor_and_schedule(ingest_paper_job)


def test_a_changed_pdf_is_requested_once_per_version() -> None:
    """A changed PDF's request carries the file and its bytes as run key, so the daemon launches one run
    per version however many ticks pass before it has stored them; a new PDF's partition is added with
    its request, so it needs none."""
    from geo_assets.ingest.sensors import ScanResult, _requests

    result = ScanResult(new=["a.pdf"], changed=["b.pdf"], sha256={"b.pdf": "f00d"})
    runs, dynamic = _requests(result)
    assert [(r.partition_key, r.run_key, r.tags["georag/reason"]) for r in runs] == [
        ("a.pdf", None, "new"),
        ("b.pdf", "b.pdf@f00d", "changed"),
    ]
    assert dynamic[0].partition_keys == ["a.pdf"]
