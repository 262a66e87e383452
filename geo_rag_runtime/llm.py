"""The LLM client: any OpenAI-compatible chat API through the official ``openai`` client.

Used for answer generation, query rephrasing/expansion, compression, LLM triple extraction,
synthetic queries and as RAGAS judge. Deterministic as far as the server allows (temperature 0, a
seed), always with a timeout and bounded retries, and ``max_tokens`` sent explicitly (DESIGN.md:
llama.cpp ignores ``max_completion_tokens``). Without configuration ``get_llm`` returns None and
callers use their labelled deterministic fallbacks.
"""

from __future__ import annotations

import json
import re
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
    ) -> None:
        import openai  # imported lazily: only needed when an LLM is configured

        self.model = model or settings.llm_model or ""
        if not self.model:
            raise ConfigurationError("no LLM model configured: set GEO_RAG_LLM_MODEL")
        self.seed = settings.llm_seed
        self._openai = openai
        self._client = openai.OpenAI(
            api_key=settings.openai_api_key or "not-needed",  # local servers accept any key
            base_url=settings.openai_base_url,
            timeout=settings.llm_timeout_s,
            max_retries=settings.llm_retries,
            http_client=http_client,
        )

    @property
    def name(self) -> str:
        return self.model

    def complete(
        self,
        system: str,
        user: str,
        *,
        max_tokens: int = 512,
        json_schema: dict[str, Any] | None = None,
    ) -> str:
        """One chat completion at temperature 0; returns the message text."""
        kwargs: dict[str, Any] = {}
        if json_schema is not None:
            kwargs["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": "output", "schema": json_schema, "strict": False},
            }
        try:
            response = self._client.chat.completions.create(
                model=self.model,
                messages=[{"role": "system", "content": system}, {"role": "user", "content": user}],
                temperature=0,
                seed=self.seed,
                max_tokens=max_tokens,
                **kwargs,
            )
        except (self._openai.APITimeoutError, self._openai.APIConnectionError) as exc:
            raise ServiceUnavailableError(f"LLM endpoint not reachable or timed out: {exc}") from exc
        except self._openai.APIStatusError as exc:
            if exc.status_code in (429, 502, 503, 504):
                raise ServiceUnavailableError(f"LLM endpoint busy (HTTP {exc.status_code})") from exc
            raise ServiceError(f"LLM request failed (HTTP {exc.status_code}): {exc.message}") from exc
        if not response.choices:
            raise ServiceError("LLM returned no choices")
        return response.choices[0].message.content or ""

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
    """The configured LLM, or None when no model/endpoint is configured (use the fallbacks)."""
    chosen = model or settings.llm_model
    if not chosen or not (settings.openai_api_key or settings.openai_base_url):
        return None
    return LLMClient(settings, model=chosen)
