"""The sensor retires only what it owns, never from a folder it cannot read, never many at once, and
nothing it retires is lost: retired papers are hidden, kept, and brought back; only `purge` deletes.

Each test evaluates the real ``new_papers_sensor`` (``dg.build_sensor_context``) on a home whose
document store holds the five sample papers as an ingest leaves them (registered under the watched
folder, a stored paper with its partition key, chunks), then does what an operator does to the folder.
"""

from __future__ import annotations

import io
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import dagster as dg
import pytest

from geo_rag_runtime import contract
from geo_rag_runtime.models import Paper
from geo_rag_runtime.stores import publication
from tests.runtime.document_builders import make_chunks

REPO = Path(__file__).resolve().parents[2]
PAPERS = sorted(p.name for p in (REPO / "data" / "papers").glob("*.pdf"))


@dataclass
class Watched:
    home: Path
    papers: Path
    instance: dg.DagsterInstance
    keys: dict[str, str]  # file name -> partition key
    paper_ids: dict[str, str]  # file name -> paper id

    def settings(self) -> Any:
        from geo_rag_runtime.settings import get_settings

        return get_settings()

    def evaluate_sensor(self) -> tuple[Any, str]:
        """One evaluation of the real sensor, as the daemon runs it; (its result, what it said when
        it skipped: the warnings it logged)."""
        from geo_assets.definitions import new_papers_sensor
        from geo_assets.resources import default_resources

        resources = {k: v for k, v in default_resources().items() if k in ("geo", "documents")}  # its own
        with dg.build_sensor_context(instance=self.instance, resources=resources) as context:
            result = new_papers_sensor(context)
        said = result.skip_message if isinstance(result, dg.SkipReason) else ""
        return result, said or ""

    def counts(self) -> dict[str, int]:
        from geo_rag_runtime.stores.opening import open_documents

        store = open_documents(self.settings(), read_only=True)
        try:
            return {**store.counts(), "sources": len(store.sources())}
        finally:
            store.close()


def _ingested(store: Any, pdf: Path, key: str) -> str:
    """What `paper_json` and `chunks` leave in the document store for one PDF."""
    sha = contract.file_sha256(pdf)
    paper_id = contract.paper_id_from_sha256(sha)
    paper = Paper(paper_id=paper_id, source_file=pdf.name, sha256=sha, title=pdf.stem)
    store.upsert_paper(paper, partition_key=key, source_path=str(pdf), status="published")
    store.replace_chunks(paper_id, make_chunks(paper_id, 3))
    return paper_id


@pytest.fixture()
def watched(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Watched]:
    from geo_assets.ingest import registry
    from geo_assets.partitions import PAPERS as PARTITIONS
    from geo_rag_runtime.settings import get_settings
    from geo_rag_runtime.stores.opening import open_documents

    home, papers = tmp_path / "home", tmp_path / "mnt" / "papers"
    papers.mkdir(parents=True)
    for name in PAPERS:
        shutil.copy(REPO / "data" / "papers" / name, papers / name)
    monkeypatch.setenv("GEO_RAG_HOME", str(home))
    monkeypatch.setenv("GEO_RAG_PAPERS", str(papers))
    monkeypatch.setenv("DAGSTER_HOME", str(REPO))
    monkeypatch.setenv("GEO_RAG_DAGSTER_STORAGE", str(home / "dagster"))
    for var in ("MONGODB_URI", "CHROMA_HOST", "NEO4J_URI", "GROBID_URL", "GEO_RAG_RETIRE_MAX_SHARE"):
        monkeypatch.delenv(var, raising=False)
    store = open_documents(get_settings())
    keys, ids = {}, {}
    for name in PAPERS:
        keys[name] = registry.register(store, papers / name)
        ids[name] = _ingested(store, papers / name, keys[name])
    store.close()
    instance = dg.DagsterInstance.get()  # the instance `geo-rag` and the daemon use for this home
    try:
        instance.add_dynamic_partitions(PARTITIONS, list(keys.values()))
        yield Watched(home, papers, instance, keys, ids)
    finally:
        instance.dispose()


def test_an_unmounted_folder_retires_nothing(watched: Watched) -> None:
    before = watched.counts()
    shutil.move(watched.papers, watched.papers.parent.parent / "moved-away")  # unmounted, or moved
    result, said = watched.evaluate_sensor()
    assert isinstance(result, dg.SkipReason), result
    assert "does not exist" in said and "no PDF is registered or retired" in said
    assert publication.retired_papers(watched.home) == {}
    assert publication.hidden_papers(watched.home) == frozenset()
    assert watched.counts() == before  # every paper, chunk and registration is still there


def test_an_emptied_folder_is_more_than_the_share_and_is_skipped(watched: Watched) -> None:
    before = watched.counts()
    for pdf in watched.papers.iterdir():  # an empty mount point: the folder exists, the PDFs do not
        pdf.unlink()
    result, said = watched.evaluate_sensor()
    assert isinstance(result, dg.SkipReason), result
    assert "not retiring" in said and "5 of 5 papers" in said and "geo-rag retire --confirm" in said
    assert publication.retired_papers(watched.home) == {}
    assert watched.counts() == before


def test_a_paper_ingested_from_elsewhere_is_kept(watched: Watched, tmp_path: Path) -> None:
    from geo_assets.ingest import registry
    from geo_rag_runtime.stores.opening import open_documents

    elsewhere = tmp_path / "downloads" / "Extra2020.pdf"  # `geo-rag ingest ~/downloads/Extra2020.pdf`
    elsewhere.parent.mkdir()
    elsewhere.write_bytes(sorted((REPO / "tests" / "fixtures" / "papers").glob("*.pdf"))[0].read_bytes())
    store = open_documents(watched.settings())
    key = registry.register(store, elsewhere)
    _ingested(store, elsewhere, key)
    store.close()
    from geo_assets.partitions import PAPERS as PARTITIONS

    watched.instance.add_dynamic_partitions(PARTITIONS, [key])
    before = watched.counts()
    elsewhere.unlink()  # the downloads folder is cleaned
    watched.evaluate_sensor()
    assert publication.retired_papers(watched.home) == {}
    assert watched.counts() == before


def test_a_removed_pdf_is_hidden_kept_and_back_when_the_pdf_returns(watched: Watched) -> None:
    name = PAPERS[0]
    before = watched.counts()
    moved = watched.papers.parent / name
    shutil.move(watched.papers / name, moved)
    watched.evaluate_sensor()
    retired = publication.retired_papers(watched.home)
    assert set(retired) == {watched.paper_ids[name]}
    record = retired[watched.paper_ids[name]]
    assert record["partition_key"] == watched.keys[name] and record["since"]
    assert watched.paper_ids[name] in publication.hidden_papers(watched.home)  # questions leave it out
    assert watched.counts() == before  # nothing deleted: retiring only hides
    assert watched.instance.has_dynamic_partition("papers", watched.keys[name])

    shutil.move(moved, watched.papers / name)  # the same PDF comes back
    watched.evaluate_sensor()
    assert publication.retired_papers(watched.home) == {}
    assert watched.counts() == before


def test_retire_confirm_unretire_and_purge(watched: Watched) -> None:
    from geo_assets.cli.commands import main

    for pdf in watched.papers.iterdir():  # removed on purpose this time
        pdf.unlink()
    before = watched.counts()
    out = io.StringIO()
    from geo_assets.cli import retirement

    assert retirement.retire_command([], confirm=False, out=out) == 0
    assert "5 paper(s) would be retired" in out.getvalue() and "--confirm" in out.getvalue()
    assert publication.retired_papers(watched.home) == {}

    assert retirement.retire_command([], confirm=True, out=out) == 0
    assert set(publication.retired_papers(watched.home)) == set(watched.paper_ids.values())
    assert watched.counts() == before

    first = PAPERS[0]
    assert main(["unretire", first]) == 0  # by file name
    assert watched.paper_ids[first] not in publication.retired_papers(watched.home)
    assert main(["unretire", "no-such-paper.pdf"]) == 2

    partitions = set(watched.instance.get_dynamic_partitions("papers"))
    assert {watched.keys[name] for name in PAPERS} <= partitions  # retiring keeps the partitions
    out = io.StringIO()
    assert retirement.purge_command(out=out) == 0  # retired minutes ago: kept for 30 days
    assert "purged 0 retired paper(s); 4 retired less than 30 days ago are kept" in out.getvalue()
    assert watched.counts() == before

    assert retirement.purge_command(everything=True, out=out) == 0
    after = watched.counts()
    assert after["papers"] == 1 and after["chunks"] == 3 and after["sources"] == 1  # only the unretired one
    assert publication.retired_papers(watched.home) == {}
    assert publication.hidden_papers(watched.home) == frozenset()
    partitions = set(watched.instance.get_dynamic_partitions("papers"))
    assert watched.keys[first] in partitions
    assert not any(watched.keys[name] in partitions for name in PAPERS[1:])


def test_the_sensor_does_not_retire_while_another_writer_holds_the_home(watched: Watched) -> None:
    import multiprocessing

    from geo_rag_runtime.home_lock import home_lock

    (watched.papers / PAPERS[0]).unlink()
    forked = multiprocessing.get_context("fork")
    ready, release = forked.Event(), forked.Event()

    def writer() -> None:  # a `geo-rag ingest` (or backup) in another process
        with home_lock(watched.home, print, what="geo-rag ingest"):
            ready.set()
            release.wait(30)

    process = forked.Process(target=writer)
    process.start()
    try:
        assert ready.wait(30)
        result, said = watched.evaluate_sensor()
        assert "not retiring this time" in said and "geo-rag ingest" in said, said
        assert publication.retired_papers(watched.home) == {}
    finally:
        release.set()
        process.join(30)
    watched.evaluate_sensor()  # the next evaluation catches up
    assert set(publication.retired_papers(watched.home)) == {watched.paper_ids[PAPERS[0]]}


def test_a_replaced_pdf_retires_its_earlier_version(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """New bytes under the same file name (a corrected PDF): the new version is published and the
    earlier one steps aside — retired, hidden, kept until purged — instead of both answering. Real
    ingests (embedded stores, the real parser and embedder) of a real paper."""
    from geo_assets.cli.commands import ingest
    from geo_assets.cli.retirement import purge_command
    from geo_rag_runtime.cli import store_counts
    from geo_rag_runtime.settings import get_settings

    folder, home = tmp_path / "papers", tmp_path / "home"
    folder.mkdir()
    pdf = folder / "paper.pdf"
    shutil.copy(
        REPO / "tests/fixtures/papers/Vermeesch2023_Geochronology_DiscordanceCorrigendum_CCBY.pdf", pdf
    )
    for name, value in {
        "GEO_RAG_HOME": home,
        "GEO_RAG_PAPERS": folder,
        "GEO_RAG_LOCAL_LLM": "false",
        "DAGSTER_HOME": REPO,
        "GEO_RAG_DAGSTER_STORAGE": home / "dagster",
    }.items():
        monkeypatch.setenv(name, str(value))
    for var in ("GROBID_URL", "MONGODB_URI", "CHROMA_HOST", "NEO4J_URI", "GEO_RAG_LLM_MODEL"):
        monkeypatch.delenv(var, raising=False)

    def run() -> str:
        out = io.StringIO()
        assert ingest([str(folder)], progress=False, corpus_assets=False, out=out, err=io.StringIO()) == 0
        return out.getvalue()

    run()
    once = store_counts(get_settings())
    pdf.write_bytes(pdf.read_bytes() + b"\n")  # a new version: different bytes, same name
    run()
    retired = publication.retired_papers(home)
    assert len(retired) == 1, retired
    record = next(iter(retired.values()))
    assert record["partition_key"] == "paper.pdf", record
    assert record["reason"].startswith("replaced by a new version of paper.pdf"), record
    assert store_counts(get_settings())["documents"]["papers"] == 2  # kept until purged ...
    assert "1 already up to date" in run()  # ... and the new version is the partition's paper
    assert purge_command(everything=True, out=io.StringIO(), err=io.StringIO()) == 0
    assert publication.retired_papers(home) == {}
    assert store_counts(get_settings()) == once  # what one clean load of the paper holds
