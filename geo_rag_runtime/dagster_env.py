"""Environment for the Dagster processes that ``geo-rag`` starts (no Dagster import here).

``DAGSTER_HOME`` is the project root, whose ``dagster.yaml`` configures the instance; the SQLite
run/event storage lives under ``GEO_RAG_HOME/dagster`` so each GeoRAG home has its own history.
"""

from __future__ import annotations

import os
from pathlib import Path

from geo_rag_runtime.settings import Settings

PROJECT_ROOT = Path(__file__).resolve().parents[1]

_FALLBACK_YAML = """telemetry:
  enabled: false
storage:
  sqlite:
    base_dir:
      env: GEO_RAG_DAGSTER_STORAGE
"""


def dagster_environment(settings: Settings) -> dict[str, str]:
    """A copy of ``os.environ`` with DAGSTER_HOME, storage and offline flags set (user values win)."""
    env = dict(os.environ)
    env["GEO_RAG_HOME"] = str(settings.home_dir)
    env["GEO_RAG_PAPERS"] = str(Path(settings.papers).expanduser().resolve())
    env.setdefault("GEO_RAG_DAGSTER_STORAGE", str(settings.path("dagster")))
    if "DAGSTER_HOME" not in env:
        if (PROJECT_ROOT / "dagster.yaml").is_file():
            env["DAGSTER_HOME"] = str(PROJECT_ROOT)
        else:  # installed from a wheel: keep a minimal instance config under the home
            home = settings.path("dagster_home")
            (home / "dagster.yaml").write_text(_FALLBACK_YAML, encoding="utf-8")
            env["DAGSTER_HOME"] = str(home)
    for key, value in OFFLINE_FLAGS.items():
        env.setdefault(key, value)
    return env


OFFLINE_FLAGS = {
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "ANONYMIZED_TELEMETRY": "False",
    "RAGAS_DO_NOT_TRACK": "true",
    "DAGSTER_DISABLE_TELEMETRY": "1",
    "TOKENIZERS_PARALLELISM": "false",
    "HF_HUB_DISABLE_PROGRESS_BARS": "1",  # no "Loading weights" bars in CLI output
    "TRANSFORMERS_VERBOSITY": "error",
}
