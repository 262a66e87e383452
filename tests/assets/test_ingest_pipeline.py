"""End to end through Dagster: `geo_assets.cli.commands.ingest` on a folder holding one real paper and
every kind of bad input. Each bad file fails only its own partition with a message naming it, the
duplicate is skipped, a rerun completes what was fixed, a backup restores into an empty home, and
removing a PDF retires it (hidden, kept) until `purge` deletes it everywhere."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from geo_assets.answers.selector_training import TRAINING_VERSION

pytestmark = pytest.mark.slow  # a whole Dagster ingest or server: run in CI, not in the inner loop

REAL = "VermeeschPease2021_GPL_TholeiiticCalcAlkaline_CCBY.pdf"
SECOND = "LiVermeesch2021_Geochronology_InverseIsochron_CCBY.pdf"
REPO = Path(__file__).resolve().parents[2]


def _image_only_pdf(path: Path) -> None:
    """A 'scanned' page: an image and no text layer (what a scanner without OCR produces)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    fig = plt.figure(figsize=(4, 5))
    fig.figimage(np.random.default_rng(1).random((300, 240)), cmap="gray")
    fig.savefig(path, format="pdf")
    plt.close(fig)


@pytest.fixture(scope="module")
def ingested(tmp_path_factory: pytest.TempPathFactory, sample_papers: Path) -> Iterator[dict]:
    tmp = tmp_path_factory.mktemp("ingest")
    papers = tmp / "papers"
    papers.mkdir()
    shutil.copy(sample_papers / REAL, papers / REAL)
    shutil.copy(sample_papers / REAL, papers / "copy_of_vermeesch.pdf")  # duplicate bytes
    (papers / "truncated.pdf").write_bytes((sample_papers / SECOND).read_bytes()[:40_000])
    (papers / "webpage.pdf").write_text("<!DOCTYPE html><html><body>Not found</body></html>")
    (papers / "empty.pdf").write_bytes(b"")
    _image_only_pdf(papers / "scanned.pdf")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("GEO_RAG_HOME", str(tmp / "home"))
        mp.setenv("GEO_RAG_PAPERS", str(papers))
        mp.setenv("DAGSTER_HOME", str(REPO))
        mp.setenv("GEO_RAG_DAGSTER_STORAGE", str(tmp / "home" / "dagster"))
        for var in ("GROBID_URL", "MONGODB_URI", "CHROMA_HOST", "NEO4J_URI", "GEO_RAG_LLM_MODEL"):
            mp.delenv(var, raising=False)
        import io

        from geo_assets.cli.commands import asset_versions, ingest
        from geo_rag_runtime.cli import store_counts
        from geo_rag_runtime.settings import get_settings
        from geo_rag_runtime.stores import publication

        out, err = io.StringIO(), io.StringIO()
        code = ingest([str(papers)], progress=False, out=out, err=err)
        yield {
            "code": code,
            "stdout": out.getvalue(),
            "stderr": err.getvalue(),
            "papers": papers,
            "counts": store_counts(get_settings()),
            "versions": asset_versions(),
            "building": publication.building_papers(get_settings().home_dir),
            "sentence_files": sorted((get_settings().home_dir / "sentence_vectors").glob("*.npz")),
        }


# The scenario goes on in stages. Each stage is a module fixture that depends on the one before, so
# every test sees the state of its own stage whatever order (or subset) the tests run in.


@pytest.fixture(scope="module")
def rerun(ingested: dict, sample_papers: Path) -> dict:
    """Stage 2: the bad files are removed, the truncated download is completed, ingest runs again."""
    import io

    from geo_assets.cli.commands import ingest
    from geo_rag_runtime.settings import get_settings
    from geo_rag_runtime.stores.documents import open_document_store

    papers: Path = ingested["papers"]
    for name in ("webpage.pdf", "empty.pdf", "scanned.pdf", "copy_of_vermeesch.pdf"):
        (papers / name).unlink()
    shutil.copy(sample_papers / SECOND, papers / "truncated.pdf")  # the download finished
    out, err = io.StringIO(), io.StringIO()
    code = ingest([str(papers)], progress=False, corpus_assets=False, out=out, err=err)
    store = open_document_store(get_settings())
    papers_stored = store.counts()["papers"]
    store.close()
    return {"code": code, "stdout": out.getvalue(), "stderr": err.getvalue(), "papers_stored": papers_stored}


@pytest.fixture(scope="module")
def restored(ingested: dict, rerun: dict, tmp_path_factory: pytest.TempPathFactory) -> dict:
    """Stage 2b: `geo-rag backup`, then `geo-rag restore` into an empty home; both homes answer."""
    from geo_rag_runtime.backup import backup, restore
    from geo_rag_runtime.cli import store_counts
    from geo_rag_runtime.service import RagService
    from geo_rag_runtime.settings import get_settings

    archive = tmp_path_factory.mktemp("backup") / "georag.tar.gz"
    source = get_settings()
    manifest = backup(source, archive)
    target = source.model_copy(update={"home": archive.parent / "restored-home"})
    counts = restore(target, archive)
    questions = (
        "What distinguishes tholeiitic from calc-alkaline magma series?",
        "How is an inverse isochron regression computed?",
    )
    answers = {}
    for name, settings in (("source", source), ("restored", target)):
        service = RagService(settings.model_copy(update={"generator": "extractive", "local_llm": False}))
        answers[name] = [service.ask(q, mode=m) for q in questions for m in ("hybrid", "baseline")]
        service.close()
    refused = None
    try:
        restore(target, archive)
    except Exception as exc:  # the second restore must refuse a home that holds a knowledge base
        refused = exc
    return {
        "manifest": manifest,
        "counts": counts,
        "before": store_counts(source),
        "after": store_counts(target),
        "answers": answers,
        "refused": refused,
    }


@pytest.fixture(scope="module")
def retired(ingested: dict, rerun: dict, restored: dict) -> dict:
    """Stage 3: the real paper's PDF is deleted and the folder is re-scanned as the sensor does; the
    paper is retired (hidden, kept), then `geo-rag purge --all` deletes it from every store."""
    import io

    import dagster as dg

    from geo_assets.cli.retirement import purge_command
    from geo_assets.ingest.sensors import scan
    from geo_assets.resources import default_resources
    from geo_rag_runtime.cli import store_counts
    from geo_rag_runtime.settings import get_settings
    from geo_rag_runtime.stores import publication

    before = store_counts(get_settings())
    (ingested["papers"] / REAL).unlink()
    resources = default_resources()
    result = scan(dg.DagsterInstance.get(), resources["geo"], resources["documents"])
    hidden = publication.hidden_papers(get_settings().home_dir)
    kept = store_counts(get_settings())
    out = io.StringIO()
    code = purge_command(everything=True, out=out)
    return {
        "before": before,
        "kept": kept,
        "hidden": hidden,
        "after": store_counts(get_settings()),
        "result": result,
        "purge": (code, out.getvalue()),
        "partitions": set(dg.DagsterInstance.get().get_dynamic_partitions("papers")),
    }


@pytest.fixture(scope="module")
def classifier_rebuilt(ingested: dict, retired: dict) -> dict:
    """Stage 4: the classifier artifact is deleted while every paper is up to date; ingest runs again."""
    import io

    from geo_assets.cli.commands import ingest
    from geo_rag_runtime.router.model import default_artifact_dir
    from geo_rag_runtime.settings import get_settings

    artifact = default_artifact_dir(get_settings())
    shutil.rmtree(artifact)
    out, err = io.StringIO(), io.StringIO()
    code = ingest([str(ingested["papers"])], progress=False, out=out, err=err)
    return {"code": code, "stdout": out.getvalue(), "stderr": err.getvalue(), "artifact": artifact}


def test_bad_files_fail_alone_with_clear_messages(ingested: dict) -> None:
    assert ingested["code"] == 1
    failed = [line for line in ingested["stderr"].splitlines() if line.startswith("FAILED")]
    text = "\n".join(failed)
    for name in ("truncated.pdf", "webpage.pdf", "empty.pdf", "scanned.pdf"):
        assert name in text, (name, text)
    assert len(failed) == 4, text
    assert REAL not in text
    assert "scanned.pdf" in text and "text layer" in text
    assert "not a pdf" in text.lower()


def test_duplicate_is_skipped_not_failed(ingested: dict) -> None:
    out = ingested["stdout"]
    assert "duplicate" in out and "copy_of_vermeesch.pdf" in out, out


def test_real_paper_reaches_every_store(ingested: dict) -> None:
    counts = ingested["counts"]
    docs = counts["documents"]
    assert docs["papers"] == 1 and docs["chunks"] >= 5 and docs["triples"] > 0, counts
    assert counts["vectors"]["vectors"] == docs["chunks"], counts
    assert counts["keyword_index"]["chunks"] == docs["chunks"], counts
    assert counts["graph"]["papers"] == 1 and counts["graph"]["facts"] > 0, counts
    assert counts["classifier"]["test_macro_f1"] >= 0.85, counts
    # its text layer reached the text, measured and stored per paper (`geo-rag status` shows it)
    coverage = counts["text_coverage"]
    assert coverage["papers_measured"] == 1 and coverage["median"] >= 0.9, coverage
    assert coverage["below_warning"] == [], coverage
    # published: no paper is left hidden from questions (the bad files never reached `chunks`)
    assert ingested["building"] == {}
    # the sentence vectors questions look up: one file per paper (sentence_embeddings asset)
    assert len(ingested["sentence_files"]) == 1


def test_lineage_and_versions_recorded_in_dagster(ingested: dict) -> None:
    versions = ingested["versions"]
    for asset in (
        "tei_xml",
        "paper_json",
        "cleaned_text",
        "chunks",
        "chunk_embeddings",
        "sentence_embeddings",
        "triples",
        "knowledge_graph",
        "published_paper",
    ):
        assert REAL in versions[asset], asset
        assert versions[asset][REAL]["code_version"] and versions[asset][REAL]["data_version"]
    assert "query_classifier" in versions
    # the answer ranker is trained after the router, on the home's own sentences; the data version is
    # the hash of the JSON the service then loads (the home's own, or the packaged one for a tiny home)
    from geo_rag_runtime import contract
    from geo_rag_runtime.query.selector import PACKAGED_SELECTOR, SELECTOR_FILE
    from geo_rag_runtime.settings import get_settings

    selector = versions["answer_selector"]["-"]
    assert selector["code_version"] == TRAINING_VERSION
    own = get_settings().home_dir / "models" / SELECTOR_FILE
    served = own if own.exists() else PACKAGED_SELECTOR
    assert selector["data_version"] == contract.text_hash(served.read_text(encoding="utf-8"), 16)


def test_rerun_completes_fixed_files_and_skips_up_to_date(rerun: dict) -> None:
    assert rerun["code"] == 0, rerun["stderr"]
    assert f"up to date: {REAL}" in rerun["stdout"]
    assert rerun["papers_stored"] == 2


def test_removed_pdf_is_retired_then_purged_from_every_store(retired: dict) -> None:
    result = retired["result"]
    # the bad files deleted in the rerun stage never became papers: their registrations go
    assert set(result.removed) == {"webpage.pdf", "empty.pdf", "scanned.pdf", "copy_of_vermeesch.pdf"}
    assert result.retired == [REAL] and not result.new and not result.changed
    assert len(retired["hidden"]) == 1  # questions leave the retired paper out ...
    assert retired["kept"] == retired["before"]  # ... while every store keeps it
    code, out = retired["purge"]
    assert code == 0 and f"purged: {REAL}" in out
    assert REAL not in retired["partitions"]
    before, after = retired["before"], retired["after"]
    assert after["documents"]["papers"] == before["documents"]["papers"] - 1
    assert after["documents"]["chunks"] < before["documents"]["chunks"]
    assert after["vectors"]["vectors"] == after["documents"]["chunks"]
    assert after["keyword_index"]["chunks"] == after["documents"]["chunks"]
    assert after["graph"]["papers"] == after["documents"]["papers"]
    from geo_rag_runtime.settings import get_settings
    from geo_rag_runtime.stores import publication

    assert publication.hidden_papers(get_settings().home_dir) == frozenset()


def test_missing_classifier_is_rebuilt_even_when_papers_are_up_to_date(classifier_rebuilt: dict) -> None:
    assert classifier_rebuilt["code"] == 0, classifier_rebuilt["stderr"]
    out = classifier_rebuilt["stdout"]
    assert "already up to date" in out and "(corpus assets)" in out
    assert (classifier_rebuilt["artifact"] / "manifest.json").is_file()


def test_backup_round_trip_gives_the_same_stores_and_answers(restored: dict) -> None:
    from geo_rag_runtime.errors import StoreError

    assert restored["counts"] == restored["manifest"]["counts"]
    assert restored["counts"]["papers"] == 2 and restored["counts"]["vectors"] == restored["counts"]["chunks"]
    before, after = restored["before"], restored["after"]
    for store, keys in (
        ("documents", ("papers", "chunks", "triples", "measurements")),
        ("graph", ("papers", "chunks", "entities", "facts", "mentions")),
    ):
        assert {k: after[store][k] for k in keys} == {k: before[store][k] for k in keys}, store
    assert after["vectors"]["vectors"] == before["vectors"]["vectors"]
    assert after["keyword_index"]["chunks"] == before["keyword_index"]["chunks"]
    assert after["classifier"]["model_version"] == before["classifier"]["model_version"]
    for a, b in zip(restored["answers"]["source"], restored["answers"]["restored"], strict=True):
        assert (a.category, a.strategy, a.answer) == (b.category, b.strategy, b.answer)
        assert [c.chunk_id for c in a.citations] == [c.chunk_id for c in b.citations]
    assert isinstance(restored["refused"], StoreError) and "empty home" in str(restored["refused"])
