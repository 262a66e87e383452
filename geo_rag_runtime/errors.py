"""The exception hierarchy of GeoRAG, in one place.

GeoRagError
├── ConfigurationError        a setting is missing or inconsistent (e.g. embedding model mismatch)
├── InputError                bad input: the message names the file or the field
│   ├── PdfError              not a PDF, corrupt, encrypted, empty or image-only, too large
│   ├── TeiError              malformed or empty TEI
│   ├── DuplicatePaperError   same bytes as an already ingested paper
│   └── QueryError            empty, oversized or otherwise unusable question
├── ServiceError              an external service failed
│   └── ServiceUnavailableError  down, timed out or overloaded: retrying later may help
└── StoreError                a store is missing, unreadable or inconsistent
"""

from __future__ import annotations


class GeoRagError(Exception):
    """Root of all errors raised on purpose by GeoRAG."""


class ConfigurationError(GeoRagError):
    pass


class InputError(GeoRagError):
    pass


class PdfError(InputError):
    pass


class TeiError(InputError):
    pass


class DuplicatePaperError(InputError):
    def __init__(self, message: str, existing_paper_id: str, existing_source: str | None = None):
        super().__init__(message)
        self.existing_paper_id = existing_paper_id
        self.existing_source = existing_source


class QueryError(InputError):
    pass


class ServiceError(GeoRagError):
    pass


class ServiceUnavailableError(ServiceError):
    """Retryable: the service is down, overloaded (HTTP 503) or timed out."""


class StoreError(GeoRagError):
    pass


# Said by every store error about a damaged file (a crash or a full disk mid-write): the embedded
# stores are derived from the papers, so a forced re-ingest rebuilds them.
REBUILD_HINT = (
    "if the file is damaged, move it aside and run `geo-rag ingest --force` to rebuild it from the "
    "papers, or `geo-rag restore` a backup into a new GEO_RAG_HOME"
)
