"""Cheap checks that a file is a PDF we can ingest, before any expensive parsing.

Each failure raises ``PdfError`` with a message that names the file and says what is wrong, so a
bad upload stops at the first asset with an answer the user can act on. The checks read the file
header and tail and pypdf's cross-reference table and page tree only; page content streams are
parsed (by ``has_text_layer``) for at most a few pages.
"""

import os
from pathlib import Path

from pypdf import PdfReader
from pypdf.errors import PdfReadError

from geo_rag_runtime.errors import PdfError

__all__ = ["has_text_layer", "validate_pdf"]

_HEADER = b"%PDF-"
_HEAD_BYTES = 1024  # readers accept the header anywhere in the first KiB
_TAIL_BYTES = 4096  # the last %%EOF sits at the end (incremental updates append after it)
_MIN_TEXT_CHARS = 20


def validate_pdf(path: str | os.PathLike[str], max_mb: float = 100.0, *, require_text: bool = False) -> int:
    """Check that ``path`` is a readable, unencrypted, non-empty PDF; return its page count.

    With ``require_text`` an image-only (scanned) PDF is rejected as well, from the same parse.
    Raises ``PdfError`` naming the file for: a missing file, an empty file, a file over
    ``max_mb``, a file that is not a PDF (e.g. an HTML page saved as .pdf), a truncated or
    corrupt PDF, an encrypted PDF that needs a password, a PDF without pages, and (with
    ``require_text``) a PDF without a text layer.
    """
    file = Path(path)
    if not file.exists():
        raise PdfError(f"{file}: file not found")
    if not file.is_file():
        raise PdfError(f"{file}: not a file")
    size = file.stat().st_size
    if size == 0:
        raise PdfError(f"{file}: the file is empty (0 bytes)")
    if size > max_mb * 1024 * 1024:
        raise PdfError(
            f"{file}: {size / 1024 / 1024:.1f} MB is over the {max_mb:g} MB limit (GEO_RAG_MAX_PDF_MB)"
        )
    with open(file, "rb") as handle:
        head = handle.read(_HEAD_BYTES)
        handle.seek(max(0, size - _TAIL_BYTES))
        tail = handle.read()
    if _HEADER not in head:
        raise PdfError(f"{file}: not a PDF ({_describe(head)})")
    if b"%%EOF" not in tail:
        raise PdfError(f"{file}: truncated or corrupt PDF (no %%EOF marker at the end of the file)")
    reader = _open(file)
    try:
        pages = len(reader.pages)
    except Exception as exc:  # a broken page tree surfaces here, with many exception types
        raise PdfError(f"{file}: corrupt PDF (page tree unreadable: {exc})") from exc
    if pages == 0:
        raise PdfError(f"{file}: the PDF has no pages")
    if require_text and not _reader_has_text(reader):
        raise PdfError(_NO_TEXT.format(file=file))
    return pages


_NO_TEXT = (
    "{file}: no text layer; OCR is not supported (the PDF holds only images, e.g. a scan): run OCR first "
    "(for example `ocrmypdf in.pdf out.pdf`) and ingest the result"
)


def has_text_layer(path: str | os.PathLike[str]) -> bool:
    """True when the PDF has extractable text (not only scanned page images).

    Pages without font resources cannot carry text and are skipped without parsing; text is
    extracted from at most three pages that do have fonts.
    """
    return _reader_has_text(_open(Path(path)))


def _open(file: Path) -> PdfReader:
    try:
        reader = PdfReader(file, strict=False)
    except (PdfReadError, OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise PdfError(f"{file}: truncated or corrupt PDF ({exc})") from exc
    except Exception as exc:  # pypdf raises a wide range on damaged files
        raise PdfError(f"{file}: truncated or corrupt PDF ({type(exc).__name__}: {exc})") from exc
    if reader.is_encrypted:
        try:
            unlocked = reader.decrypt("")
        except Exception as exc:  # unsupported security handler, missing crypto backend
            raise PdfError(f"{file}: encrypted PDF that cannot be opened ({exc})") from exc
        if not unlocked:
            raise PdfError(f"{file}: encrypted PDF that needs a password; save an unprotected copy and retry")
    return reader


def _reader_has_text(reader: PdfReader, max_pages: int = 3) -> bool:
    tried = 0
    for page in reader.pages:
        if not _has_fonts(page):
            continue
        try:
            text = page.extract_text() or ""
        except Exception:  # a damaged content stream on one page does not decide the file
            text = ""
        if sum(not c.isspace() for c in text) >= _MIN_TEXT_CHARS:
            return True
        tried += 1
        if tried >= max_pages:
            break
    return False


def _has_fonts(page: object, depth: int = 0) -> bool:
    """Does a page (or a form XObject it draws) declare fonts? (Dictionary lookups only.)"""
    try:
        resources = page.get("/Resources")  # type: ignore[attr-defined]
        resources = resources.get_object() if resources is not None else None
        if not resources:
            return False
        fonts = resources.get("/Font")
        if fonts is not None and len(fonts.get_object()) > 0:
            return True
        xobjects = resources.get("/XObject")
        if xobjects is None or depth >= 2:
            return False
        for ref in xobjects.get_object().values():
            xobject = ref.get_object()
            if xobject.get("/Subtype") == "/Form" and _has_fonts(xobject, depth + 1):
                return True
    except Exception:
        return False
    return False


def _describe(head: bytes) -> str:
    start = head.lstrip()[:64]
    lowered = start.lower()
    if lowered.startswith((b"<!doctype html", b"<html", b"<?xml", b"<head")):
        return "it is an HTML/XML document, e.g. a web page saved under a .pdf name"
    printable = start.decode("latin-1", errors="replace")
    printable = "".join(c if c.isprintable() else "." for c in printable[:32])
    return f"it starts with {printable!r}, not %PDF-"
