"""The LLM client: any OpenAI-compatible chat API through the official ``openai`` client.

Used for answer generation, query rephrasing/expansion, compression, LLM triple extraction, synthetic
queries and as RAGAS judge. Deterministic as far as the server allows (temperature 0, a seed), always
with a timeout and bounded retries, and ``max_tokens`` sent explicitly (llama.cpp ignores
``max_completion_tokens``: docs/architecture.md#measured-pitfalls). ``get_llm`` returns the configured
endpoint, else the local llama.cpp server of this home when it runs (``local_llm``), else None: callers
then use their labelled deterministic fallbacks.

Structured output: OpenAI and vLLM take ``response_format={"type": "json_schema", ...}``; the
llama.cpp server ignores that and wants ``{"type": "json_object", "schema": ...}`` (it then
constrains generation with a grammar). ``llm_json_style`` picks one; ``auto`` uses llama.cpp's form
for the local server.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import httpx

from geo_rag_runtime.errors import ConfigurationError, ServiceError, ServiceUnavailableError
from geo_rag_runtime.settings import Settings

_JSON_BLOCK = re.compile(r"\{.*\}", re.DOTALL)


class LLMClient:
    """A chat model behind an OpenAI-compatible endpoint."""

    def __init__(
        self,
        settings: Settings,
        *,
        model: str | None = None,
        http_client: httpx.Client | None = None,
        base_url: str | None = None,
        json_style: str | None = None,
    ) -> None:
        import openai  # imported lazily: only needed when an LLM is configured

        self.model = model or settings.llm_model or ""
        if not self.model:
            raise ConfigurationError("no LLM model configured: set GEO_RAG_LLM_MODEL")
        self.seed = settings.llm_seed
        self.last_usage: dict[str, Any] = {}  # token counts of the latest completion (informational)
        style = json_style or settings.llm_json_style
        self.json_style = "json_schema" if style == "auto" else style
        self._openai = openai
        self._client = openai.OpenAI(
            api_key=settings.openai_api_key or "not-needed",  # local servers accept any key
            base_url=base_url or settings.openai_base_url,
            timeout=settings.llm_timeout_s,
            max_retries=settings.llm_retries,
            http_client=http_client,
        )

    @property
    def name(self) -> str:
        return self.model

    def _request(
        self, system: str, user: str, max_tokens: int, json_schema: dict[str, Any] | None
    ) -> dict[str, Any]:
        kwargs: dict[str, Any] = {
            "model": self.model,
            "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}],
            "temperature": 0,
            "seed": self.seed,
            "max_tokens": max_tokens,
        }
        if json_schema is not None:
            kwargs["response_format"] = (
                {"type": "json_object", "schema": json_schema}
                if self.json_style == "llama_cpp"
                else {
                    "type": "json_schema",
                    "json_schema": {"name": "output", "schema": json_schema, "strict": False},
                }
            )
        return kwargs

    @property
    def _api_errors(self) -> tuple[type[Exception], ...]:
        """The openai client's errors that ``_errors`` maps (timeouts, connection, HTTP status)."""
        return (self._openai.APITimeoutError, self._openai.APIConnectionError, self._openai.APIStatusError)

    def _errors(self, exc: Exception) -> Exception:
        if isinstance(exc, (self._openai.APITimeoutError, self._openai.APIConnectionError)):
            return ServiceUnavailableError(f"LLM endpoint not reachable or timed out: {exc}")
        if isinstance(exc, self._openai.APIStatusError):
            if exc.status_code in (429, 502, 503, 504):
                return ServiceUnavailableError(f"LLM endpoint busy (HTTP {exc.status_code})")
            return ServiceError(f"LLM request failed (HTTP {exc.status_code}): {exc.message}")
        return exc

    def complete(
        self,
        system: str,
        user: str,
        *,
        max_tokens: int = 512,
        json_schema: dict[str, Any] | None = None,
    ) -> str:
        """One chat completion at temperature 0; returns the message text."""
        try:
            response = self._client.chat.completions.create(
                **self._request(system, user, max_tokens, json_schema)
            )
        except self._api_errors as exc:
            raise self._errors(exc) from exc
        if not response.choices:
            raise ServiceError("LLM returned no choices")
        self.last_usage = response.usage.model_dump() if response.usage is not None else {}
        return response.choices[0].message.content or ""

    def stream(self, system: str, user: str, *, max_tokens: int = 512) -> Iterator[str]:
        """The completion's text as it is generated (server-sent events); same errors as ``complete``."""
        try:
            chunks = self._client.chat.completions.create(
                **self._request(system, user, max_tokens, None), stream=True
            )
            for chunk in chunks:
                if chunk.choices and chunk.choices[0].delta.content:
                    yield chunk.choices[0].delta.content
        except self._api_errors as exc:
            raise self._errors(exc) from exc

    def complete_json(
        self, system: str, user: str, *, json_schema: dict[str, Any], max_tokens: int = 1024
    ) -> dict[str, Any]:
        """A completion parsed as a JSON object (servers without schema support may wrap it in prose)."""
        text = self.complete(system, user, max_tokens=max_tokens, json_schema=json_schema)
        try:
            value = json.loads(text)
        except json.JSONDecodeError:
            match = _JSON_BLOCK.search(text)
            if not match:
                raise ServiceError(f"LLM did not return JSON: {text[:200]!r}") from None
            try:
                value = json.loads(match.group(0))
            except json.JSONDecodeError as exc:
                raise ServiceError(f"LLM returned malformed JSON: {exc}") from exc
        if not isinstance(value, dict):
            raise ServiceError("LLM JSON output is not an object")
        return value


def get_llm(settings: Settings, *, model: str | None = None) -> LLMClient | None:
    """The configured LLM; else the running local server of this home (unless ``local_llm`` is off);
    else None (callers use their deterministic fallbacks)."""
    chosen = model or settings.llm_model
    if chosen and (settings.openai_api_key or settings.openai_base_url):
        return LLMClient(settings, model=chosen)
    if settings.local_llm and not settings.openai_base_url:
        from geo_rag_runtime import local_llm

        state = local_llm.endpoint(settings)
        if state is not None:
            style = "llama_cpp" if settings.llm_json_style == "auto" else settings.llm_json_style
            return LLMClient(settings, model=state.model, base_url=state.base_url, json_style=style)
    return None
