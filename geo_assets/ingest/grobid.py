"""PDF → TEI through a GROBID server, with the official ``grobid-client-python`` package.

The official client is built for batch runs over folders: on HTTP 503 ("all GROBID workers busy")
its ``process_pdf`` sleeps and retries *without limit* (by recursion), and it folds connection
errors and timeouts into status codes 500/408 that cannot be told apart from GROBID's own. A
pipeline step needs a bounded retry and a clear failure instead, so this module uses the
client's own request layer (``GrobidClient.post``/``get``, its service URLs and TEI coordinate
settings) and keeps the retry policy here:

- 503 → retry after ``backoff_s``, doubling each time (or the server's ``Retry-After``),
  ``retries`` times, then ``ServiceUnavailableError``;
- connection refused / timeout → ``ServiceUnavailableError`` at once (saying how to start GROBID
  or fall back to the embedded parser);
- 204 (GROBID found no text) → ``PdfError``; any other non-200 → ``ServiceError`` naming the file
  and status.

By default GROBID is asked for coordinates (``teiCoordinates``, the form field repeated once per
element) of paragraphs, sentences, heads and figures: the TEI reader takes each paragraph's and
caption's PDF page from them, so that answers can cite the page.
"""

import logging
import time
from collections.abc import Sequence
from pathlib import Path

import requests
from grobid_client.grobid_client import GrobidClient as _OfficialClient

from geo_rag_runtime.errors import PdfError, ServiceError, ServiceUnavailableError

__all__ = ["PAGE_COORDINATES", "GrobidClient"]

log = logging.getLogger(__name__)

_START_HINT = (
    "start it with `docker run --rm -p 8070:8070 grobid/grobid:0.8.1` (or point GROBID_URL at a running "
    "server), or unset GROBID_URL to use the embedded PDF parser"
)
_MAX_RETRY_AFTER_S = 60.0
# the TEI elements whose ``coords`` the TEI reader turns into pages (paragraphs, GROBID 0.8's
# sentences, section heads, figure and table captions)
PAGE_COORDINATES = ("p", "s", "head", "figure")


class GrobidClient:
    """A GROBID server at ``url`` (e.g. ``http://localhost:8070``) for one PDF at a time."""

    def __init__(
        self,
        url: str,
        timeout_s: float = 180,
        retries: int = 3,
        backoff_s: float = 2.0,
        *,
        consolidate_header: bool = True,
        include_raw_citations: bool = True,
        segment_sentences: bool = False,
        tei_coordinates: bool | Sequence[str] = PAGE_COORDINATES,
    ) -> None:
        if not url or not url.startswith(("http://", "https://")):
            raise ValueError(f"GROBID URL must start with http:// or https://, got {url!r}")
        if timeout_s <= 0 or retries < 0 or backoff_s < 0:
            raise ValueError("timeout_s must be > 0, retries and backoff_s >= 0")
        self.url = url.rstrip("/")
        self.timeout_s = float(timeout_s)
        self.retries = int(retries)
        self.backoff_s = float(backoff_s)
        # consolidateHeader: GROBID completes header metadata (DOI, venue) from CrossRef when it
        # can reach it; includeRawCitations keeps each reference's original string, which the
        # references keep as ``raw``. teiCoordinates: the elements that carry ``coords`` (page and
        # box in the PDF); ``PAGE_COORDINATES`` by default, True for the official client's full
        # list (also title, persName, ref, biblStruct, ...), False for none.
        self.consolidate_header = consolidate_header
        self.include_raw_citations = include_raw_citations
        self.segment_sentences = segment_sentences
        self._client = _OfficialClient(
            grobid_server=self.url, timeout=int(max(1, round(self.timeout_s))), check_server=False
        )
        if tei_coordinates is True:
            self.tei_coordinates: tuple[str, ...] = tuple(self._client.config["coordinates"])
        elif tei_coordinates is False:
            self.tei_coordinates = ()
        elif isinstance(tei_coordinates, str):
            self.tei_coordinates = (tei_coordinates,)
        else:
            self.tei_coordinates = tuple(dict.fromkeys(tei_coordinates))

    def __repr__(self) -> str:
        return f"GrobidClient({self.url!r}, timeout_s={self.timeout_s}, retries={self.retries})"

    def is_alive(self) -> bool:
        """True when ``GET /api/isalive`` answers 200 "true"; never raises."""
        try:
            response, status = self._client.get(
                self._client.get_server_url("isalive"), timeout=min(self.timeout_s, 10.0)
            )
        except requests.RequestException:
            return False
        return status == 200 and response.text.strip().lower() == "true"

    def process_fulltext(self, pdf: Path) -> str:
        """TEI XML for one PDF from ``POST /api/processFulltextDocument``."""
        pdf = Path(pdf)
        try:
            content = pdf.read_bytes()
        except OSError as exc:
            raise PdfError(f"{pdf}: cannot be read: {exc}") from exc
        endpoint = self._client.get_server_url("processFulltextDocument")
        form: dict[str, str | list[str]] = {}
        if self.consolidate_header:
            form["consolidateHeader"] = "1"
        if self.include_raw_citations:
            form["includeRawCitations"] = "1"
        if self.segment_sentences:
            form["segmentSentences"] = "1"
        if self.tei_coordinates:
            form["teiCoordinates"] = list(self.tei_coordinates)  # requests repeats the field per value

        attempt = 0
        while True:
            attempt += 1
            files = {"input": (pdf.name, content, "application/pdf", {"Expires": "0"})}
            try:
                response, status = self._client.post(
                    url=endpoint,
                    files=files,
                    data=form,
                    timeout=(min(10.0, self.timeout_s), self.timeout_s),
                )
            except requests.Timeout as exc:
                raise ServiceUnavailableError(
                    f"GROBID at {self.url} did not answer within {self.timeout_s:g} s for {pdf.name}: {exc}; "
                    "raise GEO_RAG_GROBID_TIMEOUT_S for long PDFs, or unset GROBID_URL to use the embedded "
                    "PDF parser"
                ) from exc
            except requests.ConnectionError as exc:
                raise ServiceUnavailableError(
                    f"GROBID at {self.url} is not reachable: {exc}; {_START_HINT}"
                ) from exc
            except requests.RequestException as exc:
                raise ServiceError(f"GROBID request for {pdf.name} to {self.url} failed: {exc}") from exc

            if status == 200:
                return response.text
            if status == 503 and attempt <= self.retries:
                wait = self._wait(attempt, response.headers.get("Retry-After"))
                log.warning(
                    "GROBID busy (503) for %s; retry %d/%d in %.1f s", pdf.name, attempt, self.retries, wait
                )
                time.sleep(wait)
                continue
            if status == 503:
                raise ServiceUnavailableError(
                    f"GROBID at {self.url} stayed busy (HTTP 503) for {pdf.name} after {attempt} attempts; "
                    "lower the number of concurrent requests or retry later"
                )
            if status == 204:
                raise PdfError(f"{pdf}: GROBID extracted no content (HTTP 204); is it a scanned PDF?")
            detail = response.text.strip().replace("\n", " ")[:300]
            raise ServiceError(f"GROBID at {self.url} failed on {pdf.name}: HTTP {status} {detail}".rstrip())

    def _wait(self, attempt: int, retry_after: str | None) -> float:
        if retry_after:
            try:
                return min(max(0.0, float(retry_after)), _MAX_RETRY_AFTER_S)
            except ValueError:
                pass  # an HTTP date: fall back to our own backoff
        return self.backoff_s * (2 ** (attempt - 1))
