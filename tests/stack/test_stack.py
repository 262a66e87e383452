"""The production shape, running: ``scripts/stack`` on this machine, with nothing called directly.

PostgreSQL holds Dagster's runs; dagster-daemon evaluates the sensor and the schedule and launches
their runs through the queued run coordinator; the code server's run workers write into the server
stores (SecantusDB, ArcadeDB's Bolt server, Chroma's server); ``geo-rag serve`` answers over HTTP.
The test only does what an operator does: drop and delete PDFs, switch the schedule on with the
``dagster`` command line, kill and restart servers, re-execute a failed run (the UI's "Re-execute
from failure", through the same GraphQL API), read the UI's API and ask questions over HTTP.

Run by ``scripts/check_stack`` (CI runs it after the suite; ``pytest -m stack``). The default
``pytest`` run leaves it out (``-m "not stack"`` in pyproject.toml): the stack takes ~8 minutes on
2 cores, and the suite's 10-minute budget is for the rest. The local LLM server is left out
(``--no-llm``): no default stage asks it, and ``tests/runtime/test_local_llm.py`` starts it.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

pytestmark = [pytest.mark.stack, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures" / "papers"
FIRST = FIXTURES / "Vermeesch2023_Geochronology_DiscordanceCorrigendum_CCBY.pdf"
SECOND = FIXTURES / "Vermeesch2024_Geochronology_Errorchrons_CCBY.pdf"
THIRD = REPO / "data" / "papers" / "VermeeschPease2021_GPL_TholeiiticCalcAlkaline_CCBY.pdf"
QUESTIONS = {
    FIRST.name: "How are the da and dc discordance filters rescaled in the corrected algorithm?",
    SECOND.name: "What is an errorchron?",
    THIRD.name: "What distinguishes tholeiitic from calc-alkaline magma series?",
}
SENSOR_INTERVAL_S = 10
RUNS = """{ runsOrError { ... on Runs { results { runId status jobName
  tags { key value } assetSelection { path } } } } }"""


def stack_cmd(
    folder: Path, *args: str, check: bool = True, timeout: float = 600
) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "stack.py"), *args, "--dir", str(folder)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=stack_process_env(),
    )
    if check and done.returncode != 0:
        raise AssertionError(f"scripts/stack {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}")
    return done


def stack_process_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GEO_RAG_", "DAGSTER_", "NEO4J_"))}
    env.pop("MONGODB_URI", None)
    env.pop("CHROMA_HOST", None)
    # a sensor tick every 10 s instead of 60, and the rescan schedule due every minute once switched on
    env |= {"GEO_RAG_SENSOR_INTERVAL_S": str(SENSOR_INTERVAL_S), "GEO_RAG_RESCAN_CRON": "* * * * *"}
    return env


@dataclass
class Stack:
    folder: Path
    env: dict[str, str]  # what `scripts/stack env` exports

    @property
    def papers(self) -> Path:
        return Path(self.env["GEO_RAG_PAPERS"])

    def graphql(self, query: str, variables: dict[str, Any] | None = None) -> dict[str, Any]:
        body = json.dumps({"query": query, "variables": variables or {}}).encode()
        request = urllib.request.Request(
            f"{self.env['GEO_RAG_STACK_UI']}/graphql", data=body, headers={"Content-Type": "application/json"}
        )
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                answer: dict[str, Any] = json.loads(response.read())
        except urllib.error.HTTPError as exc:  # a resolver's error comes back as 500 with its PythonError
            raise AssertionError(
                f"UI GraphQL answered {exc.code}: {exc.read().decode(errors='replace')}"
            ) from exc
        assert not answer.get("errors"), answer["errors"]
        return answer["data"]

    def runs(self) -> list[dict[str, Any]]:
        runs = self.graphql(RUNS)["runsOrError"]["results"]
        for run in runs:
            run["tags"] = {t["key"]: t["value"] for t in run["tags"]}
        return runs

    def reexecute_from_failure(self, run_id: str) -> str:
        """The UI's "Re-execute from failure" (its GraphQL mutation); the new run's id."""
        rerun = self.graphql(
            """mutation($id: String!) { launchRunReexecution(reexecutionParams: {parentRunId: $id, strategy: FROM_FAILURE}) {
                 __typename ... on LaunchRunSuccess { run { runId } } ... on PythonError { message } } }""",
            {"id": run_id},
        )["launchRunReexecution"]
        assert rerun["__typename"] == "LaunchRunSuccess", rerun
        return str(rerun["run"]["runId"])

    def api(self, path: str, body: dict[str, Any] | None = None) -> tuple[int, dict[str, Any]]:
        headers = {
            "Authorization": f"Bearer {self.env['GEO_RAG_API_TOKEN']}",
            "Content-Type": "application/json",
        }
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(f"{self.env['GEO_RAG_STACK_API']}{path}", data=data, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=120) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as exc:
            return exc.code, json.loads(exc.read() or b"{}")

    def cited_files(self, question: str, may_abstain: bool = False) -> set[str]:
        code, answer = self.api("/ask", {"question": question})
        assert code == 200, answer
        assert may_abstain or answer["citations"], answer
        return {c["source_file"] for c in answer["citations"]}

    def counts(self) -> dict[str, Any]:
        """Every store's counts as `geo-rag status` reports them, through the stack's settings."""
        done = subprocess.run(
            [str(Path(sys.executable).with_name("geo-rag")), "status", "--json"],
            capture_output=True,
            text=True,
            env={**stack_process_env(), **self.env},
            timeout=300,
        )
        assert done.returncode == 0, done.stderr
        return store_counts(json.loads(done.stdout))

    def pid(self, service: str) -> int:
        """The service's process (group) id from the pid file `scripts/stack up` wrote."""
        return int(json.loads((self.folder / "run" / f"{service}.pid").read_text())["pid"])

    def wait_idle(self, quiet_s: float = 40.0) -> None:
        """No run queued or going for ``quiet_s`` (longer than corpus_refresh_sensor's 30 s interval),
        so a fault hits the run it is meant for, not one waiting behind a corpus refresh for the
        home's writer lock."""
        active = {"QUEUED", "NOT_STARTED", "STARTING", "STARTED", "CANCELING"}
        quiet_since = time.monotonic()

        def quiet() -> bool:
            nonlocal quiet_since
            if any(r["status"] in active for r in self.runs()):
                quiet_since = time.monotonic()
            return time.monotonic() - quiet_since >= quiet_s

        wait_for("the stack to have no run going", quiet, timeout=900, every=2)


def store_counts(status: dict[str, Any]) -> dict[str, Any]:
    stores = status["stores"]
    graph = {k: v for k, v in stores["graph"].items() if k != "backend"}
    return {
        "documents": {k: v for k, v in stores["documents"].items() if k != "backend"},
        "vectors": stores["vectors"]["vectors"],
        "keyword_index": stores["keyword_index"]["chunks"],
        "graph": graph,
    }


def clean_load_counts(pdfs: list[Path]) -> dict[str, Any]:
    """The same PDFs through `geo-rag ingest` into a fresh home on the embedded stores."""
    home = Path(tempfile.mkdtemp(prefix="georag-clean-"))
    try:
        env = {**stack_process_env(), "GEO_RAG_HOME": str(home), "GEO_RAG_LOCAL_LLM": "false"}
        geo_rag = str(Path(sys.executable).with_name("geo-rag"))
        done = subprocess.run(
            [geo_rag, "ingest", "--no-progress", *map(str, pdfs)],
            capture_output=True,
            text=True,
            env=env,
            timeout=900,
        )
        assert done.returncode == 0, done.stderr[-3000:]
        done = subprocess.run(
            [geo_rag, "status", "--json"], capture_output=True, text=True, env=env, timeout=300
        )
        assert done.returncode == 0, done.stderr
        return store_counts(json.loads(done.stdout))
    finally:
        shutil.rmtree(home, ignore_errors=True)


_CLEAN: dict[str, Any] = {}


def assert_equals_a_clean_load(stack: Stack) -> None:
    """Once no run is going: `geo-rag purge --all` (the papers retired by the tests — the deleted PDF
    and each replaced version — leave every store), then every store's counts must be those of a
    clean embedded load of the two PDFs in the folder: nothing lost, nothing twice."""
    stack.wait_idle()
    geo_rag = str(Path(sys.executable).with_name("geo-rag"))
    done = subprocess.run(
        [geo_rag, "purge", "--all"],
        capture_output=True,
        text=True,
        env={**stack_process_env(), **stack.env},
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    if not _CLEAN:
        _CLEAN.update(clean_load_counts([SECOND, THIRD]))
    assert stack.counts() == _CLEAN


def wait_for(what: str, check: Callable[[], Any], timeout: float, every: float = 3.0) -> Any:
    """Poll ``check`` until it returns something truthy; fail naming ``what`` and the last value."""
    deadline = time.monotonic() + timeout
    last: Any = None
    while time.monotonic() < deadline:
        last = check()
        if last:
            return last
        time.sleep(every)
    raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what} (last: {last!r})")


@pytest.fixture(scope="module")
def stack() -> Iterator[Stack]:
    if not (list(Path("/usr/lib/postgresql").glob("*/bin/postgres")) or shutil.which("postgres")):
        pytest.skip(
            "PostgreSQL is not installed (apt-get install postgresql; scripts/install tries it as root)"
        )
    # PostgreSQL runs as the postgres user when root starts it: a folder it can reach, not pytest's 0700 one
    folder = Path(tempfile.mkdtemp(prefix="georag-stack-", dir="/tmp"))
    folder.chmod(0o755)
    began = time.monotonic()
    try:
        stack_cmd(folder, "up", "--no-llm")
        print(f"\nstack up in {time.monotonic() - began:.1f} s", file=sys.stderr)
        env = {}
        for line in stack_cmd(folder, "env").stdout.splitlines():
            key, _, value = line.removeprefix("export ").partition("=")
            env[key] = json.loads(value)
        yield Stack(folder, env)
    finally:
        if os.environ.get("GEO_RAG_STACK_TEST_KEEP"):  # for a look afterwards: scripts/stack status --dir …
            print(f"\nkept running: {folder}", file=sys.stderr)
        else:
            down = stack_cmd(folder, "down", check=False)
            leftovers = list((folder / "run").glob("*.pid")) if (folder / "run").exists() else []
            shutil.rmtree(folder, ignore_errors=True)
            assert down.returncode == 0, down.stderr
            assert not leftovers, f"pid files left after down: {leftovers}"


def test_up_starts_every_service_healthy_and_again_starts_nothing(stack: Stack) -> None:
    status = json.loads(stack_cmd(stack.folder, "status", "--json").stdout)
    services = {row["service"]: row for row in status["services"]}
    assert set(services) == {
        "postgres",
        "documents",
        "graph",
        "vectors",
        "code",
        "webserver",
        "daemon",
        "api",
    }
    assert all(row["healthy"] for row in services.values()), services
    again = stack_cmd(stack.folder, "up", "--no-llm").stdout
    assert again.count(" running ") == len(services) and " started " not in again, again
    # Dagster runs on the production instance: Postgres storage, the queued coordinator, the daemons
    instance = stack.graphql("{ instance { runLauncher { name } runQueuingSupported info } }")["instance"]
    assert instance["runQueuingSupported"] is True
    assert "PostgresRunStorage" in instance["info"] and "QueuedRunCoordinator" in instance["info"], instance
    code, health = stack.api("/health")
    assert code in (200, 503) and health["status"] != "ok", health  # serving, with nothing to answer from yet


def test_dropped_pdfs_become_answerable_through_the_daemon(stack: Stack) -> None:
    for pdf in (FIRST, SECOND):
        shutil.copy(pdf, stack.papers / pdf.name)
    began = time.monotonic()

    def ingested() -> list[dict[str, Any]] | None:
        runs = [r for r in stack.runs() if r["jobName"] == "ingest_paper_job"]
        failed = [r for r in runs if r["status"] == "FAILURE"]
        assert not failed, failed
        done = [r for r in runs if r["status"] == "SUCCESS"]
        return done if len(done) == 2 else None

    runs = wait_for("the sensor's two ingest runs", ingested, timeout=420)
    print(f"two papers ingested by daemon-launched runs in {time.monotonic() - began:.1f} s", file=sys.stderr)
    assert {r["tags"]["dagster/partition"] for r in runs} == {FIRST.name, SECOND.name}
    assert all(r["tags"]["dagster/sensor_name"] == "new_papers_sensor" for r in runs)
    for run in runs:  # launched through the queue, not directly
        events = stack.graphql(
            """query($id: ID!) { logsForRun(runId: $id) { ... on EventConnection { events { __typename } } } }""",
            {"id": run["runId"]},
        )["logsForRun"]["events"]
        assert "RunEnqueuedEvent" in {e["__typename"] for e in events}

    def refreshed() -> dict[str, Any] | None:  # corpus_refresh_sensor retrains classifier and ranker
        code, health = stack.api("/health")
        return health if code == 200 and health["classifier"]["available"] else None

    wait_for("the corpus assets retrained by corpus_refresh_sensor", refreshed, timeout=600, every=5)
    stack.wait_idle()  # the refresh is three assets; the last may still be queued when the classifier is back
    print(f"classifier and ranker retrained, {time.monotonic() - began:.1f} s", file=sys.stderr)
    code, health = stack.api("/health")
    assert code == 200 and health["status"] == "ok" and health["graph"]["papers"] == 2, health
    corpus_runs = [r for r in stack.runs() if r["tags"].get("georag/reason") == "corpus"]
    assert corpus_runs and all(r["status"] == "SUCCESS" for r in corpus_runs), corpus_runs
    for pdf in (FIRST, SECOND):
        assert pdf.name in stack.cited_files(QUESTIONS[pdf.name]), pdf.name
    # the daemon-driven load into the server stores holds what `geo-rag ingest` puts in embedded ones
    assert stack.counts() == clean_load_counts([FIRST, SECOND])


def test_a_deleted_pdf_is_retired_by_the_daemon(stack: Stack) -> None:
    (stack.papers / FIRST.name).unlink()

    def retired() -> list[Any] | None:
        code, health = stack.api("/health")
        return health.get("retired") or None

    listed = wait_for("the sensor to retire the deleted paper", retired, timeout=120)
    assert len(listed) == 1, listed
    assert FIRST.name not in stack.cited_files(QUESTIONS[FIRST.name], may_abstain=True)
    assert SECOND.name in stack.cited_files(QUESTIONS[SECOND.name])


def test_the_schedule_runs_its_job_when_due(stack: Stack) -> None:
    """With the sensor switched off, a PDF waits for the rescan schedule (due every minute here)."""
    dagster = str(Path(sys.executable).with_name("dagster"))
    workspace = str(stack.folder / "dagster" / "workspace.yaml")
    env = {**stack_process_env(), **stack.env}

    def cli(*args: str) -> None:
        done = subprocess.run(
            [dagster, *args, "-w", workspace], capture_output=True, text=True, env=env, timeout=120
        )
        assert done.returncode == 0, done.stderr

    cli("sensor", "stop", "new_papers_sensor")
    shutil.copy(THIRD, stack.papers / THIRD.name)
    cli("schedule", "start", "nightly_rescan")
    try:

        def scheduled() -> dict[str, Any] | None:
            runs = [r for r in stack.runs() if r["tags"].get("dagster/schedule_name") == "nightly_rescan"]
            assert all(r["status"] != "FAILURE" for r in runs), runs
            return next((r for r in runs if r["status"] == "SUCCESS"), None)

        run = wait_for("the schedule's ingest run", scheduled, timeout=400)
    finally:
        cli("schedule", "stop", "nightly_rescan")
        cli("sensor", "start", "new_papers_sensor")
    assert run["tags"]["dagster/partition"] == THIRD.name and run["jobName"] == "ingest_paper_job"
    assert THIRD.name in stack.cited_files(QUESTIONS[THIRD.name])


def test_killing_the_graph_server_mid_ingest_fails_the_run_and_its_rerun_loads_clean(stack: Stack) -> None:
    """The graph server dies while a run writes: the run fails with an error that names the graph
    store, the server comes back with `scripts/stack up`, and the re-execution from failure (the UI's
    button) leaves every store with the counts of a clean load."""
    stack.wait_idle()
    # a changed PDF (one byte more after %%EOF) is re-ingested by the sensor under the same partition
    (stack.papers / THIRD.name).write_bytes(THIRD.read_bytes() + b"\n")

    def writing_graph() -> dict[str, Any] | None:
        for run in stack.runs():
            if run["tags"].get("georag/reason") == "changed" and run["status"] == "STARTED":
                return run
        return None

    run = wait_for("the changed paper's run", writing_graph, timeout=300, every=0.5)
    os.killpg(stack.pid("graph"), signal.SIGKILL)

    status = wait_for(
        "the run to end without its graph server", lambda: ended(stack, run["runId"]), timeout=300
    )
    assert status == "FAILURE", status
    # however many sensor ticks passed, the changed bytes were requested once (the run key)
    changed = [r for r in stack.runs() if r["tags"].get("georag/reason") == "changed"]
    assert [r["runId"] for r in changed] == [run["runId"]], changed
    events = stack.graphql(
        """query($id: ID!) { logsForRun(runId: $id) { ... on EventConnection { events {
             __typename ... on ExecutionStepFailureEvent { stepKey error { message causes { message } } } } } } }""",
        {"id": run["runId"]},
    )["logsForRun"]["events"]
    failures = [e for e in events if e["__typename"] == "ExecutionStepFailureEvent"]
    assert [e["stepKey"] for e in failures] == ["knowledge_graph"], failures
    assert "Neo4j" in json.dumps(failures), failures  # the UI's error names the store that went away
    stack_cmd(stack.folder, "up", "--no-llm")  # starts the graph server again, leaves the rest alone
    rerun_id = stack.reexecute_from_failure(run["runId"])
    wait_for("the re-execution", lambda: run_status(stack, rerun_id) == "SUCCESS", timeout=300)
    assert_equals_a_clean_load(stack)


def rewrite_changed(stack: Stack, pdf: Path, extra: bytes) -> None:
    """New bytes for a PDF already ingested (more after %%EOF): the sensor queues one "changed" run."""
    (stack.papers / pdf.name).write_bytes(pdf.read_bytes() + extra)


def run_status(stack: Stack, run_id: str) -> str:
    return next(r["status"] for r in stack.runs() if r["runId"] == run_id)


def ended(stack: Stack, run_id: str) -> str | None:
    """The run's status once it has ended (SUCCESS or FAILURE), else None."""
    status = run_status(stack, run_id)
    return status if status in ("SUCCESS", "FAILURE") else None


def started_changed_run(stack: Stack, seen: set[str]) -> dict[str, Any]:
    def started() -> dict[str, Any] | None:
        for run in stack.runs():
            if run["tags"].get("georag/reason") == "changed" and run["runId"] not in seen:
                return run if run["status"] == "STARTED" else None
        return None

    return wait_for("a new changed-paper run to start", started, timeout=300, every=0.5)


def test_killing_the_daemon_mid_run_loses_nothing(stack: Stack) -> None:
    """The run worker belongs to the code server, not to the daemon: SIGKILL on the daemon leaves the
    run going, `scripts/stack up` brings the daemon back, and its sensor does not request the same
    bytes again."""
    stack.wait_idle()
    seen = {r["runId"] for r in stack.runs()}
    rewrite_changed(stack, THIRD, b"\n\n")
    run = started_changed_run(stack, seen)
    os.killpg(stack.pid("daemon"), signal.SIGKILL)
    assert not stack_healthy(stack, "daemon")
    stack_cmd(stack.folder, "up", "--no-llm")
    status = wait_for("the run to finish", lambda: ended(stack, run["runId"]), timeout=400)
    assert status == "SUCCESS", status
    time.sleep(2 * SENSOR_INTERVAL_S)  # two more ticks of the restarted daemon's sensor
    changed = [
        r for r in stack.runs() if r["tags"].get("georag/reason") == "changed" and r["runId"] not in seen
    ]
    assert [r["runId"] for r in changed] == [run["runId"]], changed
    assert_equals_a_clean_load(stack)


def test_restarting_postgres_mid_run_ends_in_a_complete_load(stack: Stack) -> None:
    """PostgreSQL (Dagster's runs and events) goes away while a run writes: the run either rides it
    out (dagster-postgres retries) or fails with the database error in its log, and then the UI's
    "Re-execute from failure" completes; either way the stores end as a clean load. Down for 15 s,
    longer than dagster-postgres' retries, the run mostly fails. `up` restarts the UI with PostgreSQL:
    its pooled connections died (CI once got the re-execution refused with "server closed the
    connection unexpectedly")."""
    stack.wait_idle()
    seen = {r["runId"] for r in stack.runs()}
    rewrite_changed(stack, THIRD, b"\n\n\n")
    run = started_changed_run(stack, seen)
    os.killpg(stack.pid("postgres"), signal.SIGINT)  # fast shutdown: connections are cut
    wait_for("PostgreSQL to stop", lambda: not stack_healthy(stack, "postgres"), timeout=60, every=0.5)
    time.sleep(15)
    up = stack_cmd(stack.folder, "up", "--no-llm").stdout  # PostgreSQL again, and the UI
    assert "webserver  restarting" in up, up
    status = json.loads(stack_cmd(stack.folder, "status", "--json").stdout)
    assert all(r["healthy"] for r in status["services"]), status
    final = wait_for(
        "the run to end",
        lambda: ended(stack, run["runId"]),
        timeout=400,
    )
    print(f"run across a PostgreSQL restart: {final}", file=sys.stderr)
    if final == "FAILURE":
        rerun_id = stack.reexecute_from_failure(run["runId"])
        wait_for("the re-execution", lambda: run_status(stack, rerun_id) == "SUCCESS", timeout=400)
    assert_equals_a_clean_load(stack)
    assert THIRD.name in stack.cited_files(QUESTIONS[THIRD.name])


def stack_healthy(stack: Stack, service: str) -> bool:
    status = json.loads(stack_cmd(stack.folder, "status", "--json", check=False).stdout)
    return bool({r["service"]: r["healthy"] for r in status["services"]}[service])


def test_killing_the_code_server_mid_run_is_recovered_by_up(stack: Stack) -> None:
    """The code server and its run workers killed mid-run (SIGKILL on its process group: a crash, the
    OOM killer, `down` while a run writes). Dagster's run monitoring cannot ask DefaultRunLauncher
    whether a worker lives, so the run would stay STARTED with its pool slots and every later run
    would wait for them. `scripts/stack up` restarts the code server, marks the run failed by the
    worker pid it logged and re-executes it from failure; the stores end as a clean load."""
    stack.wait_idle()
    seen = {r["runId"] for r in stack.runs()}
    rewrite_changed(stack, THIRD, b"\n\n\n\n")
    run = started_changed_run(stack, seen)
    time.sleep(1)  # STARTED comes after the worker logged its pid; the run itself takes ~30 s or more
    os.killpg(stack.pid("code"), signal.SIGKILL)
    wait_for("the code server to stop", lambda: not stack_healthy(stack, "code"), timeout=60, every=0.5)
    time.sleep(2)
    assert run_status(stack, run["runId"]) == "STARTED"  # nothing in Dagster notices by itself
    up = stack_cmd(stack.folder, "up", "--no-llm").stdout
    assert f"recovered  run {run['runId'][:8]}" in up and "re-executed from failure" in up, up
    assert run_status(stack, run["runId"]) == "FAILURE"
    rerun = next(r for r in stack.runs() if r["tags"].get("dagster/parent_run_id") == run["runId"])
    wait_for("the re-execution", lambda: ended(stack, rerun["runId"]), timeout=400)
    assert run_status(stack, rerun["runId"]) == "SUCCESS"
    assert_equals_a_clean_load(stack)
    assert THIRD.name in stack.cited_files(QUESTIONS[THIRD.name])
