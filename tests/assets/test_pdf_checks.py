"""validate_pdf / has_text_layer on a real corpus PDF and on broken files made at test time."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from PIL import Image
from pypdf import PdfWriter

from geo_assets.ingest.pdf_checks import has_text_layer, validate_pdf
from geo_rag_runtime.errors import PdfError

REAL = "LiVermeesch2021_Geochronology_InverseIsochron_CCBY.pdf"  # 6 pages, 2.0 MB


@pytest.fixture(scope="module")
def real_pdf(sample_papers: Path) -> Path:
    return sample_papers / REAL


def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def _blank_pdf(
    path: Path, pages: int = 1, user_password: str | None = None, owner_password: str = ""
) -> Path:
    writer = PdfWriter()
    for _ in range(pages):
        writer.add_blank_page(width=200, height=200)
    if user_password is not None:
        writer.encrypt(user_password=user_password, owner_password=owner_password, algorithm="AES-128")
    buffer = io.BytesIO()
    writer.write(buffer)
    return _write(path, buffer.getvalue())


def test_real_pdf_passes_with_its_page_count_and_text(real_pdf: Path) -> None:
    assert validate_pdf(real_pdf) == 6
    assert validate_pdf(real_pdf, require_text=True) == 6
    assert has_text_layer(real_pdf) is True


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(PdfError, match=r"nothing\.pdf: file not found"):
        validate_pdf(tmp_path / "nothing.pdf")
    with pytest.raises(PdfError, match="not a file"):
        validate_pdf(tmp_path)


def test_empty_file(tmp_path: Path) -> None:
    with pytest.raises(PdfError, match=r"empty\.pdf: the file is empty \(0 bytes\)"):
        validate_pdf(_write(tmp_path / "empty.pdf", b""))


def test_html_page_saved_as_pdf(tmp_path: Path) -> None:
    page = b"<!DOCTYPE html>\n<html><head><title>Access denied</title></head><body>Sign in</body></html>"
    with pytest.raises(PdfError, match=r"paper\.pdf: not a PDF \(it is an HTML/XML document"):
        validate_pdf(_write(tmp_path / "paper.pdf", page))


def test_text_file_named_pdf(tmp_path: Path) -> None:
    with pytest.raises(PdfError, match=r"notes\.pdf: not a PDF \(it starts with 'SiO2 wt\.%"):
        validate_pdf(_write(tmp_path / "notes.pdf", "SiO2 wt.% 87Sr/86Sr δ18O ±0.1\n".encode()))


def test_truncated_download(tmp_path: Path, real_pdf: Path) -> None:
    data = real_pdf.read_bytes()
    with pytest.raises(PdfError, match=r"half\.pdf: truncated or corrupt PDF"):
        validate_pdf(_write(tmp_path / "half.pdf", data[: len(data) // 2]))


def test_corrupt_body_behind_valid_header_and_trailer(tmp_path: Path) -> None:
    junk = b"%PDF-1.7\n" + bytes(range(256)) * 20 + b"\nstartxref\n99999\n%%EOF\n"
    with pytest.raises(PdfError, match=r"junk\.pdf: (truncated or )?corrupt PDF"):
        validate_pdf(_write(tmp_path / "junk.pdf", junk))


def test_encrypted_with_a_user_password(tmp_path: Path) -> None:
    locked = _blank_pdf(tmp_path / "locked.pdf", user_password="secret", owner_password="owner")
    with pytest.raises(PdfError, match=r"locked\.pdf: encrypted PDF that needs a password"):
        validate_pdf(locked)


def test_encrypted_with_an_empty_user_password_opens(tmp_path: Path) -> None:
    """Owner-password-only PDFs (printing/copying restrictions) open without a password."""
    restricted = _blank_pdf(tmp_path / "restricted.pdf", pages=2, user_password="", owner_password="owner")
    assert validate_pdf(restricted) == 2


def test_over_the_size_limit(real_pdf: Path) -> None:
    with pytest.raises(PdfError, match=rf"{REAL}: 1\.9 MB is over the 0\.5 MB limit"):
        validate_pdf(real_pdf, max_mb=0.5)


def test_zero_pages(tmp_path: Path) -> None:
    with pytest.raises(PdfError, match=r"nopages\.pdf: the PDF has no pages"):
        validate_pdf(_blank_pdf(tmp_path / "nopages.pdf", pages=0))


def test_image_only_scan_has_no_text_layer(tmp_path: Path) -> None:
    scan = tmp_path / "scan.pdf"
    Image.new("L", (300, 400), color=200).save(scan)  # what a scanner without OCR produces
    assert validate_pdf(scan) == 1
    assert has_text_layer(scan) is False
    with pytest.raises(PdfError, match=r"scan\.pdf: no text layer; OCR is not supported"):
        validate_pdf(scan, require_text=True)


def test_blank_pages_have_no_text_layer(tmp_path: Path) -> None:
    assert has_text_layer(_blank_pdf(tmp_path / "blank.pdf")) is False
