"""PDF → TEI with the configured converter: GROBID when ``GROBID_URL`` is set, else the embedded parser."""

from __future__ import annotations

from pathlib import Path

from geo_rag_runtime.settings import Settings


def convert_pdf(settings: Settings, pdf_path: Path) -> str:
    """TEI XML for one PDF; GROBID errors (down, timeout, busy) surface as ``ServiceUnavailableError``."""
    if settings.grobid_url:
        from geo_assets.ingest.grobid import GrobidClient

        client = GrobidClient(
            settings.grobid_url, timeout_s=settings.grobid_timeout_s, retries=settings.grobid_retries
        )
        return client.process_fulltext(pdf_path)
    from geo_assets.ingest.pdf import pdf_to_tei

    return pdf_to_tei(pdf_path)
