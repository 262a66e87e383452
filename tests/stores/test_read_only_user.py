"""Read paths work for a read-only database user: ``GET /measurements``, the measurement export and
``geo-rag status`` against a real MongoDB wire-protocol server (SecantusDB) with authentication on.

The knowledge base is written by an ingest user (``readWrite``); the API then connects as a user
with MongoDB's built-in ``read`` role, as a deployment that serves questions should. Such a user may
not create indexes, so a read path that opens the store for writing fails; the reads must not.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from geo_rag_runtime.models import Measurement, Paper
from geo_rag_runtime.settings import Settings
from geo_rag_runtime.stores import publication
from tests.stores.test_real_servers import (
    SECANTUS_LAUNCHER,
    free_port,
    port_open,
    require_package,
    start_server,
)

pytestmark = pytest.mark.slow  # starts a server twice (about 2 s)

DB = "georag"


@dataclass(frozen=True)
class Users:
    writer: str
    reader: str


def _secantus(workdir: Path, port: int, *, auth: bool) -> object:
    config = workdir / "secantusd.toml"
    config.write_text("")
    argv = [sys.executable, "-c", SECANTUS_LAUNCHER, "--config", str(config), "--host", "127.0.0.1"]
    argv += ["--port", str(port), "--storage-path", str(workdir / "data"), "--standalone"]
    argv += ["--log-level", "WARNING", *(["--auth"] if auth else [])]
    return start_server(
        "secantusd-auth" if auth else "secantusd-setup", argv, workdir, lambda s: port_open(port)
    )


def _row(paper_id: str, n: int) -> Measurement:
    return Measurement(
        measurement_id=f"{paper_id}-m{n}",
        paper_id=paper_id,
        chunk_id=f"{paper_id}-c0",
        source_file=f"{paper_id}.pdf",
        analyte="age",
        value=400.0 + n,
        unit="Ma",
        sentence=f"The granite is {400 + n} Ma old.",
        printed=f"{400 + n}",
        char_start=n * 10,
        char_end=n * 10 + 3,
        page=1,
        source_type="text",
    )


@pytest.fixture(scope="module")
def users(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Users]:
    require_package("secantus", "secantusdb==0.7.0b3")
    import pymongo

    workdir = tmp_path_factory.mktemp("secantus-auth")
    port = free_port()
    setup = _secantus(workdir, port, auth=False)
    try:  # users are provisioned before authentication is switched on (SecantusDB's documented way)
        client: pymongo.MongoClient = pymongo.MongoClient(f"mongodb://127.0.0.1:{port}/")
        client.admin.command("createUser", "admin", pwd="admin-pw", roles=["root"])
        client[DB].command("createUser", "ingest", pwd="ingest-pw", roles=[{"role": "readWrite", "db": DB}])
        client[DB].command("createUser", "api", pwd="api-pw", roles=[{"role": "read", "db": DB}])
        client.close()
    finally:
        setup.stop()  # type: ignore[attr-defined]
    port = free_port()
    server = _secantus(workdir, port, auth=True)
    try:
        yield Users(
            writer=f"mongodb://ingest:ingest-pw@127.0.0.1:{port}/{DB}?authSource={DB}",
            reader=f"mongodb://api:api-pw@127.0.0.1:{port}/{DB}?authSource={DB}",
        )
    finally:
        server.stop()  # type: ignore[attr-defined]


def test_measurements_and_status_work_for_a_read_only_user(users: Users, tmp_path: Path) -> None:
    import pymongo
    from fastapi.testclient import TestClient

    from geo_rag_runtime import measurements
    from geo_rag_runtime.server import create_app
    from geo_rag_runtime.stores.documents import open_document_store
    from geo_rag_runtime.stores.opening import store_counts

    home = tmp_path / "home"
    writer = open_document_store(Settings(home=home, mongodb_uri=users.writer, mongodb_db=DB))
    for paper_id in ("pa", "pb"):
        writer.upsert_paper(
            Paper(paper_id=paper_id, source_file=f"{paper_id}.pdf", title=paper_id, sha256=paper_id * 8)
        )
        writer.replace_measurements(paper_id, [_row(paper_id, n) for n in range(3)])
    writer.close()
    reader = Settings(home=home, mongodb_uri=users.reader, mongodb_db=DB, local_llm=False)
    with pytest.raises(pymongo.errors.OperationFailure, match="not authorized"):  # the user is read-only
        pymongo.MongoClient(users.reader)[DB]["measurements"].create_index("unit")

    publication.mark_building(home, "pb", "run-1")  # an ingest is rewriting pb
    with TestClient(create_app(reader)) as client:
        response = client.get("/measurements", params={"analyte": "age"})
        assert response.status_code == 200, response.text
        assert sorted(r["measurement_id"] for r in response.json()) == ["pa-m0", "pa-m1", "pa-m2"]
    assert len(measurements.find(reader, minimum=401)) == 2
    counts = store_counts(reader)["documents"]
    assert "error" not in counts and counts["papers"] == 2 and counts["measurements"] == 6
