"""``geo-rag serve``: the query service over HTTP (FastAPI).

* ``POST /ask`` — body ``{"question": str, "mode": "hybrid"|"baseline", "top_k": 1..50 | null}``;
  returns the Answer JSON, byte for byte what ``geo-rag ask --json`` prints (one serializer,
  ``models.answer_json``); the route declares :class:`~geo_rag_runtime.models.Answer` as its response
  model, so ``/openapi.json`` describes the answer down to each kind of context item.
  With ``"stream": true`` the answer comes as server-sent events instead: ``draft`` events carry
  the LLM's text as it is written (``{"text": ...}``), then one ``answer`` event carries the final
  Answer JSON with its checked citations (or one ``error`` event).
* ``GET /health`` — which stores, classifier and LLM are available, with counts; HTTP 503 when the
  vector store is missing (nothing can be answered), 200 otherwise ("ok" or "degraded").

Safety: request bodies are limited in size (413), bodies are validated (422 with the field errors but
without echoing the input back), an optional bearer token (``GEO_RAG_API_TOKEN``) guards ``/ask``
(401, compared in constant time), and every error is ``{"error": type, "message": ...}`` — stack
traces go to the server log, never to the client. The one :class:`RagService` is created at start-up
(lifespan) and shared; ``ask`` blocks (model inference, embedded stores), so it runs in the thread
pool and the event loop stays free.
"""

# No ``from __future__ import annotations``: FastAPI reads the request model from the endpoint's
# annotations at run time, and that model is built inside ``create_app``.
import asyncio
import hmac
import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping
from contextlib import asynccontextmanager
from typing import Any, Literal

from fastapi import Depends, FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response, StreamingResponse
from pydantic import BaseModel, ConfigDict, Field, create_model
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException as StarletteHTTPException

from geo_rag_runtime.errors import (
    ConfigurationError,
    GeoRagError,
    InputError,
    ServiceError,
    ServiceUnavailableError,
    StoreError,
)
from geo_rag_runtime.models import Answer, answer_json
from geo_rag_runtime.service import MAX_TOP_K, RagService
from geo_rag_runtime.settings import Settings, get_settings

__all__ = ["create_app", "error_status", "BodySizeLimit", "ErrorBody"]

log = logging.getLogger("geo_rag_runtime.server")

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]


def error_status(exc: GeoRagError) -> int:
    """HTTP status of a GeoRAG error: the client's fault (422) or the service's (502/503/500)."""
    if isinstance(exc, InputError):
        return 422
    if isinstance(exc, ServiceUnavailableError | StoreError):
        return 503
    if isinstance(exc, ServiceError):
        return 502
    if isinstance(exc, ConfigurationError):
        return 500
    return 500


def _error(status: int, error: str, message: str, **extra: Any) -> JSONResponse:
    return JSONResponse(status_code=status, content={"error": error, "message": message, **extra})


class _TooLarge(Exception):
    pass


class _Unauthorized(Exception):
    pass


class BodySizeLimit:
    """ASGI middleware: refuse request bodies over ``max_bytes`` (declared or streamed) with 413."""

    def __init__(self, app: Any, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.max_bytes):
            await self._reject(scope, receive, send)
            return
        received = 0
        started = False

        async def limited_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_bytes:
                    raise _TooLarge
            return message

        async def tracking_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, limited_receive, tracking_send)
        except _TooLarge:
            if not started:
                await self._reject(scope, receive, send)

    async def _reject(self, scope: Scope, receive: Receive, send: Send) -> None:
        response = _error(413, "PayloadTooLarge", f"the request body exceeds {self.max_bytes} bytes")
        await response(scope, receive, send)


class AskRequestBase(BaseModel):
    """``POST /ask`` body; ``create_app`` adds the question with the configured length limit."""

    model_config = ConfigDict(extra="forbid")

    question: str = Field(min_length=1)
    mode: Literal["hybrid", "baseline"] = "hybrid"
    top_k: int | None = Field(default=None, ge=1, le=MAX_TOP_K)
    stream: bool = False


class ErrorBody(BaseModel):
    """Every error the service answers with; ``details`` only for validation errors (422)."""

    error: str = Field(description='the error type, e.g. "ValidationError", "StoreError"')
    message: str
    details: list[dict[str, Any]] | None = Field(
        default=None, description="validation errors: loc, msg and type of each (never the input)"
    )


_ASK_ERRORS = {
    401: "no valid bearer token (when `GEO_RAG_API_TOKEN` is set)",
    413: "the request body is too large",
    422: "an invalid request or question",
    500: "an internal error (the server log has the details)",
    502: "the LLM failed",
    503: "a store is unavailable (nothing ingested)",
}


def _validation_details(exc: RequestValidationError) -> list[dict[str, Any]]:
    """Field errors without the submitted input (which may be megabytes, or a secret)."""
    out = []
    for error in exc.errors():
        out.append(
            {
                "loc": [str(part) for part in error.get("loc", ())],
                "msg": str(error.get("msg", "")),
                "type": str(error.get("type", "")),
            }
        )
    return out


def _sse(event: str, data: str) -> bytes:
    return f"event: {event}\ndata: {data}\n\n".encode()


async def _events(rag: RagService, question: str, mode: Any, top_k: int | None) -> AsyncIterator[bytes]:
    """Server-sent events of one answer: drafts as the model writes, then the checked answer."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[tuple[str, str]] = asyncio.Queue()

    def on_text(piece: str) -> None:  # called in the worker thread
        loop.call_soon_threadsafe(queue.put_nowait, ("draft", json.dumps({"text": piece})))

    def work() -> None:
        try:
            answer = rag.ask(question, mode=mode, top_k=top_k, on_text=on_text)
            event = ("answer", answer_json(answer))
        except GeoRagError as exc:
            event = (
                "error",
                json.dumps({"error": type(exc).__name__, "message": str(exc), "status": error_status(exc)}),
            )
        except Exception:  # the log keeps the trace; the client gets no stack
            log.exception("streamed ask failed")
            event = (
                "error",
                json.dumps({"error": "InternalServerError", "message": "internal error", "status": 500}),
            )
        loop.call_soon_threadsafe(queue.put_nowait, event)

    task = loop.run_in_executor(None, work)
    while True:
        kind, data = await queue.get()
        yield _sse(kind, data)
        if kind != "draft":
            break
    await task


def create_app(settings: Settings | None = None, *, service: RagService | None = None) -> FastAPI:
    """The HTTP app; ``service`` may be injected (tests), else one is built and warmed at start-up."""
    settings = settings or get_settings()
    max_chars = settings.max_question_chars

    AskRequest = create_model(  # noqa: N806 - a class built per app: its limit comes from settings
        "AskRequest",
        __base__=AskRequestBase,
        question=(str, Field(min_length=1, max_length=max_chars, description="the question")),
    )

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        app.state.service = service or RagService(settings)
        health = await run_in_threadpool(app.state.service.warm_up)
        log.info("GeoRAG service started: %s", health.get("status"))
        try:
            yield
        finally:
            if service is None:
                app.state.service.close()

    app = FastAPI(
        title="GeoRAG",
        description="HybridRAG over geochemistry papers (vector + knowledge-graph retrieval).",
        version="0.1.0",
        lifespan=lifespan,
    )
    app.add_middleware(BodySizeLimit, max_bytes=16 * 1024 + 4 * max_chars)

    def authorized(request: Request) -> bool:
        expected = settings.api_token
        if not expected:
            return True
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        return scheme.lower() == "bearer" and hmac.compare_digest(
            token.strip().encode("utf-8"), expected.encode("utf-8")
        )

    def require_token(request: Request) -> None:
        if not authorized(request):
            raise _Unauthorized

    @app.exception_handler(_Unauthorized)
    async def unauthorized(request: Request, exc: _Unauthorized) -> JSONResponse:
        response = _error(401, "Unauthorized", "a valid 'Authorization: Bearer <token>' header is required")
        response.headers["WWW-Authenticate"] = "Bearer"
        return response

    @app.exception_handler(RequestValidationError)
    async def invalid_request(request: Request, exc: RequestValidationError) -> JSONResponse:
        details = _validation_details(exc)
        summary = "; ".join(f"{'.'.join(d['loc'])}: {d['msg']}" for d in details)
        return _error(422, "ValidationError", summary or "invalid request", details=details)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        return _error(exc.status_code, "HTTPError", str(exc.detail))

    @app.exception_handler(GeoRagError)
    async def georag_error(request: Request, exc: GeoRagError) -> JSONResponse:
        return _error(error_status(exc), type(exc).__name__, str(exc))

    @app.exception_handler(Exception)
    async def internal_error(request: Request, exc: Exception) -> JSONResponse:
        log.exception("unhandled error on %s %s", request.method, request.url.path)
        return _error(500, "InternalServerError", "internal error; the server log has the details")

    @app.post(
        "/ask",
        dependencies=[Depends(require_token)],
        response_model=Answer,
        responses={
            200: {
                "description": 'the answer (`application/json`); with `"stream": true` server-sent '
                'events instead: `draft` events `{"text": ...}`, then one `answer` event whose data '
                "is this same answer object, or one `error` event",
                "content": {"text/event-stream": {"schema": {"type": "string"}}},
            },
            **{status: {"model": ErrorBody, "description": why} for status, why in _ASK_ERRORS.items()},
        },
    )
    async def ask(body: AskRequest, request: Request) -> Response:  # type: ignore[valid-type]
        rag: RagService = request.app.state.service
        if body.stream:  # type: ignore[attr-defined]
            return StreamingResponse(
                _events(rag, body.question, body.mode, body.top_k),  # type: ignore[attr-defined]
                media_type="text/event-stream",
                headers={"Cache-Control": "no-cache"},
            )

        def answer_text() -> str:  # serialized in the worker too: the event loop only sends bytes
            return answer_json(rag.ask(body.question, mode=body.mode, top_k=body.top_k))  # type: ignore[attr-defined]

        try:
            text = await run_in_threadpool(answer_text)
        except GeoRagError as exc:
            return _error(error_status(exc), type(exc).__name__, str(exc))
        except Exception:  # answer, don't crash; the log keeps the trace
            log.exception("ask failed")
            return _error(500, "InternalServerError", "internal error; the server log has the details")
        return Response(content=text, media_type="application/json")

    @app.get("/measurements", dependencies=[Depends(require_token)])
    async def measurements_endpoint(
        analyte: str | None = Query(None, max_length=200),
        paper: str | None = Query(None, max_length=500),
        min: float | None = Query(None),  # noqa: A002 - the documented filter name
        max: float | None = Query(None),  # noqa: A002
        limit: int = Query(1000, ge=0, le=100_000),
        format: Literal["json", "csv"] = Query("json"),  # noqa: A002
        sample: str | None = Query(None, min_length=1, max_length=200),
        rock_unit: str | None = Query(None, min_length=1, max_length=200),
    ) -> Response:
        from geo_rag_runtime import measurements

        rows = await run_in_threadpool(
            measurements.find,
            settings,
            analyte=analyte,
            paper=paper,
            minimum=min,
            maximum=max,
            limit=limit,
            sample=sample,
            rock_unit=rock_unit,
        )
        body = measurements.render(rows, format)
        media = "text/csv" if format == "csv" else "application/json"
        return Response(content=body, media_type=media)

    @app.get("/health")
    async def health(request: Request) -> JSONResponse:
        rag: RagService = request.app.state.service
        report = await run_in_threadpool(rag.health)
        status = 503 if report["status"] == "unavailable" else 200
        if not authorized(request):  # with a token set, only its holder sees store details
            report = {"status": report["status"]}
        return JSONResponse(status_code=status, content=report)

    return app
