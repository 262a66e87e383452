"""GrobidClient against a local HTTP server that answers like GROBID (isalive, multipart fulltext).

GROBID itself cannot run here; the fake sits at the HTTP boundary and returns a real GROBID TEI
from the corpus, so the client's request shape, retries and error mapping are what is tested.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from email.parser import BytesParser
from email.policy import HTTP
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from geo_assets.ingest.grobid import PAGE_COORDINATES, GrobidClient
from geo_assets.ingest.tei import tei_to_paper
from geo_rag_runtime.errors import PdfError, ServiceError, ServiceUnavailableError

SAMPLE = "N18-3011"


@dataclass
class FakeGrobid:
    """What the fake server answers (one entry per POST; the last one repeats) and what it saw."""

    tei: bytes
    answers: list[tuple[int, float]] = field(default_factory=lambda: [(200, 0.0)])  # (status, delay)
    posts: list[dict[str, Any]] = field(default_factory=list)
    alive: bool = True

    def next_answer(self) -> tuple[int, float]:
        index = min(len(self.posts) - 1, len(self.answers) - 1)
        return self.answers[index]


def _handler(state: FakeGrobid) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:  # keep test output quiet
            pass

        def do_GET(self) -> None:
            if self.path == "/api/isalive":
                body = b"true" if state.alive else b"false"
                self.send_response(200 if state.alive else 503)
                self.send_header("Content-Type", "text/plain")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            else:
                self.send_error(404)

        def do_POST(self) -> None:
            length = int(self.headers["Content-Length"])
            raw = self.rfile.read(length)
            message = BytesParser(policy=HTTP).parsebytes(
                b"Content-Type: " + self.headers["Content-Type"].encode() + b"\r\n\r\n" + raw
            )
            fields: dict[str, Any] = {}
            for part in message.iter_parts():
                name = str(part.get_param("name", header="content-disposition"))
                payload: bytes = part.get_payload(decode=True)  # type: ignore[assignment]
                if part.get_filename():
                    fields[name] = {
                        "filename": part.get_filename(),
                        "bytes": payload,
                        "type": part.get_content_type(),
                    }
                else:
                    fields.setdefault(name, []).append(payload.decode())
            state.posts.append({"path": self.path, "fields": fields})
            status, delay = state.next_answer()
            if delay:
                time.sleep(delay)
            if self.path != "/api/processFulltextDocument":
                self.send_error(404)
                return
            body = (
                state.tei
                if status == 200
                else b""
                if status in (204, 503)
                else b"[GENERAL] An exception occurred"
            )
            self.send_response(status)
            self.send_header("Content-Type", "application/xml" if status == 200 else "text/plain")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    return Handler


@pytest.fixture()
def grobid(grobid_samples: Path) -> Iterator[tuple[str, FakeGrobid]]:
    state = FakeGrobid(tei=(grobid_samples / f"{SAMPLE}.grobid-0.6.1.tei.xml").read_bytes())
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    server.daemon_threads = True
    server.block_on_close = False  # a slow handler must not hold up the teardown
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", state
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def pdf(grobid_samples: Path) -> Path:
    return grobid_samples / f"{SAMPLE}.pdf"


def test_process_fulltext_returns_the_tei_and_sends_a_grobid_shaped_request(grobid, pdf) -> None:
    url, state = grobid
    client = GrobidClient(url, timeout_s=10)
    tei = client.process_fulltext(pdf)
    assert tei.encode() == state.tei
    assert len(state.posts) == 1
    post = state.posts[0]
    assert post["path"] == "/api/processFulltextDocument"
    fields = post["fields"]
    assert fields["input"]["filename"] == pdf.name
    assert fields["input"]["bytes"] == pdf.read_bytes()
    assert fields["input"]["type"] == "application/pdf"
    assert fields["consolidateHeader"] == ["1"]
    assert fields["includeRawCitations"] == ["1"]
    assert "segmentSentences" not in fields
    # coordinates of paragraphs, sentences, heads and figures (the pages), the field once per element
    assert fields["teiCoordinates"] == ["p", "s", "head", "figure"] == list(PAGE_COORDINATES)
    paper = tei_to_paper(tei, paper_id="p1", source_file=pdf.name, sha256="0" * 64)
    assert paper.title == "Construction of the Literature Graph in Semantic Scholar"
    assert paper.tei_producer == "GROBID 0.6.1"


def test_options_map_to_grobid_form_fields(grobid, pdf) -> None:
    url, state = grobid
    client = GrobidClient(url, consolidate_header=False, segment_sentences=True, tei_coordinates=True)
    client.process_fulltext(pdf)
    fields = state.posts[0]["fields"]
    assert "consolidateHeader" not in fields
    assert fields["segmentSentences"] == ["1"]
    assert "p" in fields["teiCoordinates"] and "biblStruct" in fields["teiCoordinates"]
    assert set(PAGE_COORDINATES) <= set(fields["teiCoordinates"])


@pytest.mark.parametrize(
    ("setting", "sent"),
    [(False, None), (("p", "figure", "p"), ["p", "figure"]), ("head", ["head"])],
)
def test_tei_coordinates_can_be_narrowed_or_switched_off(grobid, pdf, setting, sent) -> None:
    url, state = grobid
    GrobidClient(url, tei_coordinates=setting).process_fulltext(pdf)
    assert state.posts[0]["fields"].get("teiCoordinates") == sent


def test_busy_server_is_retried_with_backoff_then_succeeds(grobid, pdf) -> None:
    url, state = grobid
    state.answers = [(503, 0.0), (503, 0.0), (200, 0.0)]
    client = GrobidClient(url, retries=3, backoff_s=0.05)
    started = time.monotonic()
    tei = client.process_fulltext(pdf)
    elapsed = time.monotonic() - started
    assert tei.encode() == state.tei
    assert len(state.posts) == 3
    assert elapsed >= 0.05 + 0.10  # backoff doubles: 0.05 s, then 0.10 s


def test_persistently_busy_server_gives_up_after_the_retries(grobid, pdf) -> None:
    url, state = grobid
    state.answers = [(503, 0.0)]
    client = GrobidClient(url, retries=2, backoff_s=0.01)
    with pytest.raises(ServiceUnavailableError, match=r"503.*N18-3011\.pdf after 3 attempts"):
        client.process_fulltext(pdf)
    assert len(state.posts) == 3


def test_server_down_is_a_clear_service_unavailable_error(pdf) -> None:
    with socket.socket() as sock:  # a port that was free a moment ago: nothing listens there
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    client = GrobidClient(f"http://127.0.0.1:{port}", timeout_s=5, retries=3, backoff_s=0.01)
    assert client.is_alive() is False
    started = time.monotonic()
    with pytest.raises(ServiceUnavailableError) as info:
        client.process_fulltext(pdf)
    message = str(info.value)
    assert f"127.0.0.1:{port} is not reachable" in message
    assert "docker run" in message and "unset GROBID_URL" in message
    assert time.monotonic() - started < 3  # refused connections are not retried


def test_slow_server_times_out(grobid, pdf) -> None:
    url, state = grobid
    state.answers = [(200, 1.5)]
    client = GrobidClient(url, timeout_s=0.3, retries=3)
    with pytest.raises(ServiceUnavailableError, match=r"did not answer within 0.3 s for N18-3011\.pdf"):
        client.process_fulltext(pdf)
    # The client gives up after 0.3 s, which on a loaded machine can be before the server has read
    # the upload: wait for the server to see it rather than race it.
    deadline = time.monotonic() + 10
    while not state.posts and time.monotonic() < deadline:
        time.sleep(0.02)
    time.sleep(0.3)  # room for a retry to arrive, were there one
    assert len(state.posts) == 1  # a timeout is not retried: the next try would wait as long


def test_other_http_errors_name_the_file_and_status(grobid, pdf) -> None:
    url, state = grobid
    state.answers = [(500, 0.0)]
    with pytest.raises(ServiceError, match=r"N18-3011\.pdf: HTTP 500") as info:
        GrobidClient(url).process_fulltext(pdf)
    assert not isinstance(info.value, ServiceUnavailableError)
    assert len(state.posts) == 1


def test_no_content_is_a_pdf_error(grobid, pdf) -> None:
    url, state = grobid
    state.answers = [(204, 0.0)]
    with pytest.raises(PdfError, match="HTTP 204"):
        GrobidClient(url).process_fulltext(pdf)


def test_is_alive(grobid) -> None:
    url, state = grobid
    client = GrobidClient(url)
    assert client.is_alive() is True
    state.alive = False
    assert client.is_alive() is False


def test_missing_pdf_and_bad_settings(grobid, tmp_path: Path) -> None:
    url, _ = grobid
    with pytest.raises(PdfError, match="missing.pdf"):
        GrobidClient(url).process_fulltext(tmp_path / "missing.pdf")
    with pytest.raises(ValueError, match="http"):
        GrobidClient("localhost:8070")
    with pytest.raises(ValueError):
        GrobidClient(url, timeout_s=0)
