"""`geo-rag llm stop` signals only the server `geo-rag llm start` launched, never a reused pid.

After a reboot (or once the server died) the pid in ``$GEO_RAG_HOME/llm/server.json`` may belong to
any process. Here real processes stand in for what may hold it then: an unrelated program, and a
llama.cpp-looking command line started at another time; a process started as the state file records
(same command line, same start) is the control that ``stop`` still stops.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import asdict
from pathlib import Path

import pytest

from geo_rag_runtime import local_llm
from geo_rag_runtime.cli import main
from geo_rag_runtime.settings import Settings

SLEEP = "import time; time.sleep(120)"


@pytest.fixture()
def settings(tmp_path: Path) -> Settings:
    return Settings(home=tmp_path / "home", local_llm=True)


@pytest.fixture()
def processes() -> Iterator[list[subprocess.Popen[bytes]]]:
    started: list[subprocess.Popen[bytes]] = []
    yield started
    for process in started:  # only the processes this test started, by their own pid
        if process.poll() is None:
            process.kill()
        process.wait()


def _spawn(processes: list[subprocess.Popen[bytes]], argv: list[str]) -> subprocess.Popen[bytes]:
    process = subprocess.Popen(argv, start_new_session=True)  # its own group, as the server's
    processes.append(process)
    time.sleep(0.3)
    return process


def _record(settings: Settings, pid: int, started: float) -> Path:
    """The state file `start` writes."""
    path = local_llm.model_path(settings)
    state = local_llm.ServerState(pid, "127.0.0.1", 8765, local_llm.MODEL_NAME, str(path), started, "log")
    target = settings.path("llm") / "server.json"
    target.write_text(json.dumps(asdict(state)))
    return target


def test_a_stale_pid_of_another_program_is_not_signalled(
    settings: Settings,
    processes: list[subprocess.Popen[bytes]],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    other = _spawn(processes, [sys.executable, "-c", SLEEP])  # the program that got the pid
    state_file = _record(settings, other.pid, time.time())
    monkeypatch.setenv("GEO_RAG_HOME", str(settings.home))
    assert main(["llm", "stop"]) == 0
    time.sleep(0.5)
    assert other.poll() is None  # alive: nothing was signalled
    assert not state_file.exists()  # the stale state is gone
    captured = capsys.readouterr()
    assert "no local LLM server was running" in captured.out
    assert f"pid {other.pid}" in captured.err and "left alone" in captured.err
    assert local_llm.endpoint(settings) is None


def test_a_llama_server_started_at_another_time_is_not_signalled(
    settings: Settings, processes: list[subprocess.Popen[bytes]]
) -> None:
    model = str(local_llm.model_path(settings))
    lookalike = _spawn(processes, [sys.executable, "-c", SLEEP, "llama_cpp.server", "--model", model])
    said: list[str] = []
    _record(settings, lookalike.pid, time.time() - 3600)  # the recorded server started an hour ago
    assert local_llm.endpoint(settings) is None
    assert local_llm.stop(settings, say=said.append) is False
    time.sleep(0.5)
    assert lookalike.poll() is None
    assert "not the one recorded" in said[0]


def test_the_recorded_server_is_still_stopped(
    settings: Settings, processes: list[subprocess.Popen[bytes]]
) -> None:
    model = str(local_llm.model_path(settings))
    server = _spawn(processes, [sys.executable, "-c", SLEEP, "llama_cpp.server", "--model", model])
    import psutil

    _record(settings, server.pid, psutil.Process(server.pid).create_time())
    assert local_llm.endpoint(settings) is not None
    assert local_llm.stop(settings, timeout_s=10) is True
    assert server.wait(10) is not None  # stopped by the signal to its group
