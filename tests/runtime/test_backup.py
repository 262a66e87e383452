"""`geo-rag backup` / `geo-rag restore` on a real knowledge base, and restore against crafted archives.

The source home is a copy of the session's knowledge base (MiniLM vectors, BM25 index, graph,
measurement rows and the trained router of two sample papers) with its papers and chunks in the
document store, a TEI file, and the local LLM's model file where `geo-rag llm pull` puts it. The
crafted archives are what an attacker (or a damaged download) brings: a pickle in place of the
router's numpy copy with every checksum updated, a member that leaves the home, a link, a member
whose bytes do not match the manifest. Each must be refused before anything is written, and the
untouched archive must then restore into the same home.
"""

from __future__ import annotations

import io
import json
import pickle
import shutil
import tarfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from geo_rag_runtime import local_llm
from geo_rag_runtime.backup import backup, restore
from geo_rag_runtime.errors import StoreError
from geo_rag_runtime.models import Paper
from geo_rag_runtime.router import model as qc
from geo_rag_runtime.settings import Settings
from tests.runtime.knowledge_base import MAGNETITE, KnowledgeBase

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
ROUTER = "files/models/query_classifier"


@dataclass
class Backup:
    source: Settings
    archive: Path


@pytest.fixture(scope="module")
def backed_up(knowledge_base: KnowledgeBase, tmp_path_factory: pytest.TempPathFactory) -> Backup:
    from geo_assets.graph.extraction import extract_triples_with
    from geo_rag_runtime.stores.opening import open_documents

    root = tmp_path_factory.mktemp("backup")
    source = knowledge_base.copy_without(root / "source")
    store = open_documents(source)
    for name, paper_id in knowledge_base.paper_ids.items():
        store.upsert_paper(Paper(paper_id=paper_id, source_file=name, sha256=paper_id * 4, title=name))
        own = sorted(
            (c for c in knowledge_base.chunks.values() if c.paper_id == paper_id), key=lambda c: c.ordinal
        )
        store.replace_chunks(paper_id, own)
        store.replace_triples(paper_id, extract_triples_with(own, llm=None))  # the facts the graph holds
        store.register_source(name, f"/papers/{name}")
    store.close()
    tei = source.path("tei") / f"{next(iter(knowledge_base.paper_ids.values()))}.tei.xml"
    tei.write_bytes((FIXTURES / "grobid_samples" / "N18-3011.grobid-0.6.1.tei.xml").read_bytes())
    from geo_rag_runtime.query import sentence_vectors
    from geo_rag_runtime.service import RagService

    embedder = RagService(source, llm=None).embedder  # the sentence_embeddings asset's vectors
    for paper_id in knowledge_base.paper_ids.values():
        own = [c for c in knowledge_base.chunks.values() if c.paper_id == paper_id]
        sentence_vectors.write_paper(source.home_dir, paper_id, own, embedder)
    weights = local_llm.model_path(source)  # `geo-rag llm pull` puts the 1.1 GB model here
    weights.unlink(missing_ok=True)  # a link to the shared home's model: never write through it
    weights.write_bytes(b"GGUF" + bytes(1 << 20))
    archive = root / "georag.tar.gz"
    backup(source, archive, say=print)
    return Backup(source, archive)


def _members(archive: Path) -> dict[str, bytes]:
    with tarfile.open(archive, "r:gz") as tar:
        return {m.name: tar.extractfile(m).read() for m in tar.getmembers() if m.isfile()}  # type: ignore[union-attr]


def _craft(
    archive: Path,
    out: Path,
    edit: Callable[[dict[str, bytes]], None],
    extra: Callable[[tarfile.TarFile], None] | None = None,
) -> Path:
    """A copy of ``archive`` with its members edited and, like a careful attacker, every checksum in
    its manifest updated to match."""
    import hashlib

    members = _members(archive)
    edit(members)
    manifest = json.loads(members.pop("manifest.json"))
    if isinstance(manifest.get("files"), dict):
        manifest["files"] = {
            name: {"size": len(data), "sha256": hashlib.sha256(data).hexdigest()}
            for name, data in members.items()
        }
    members = {"manifest.json": json.dumps(manifest).encode(), **members}
    with tarfile.open(out, "w:gz") as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
        if extra is not None:
            extra(tar)
    return out


def _listing(folder: Path) -> dict[str, int]:
    return (
        {str(p.relative_to(folder)): p.stat().st_size for p in sorted(folder.rglob("*"))}
        if folder.exists()
        else {}
    )


class _TouchesAFile:
    """A pickle that runs code when loaded: it creates ``path``."""

    def __init__(self, path: Path) -> None:
        self.path = str(path)

    def __reduce__(self) -> tuple[object, tuple[str, str]]:
        return (open, (self.path, "w"))


def _empty_home(tmp_path: Path) -> Settings:
    home = tmp_path / "new-home"
    home.mkdir()
    (home / "README.txt").write_text("made by the operator")
    return Settings(home=home, mongodb_uri=None, chroma_host=None, neo4j_uri=None, local_llm=False)


def test_a_backup_carries_no_pickle_and_no_model_weights(backed_up: Backup) -> None:
    names = set(_members(backed_up.archive))
    assert {f"{ROUTER}/manifest.json", f"{ROUTER}/linear.npz"} <= names
    assert not any(name.endswith((".joblib", ".gguf", ".onnx", ".sha256")) for name in names), names
    assert any(name.startswith("files/tei/") for name in names)
    sentences = sum(
        len(data) for name, data in _members(backed_up.archive).items() if "/sentence_vectors/" in name
    )
    # the 1 MB stand-in for the weights is not in it (the sentence vectors are float32: they barely compress)
    assert backed_up.archive.stat().st_size < 2_000_000 + sentences
    manifest = json.loads(_members(backed_up.archive)["manifest.json"])
    assert manifest["counts"]["papers"] == 2 and manifest["counts"]["vectors"] == manifest["counts"]["chunks"]
    assert set(manifest["files"]) == names - {"manifest.json"}


def test_a_restored_home_answers_and_loads_the_router_without_unpickling(
    backed_up: Backup, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import joblib

    from geo_rag_runtime.service import RagService
    from geo_rag_runtime.stores.opening import store_counts

    target = _empty_home(tmp_path)
    counts = restore(target, backed_up.archive, say=print)
    assert counts["papers"] == 2
    assert not list(target.home_dir.glob(".restore-staging-*"))
    router = qc.default_artifact_dir(target)
    assert sorted(p.name for p in router.iterdir()) == ["linear.npz", "manifest.json"]

    def must_not_unpickle(*args: object, **kwargs: object) -> None:
        raise AssertionError("joblib.load called on a restored home")

    monkeypatch.setattr(joblib, "load", must_not_unpickle)
    qc.clear_classifier_cache()
    assert qc.get_classifier(target).model_version == qc.get_classifier(backed_up.source).model_version
    before, after = store_counts(backed_up.source), store_counts(target)
    for store in ("documents", "vectors", "keyword_index", "graph"):
        assert {k: v for k, v in after[store].items() if k != "backend"} == {
            k: v for k, v in before[store].items() if k != "backend"
        }, store
    answers = []
    for settings in (backed_up.source, target):
        service = RagService(settings.model_copy(update={"generator": "extractive"}), llm=None)
        answers.append(service.ask(MAGNETITE))
        service.close()
    assert (answers[0].category, answers[0].strategy, answers[0].answer) == (
        answers[1].category,
        answers[1].strategy,
        answers[1].answer,
    )
    assert answers[1].classification and answers[1].classification["model_version"]


def test_an_archive_with_a_pickle_is_refused_the_home_untouched_and_a_retry_works(
    backed_up: Backup, tmp_path: Path
) -> None:
    import hashlib

    ran = tmp_path / "the-pickle-ran"
    evil = pickle.dumps(_TouchesAFile(ran))

    def swap_router(members: dict[str, bytes]) -> None:  # the archive: pickle in, numpy copy out
        members.pop(f"{ROUTER}/linear.npz", None)
        members[f"{ROUTER}/model.joblib"] = evil
        router = json.loads(members[f"{ROUTER}/manifest.json"])
        router["sha256"] = hashlib.sha256(evil).hexdigest()
        router["linear"] = {"copied": False}
        members[f"{ROUTER}/manifest.json"] = json.dumps(router).encode()

    crafted = _craft(backed_up.archive, tmp_path / "crafted.tar.gz", swap_router)
    target = _empty_home(tmp_path)
    before = _listing(target.home_dir)
    with pytest.raises(StoreError, match="model.joblib"):
        restore(target, crafted, say=print)
    assert _listing(target.home_dir) == before  # not one file written
    assert not ran.exists()

    restore(target, backed_up.archive, say=print)  # the untouched archive: the retry works
    qc.clear_classifier_cache()
    assert qc.get_classifier(target).predict(MAGNETITE).label
    assert not ran.exists()


def test_a_member_that_leaves_the_home_is_refused_before_anything_is_written(
    backed_up: Backup, tmp_path: Path
) -> None:
    def escape(members: dict[str, bytes]) -> None:
        members["files/tei/../../x"] = b"outside"

    crafted = _craft(backed_up.archive, tmp_path / "escape.tar.gz", escape)
    target = _empty_home(tmp_path)
    before = _listing(tmp_path)
    with pytest.raises(StoreError, match="outside the home"):
        restore(target, crafted, say=print)
    assert _listing(tmp_path) == before  # neither the home nor anything beside it changed
    assert restore(target, backed_up.archive, say=print)["papers"] == 2


def test_links_and_damaged_members_are_refused(backed_up: Backup, tmp_path: Path) -> None:
    def link(tar: tarfile.TarFile) -> None:
        info = tarfile.TarInfo("files/tei/passwd.tei.xml")
        info.type, info.linkname = tarfile.SYMTYPE, "/etc/passwd"
        tar.addfile(info)

    linked = _craft(backed_up.archive, tmp_path / "link.tar.gz", lambda members: None, link)
    target = _empty_home(tmp_path)
    with pytest.raises(StoreError, match="is a link"):
        restore(target, linked, say=print)

    members = _members(backed_up.archive)  # a bit flipped after the backup was written
    members["chunks.jsonl"] = members["chunks.jsonl"].replace(b"magnetite", b"magnetitE", 1)
    damaged = tmp_path / "damaged.tar.gz"
    with tarfile.open(damaged, "w:gz") as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    with pytest.raises(StoreError, match="does not match its manifest"):
        restore(target, damaged, say=print)
    assert _listing(target.home_dir) == {"README.txt": len("made by the operator")}


def test_restore_refuses_a_home_that_holds_a_knowledge_base(backed_up: Backup) -> None:
    with pytest.raises(StoreError, match="empty home"):
        restore(backed_up.source, backed_up.archive, say=print)


def test_a_restored_home_has_the_sentence_vectors_and_questions_use_them(
    backed_up: Backup, tmp_path: Path
) -> None:
    from geo_rag_runtime.query.sentence_vectors import FOLDER
    from geo_rag_runtime.service import RagService

    names = {n for n in _members(backed_up.archive) if n.startswith(f"files/{FOLDER}/")}
    assert len(names) == 2
    target = _empty_home(tmp_path)
    restore(target, backed_up.archive, say=print)
    before = {p.name: p.read_bytes() for p in (backed_up.source.home_dir / FOLDER).iterdir()}
    after = {p.name: p.read_bytes() for p in (target.home_dir / FOLDER).iterdir()}
    assert before == after
    # the archive has no ONNX export: until the next ingest remakes it, questions embed with torch,
    # and vectors stamped by the ONNX runtime are not used (answers stay what this home computes)
    settings = target.model_copy(update={"generator": "extractive"})
    service = RagService(settings, llm=None)
    service.ask(MAGNETITE)
    stats = service.stats()["sentence_vectors"]
    assert stats["from_ingest"] == 0 and stats["stale_papers"] >= 1
    service.close()
    export = "models/embedder-onnx"  # what the next `geo-rag ingest` writes again
    shutil.copytree(backed_up.source.home_dir / export, target.home_dir / export)
    service = RagService(settings, llm=None)
    service.ask(MAGNETITE)
    stats = service.stats()["sentence_vectors"]
    assert stats["from_ingest"] > 0 and stats["stale_papers"] == 0
    service.close()
