"""Shared fixtures: the in-repo real papers and TEI samples, and an isolated GeoRAG home per test."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

# Offline everywhere: no hub downloads, no telemetry (docs/architecture.md#measured-pitfalls).
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
os.environ.setdefault("RAGAS_DO_NOT_TRACK", "true")
os.environ.setdefault("DAGSTER_DISABLE_TELEMETRY", "1")

# pytest-xdist runs a test file per worker: each worker's torch and BLAS get their share of the cores
# (two workers each using every core ran the suite 40 s slower than with one thread each: 510 s,
# 468 s). Set before anything imports torch; the subprocesses the tests start inherit it.
_WORKERS = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
if _WORKERS > 1:
    for _var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ.setdefault(_var, str(max(1, (os.cpu_count() or 1) // _WORKERS)))


FIXTURES = REPO / "tests" / "fixtures"


@pytest.fixture(scope="session")
def grobid_samples() -> Path:
    """Real GROBID TEI outputs (0.6.1 and 0.8.1) with their PDFs and s2orc-doc2json references.

    Copied into the repository (tests/fixtures/SOURCES.md) so that a fresh clone tests with nothing beside it.
    """
    return FIXTURES / "grobid_samples"


@pytest.fixture(scope="session")
def fixture_papers() -> Path:
    """Real CC BY papers the tests need beyond the five samples in data/papers."""
    return FIXTURES / "papers"


@pytest.fixture(scope="session")
def sample_papers() -> Path:
    """The sample papers shipped in data/papers."""
    return REPO / "data" / "papers"


@pytest.fixture()
def geo_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """An empty GEO_RAG_HOME for one test, with no external services configured."""
    home = tmp_path / "home"
    monkeypatch.setenv("GEO_RAG_HOME", str(home))
    for var in (
        "GROBID_URL",
        "MONGODB_URI",
        "CHROMA_HOST",
        "NEO4J_URI",
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
        "GEO_RAG_LLM_MODEL",
        "GEO_RAG_JUDGE_MODEL",
    ):
        monkeypatch.delenv(var, raising=False)
    yield home
