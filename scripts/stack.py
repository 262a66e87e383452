#!/usr/bin/env python
"""The production shape on one machine, without Docker: ``scripts/stack up|down|status|env``.

What ``up`` starts, in this order, each in a process group of its own with its log in ``logs/``:

* ``postgres``  PostgreSQL from Debian's packages: Dagster's runs, event logs, schedules and sensor
  ticks (``deploy/dagster.yaml``: dagster-postgres, the queued run coordinator, the pools, run
  monitoring). Run as the ``postgres`` user when started by root (PostgreSQL refuses root).
* ``documents`` SecantusDB, a MongoDB wire-protocol server (``MONGODB_URI``).
* ``graph``     ArcadeDB with its Neo4j Bolt plugin (``NEO4J_URI``).
* ``vectors``   Chroma's server (``CHROMA_HOST``/``CHROMA_PORT``).
* ``llm``       the local model's llama.cpp server (``OPENAI_BASE_URL``), unless ``--no-llm``.
* ``code``      the Dagster code location (``geo_assets.definitions``) as a gRPC server; the run
  workers of DefaultRunLauncher are its children.
* ``webserver`` the Dagster UI (loopback only: Dagster OSS has no login).
* ``daemon``    dagster-daemon: the sensor, the schedule, the run queue and run monitoring.
* ``api``       ``geo-rag serve`` with a bearer token.

Everything lives under one folder (``--dir``, default ``data/stack``; ``GEO_RAG_STACK_DIR``):
``stack.json`` (ports and generated secrets, mode 600), the stores' data, ``home/`` (GEO_RAG_HOME),
``papers/`` (the watched folder unless ``--papers``), ``dagster/`` (DAGSTER_HOME with a link to
``deploy/dagster.yaml``, the workspace, compute logs), ``logs/`` and ``run/`` (pid files).
``up`` is idempotent (a healthy service is left alone), ``down`` stops in reverse order (SIGTERM,
then SIGKILL after a grace period; PostgreSQL gets a fast shutdown), ``status`` health-checks each
service and exits non-zero when one is down, ``env`` prints the settings a client needs
(``eval "$(scripts/stack env)"`` then ``geo-rag ask``, ``geo-rag status`` ... against the stack).

Deployments with containers use deploy/compose.yaml or deploy/helm instead; this script is the same
shape on one host, so the production path (daemon-launched runs on Postgres into server stores) can
be run and tested here. Nothing listens beyond 127.0.0.1.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent  # the venv the script runs in (scripts/stack uses .venv)
SERVICES = ("postgres", "documents", "graph", "vectors", "llm", "code", "webserver", "daemon", "api")
PG_USER = "georag"
PG_DB = "dagster"
GRAPH_USER = "root"  # ArcadeDB's Bolt plugin authenticates its server users; root is the one made here
LLM_ALIAS = "qwen2.5-coder-1.5b-instruct-q4_k_m"  # geo_rag_runtime.local_llm.MODEL_NAME

# ArcadeDB's server in a child interpreter: argv = root folder, bolt port, http port; password on stdin.
ARCADEDB_LAUNCHER = """
import signal, sys, threading
import arcadedb_embedded as adb

root, bolt, http = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
password = sys.stdin.readline().strip()
server = adb.create_server(root_path=root, root_password=password, config={
    "server_plugins": "Bolt:com.arcadedb.bolt.BoltProtocolPlugin", "bolt_port": bolt, "http_port": http})
server.start()
try:
    server.get_database("neo4j")
except Exception:
    server.create_database("neo4j")
stop = threading.Event()
for sig in (signal.SIGTERM, signal.SIGINT):
    signal.signal(sig, lambda *_: stop.set())
print("arcadedb ready: bolt", bolt, "http", http, flush=True)
stop.wait()
server.stop()
print("arcadedb stopped", flush=True)
"""


class StackError(RuntimeError):
    """A service did not start, or the machine lacks something the stack needs (the message says what)."""


# --------------------------------------------------------------------------------- configuration


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def port_open(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.settimeout(0.5)
        return sock.connect_ex(("127.0.0.1", port)) == 0


@dataclass
class Stack:
    """The folder, ports and secrets of one stack (``stack.json``, created on the first ``up``)."""

    root: Path
    papers: Path
    ports: dict[str, int]
    secrets: dict[str, str]
    llm: bool

    @classmethod
    def load(cls, root: Path, papers: Path | None = None, llm: bool | None = None) -> Stack:
        config = root / "stack.json"
        if config.is_file():
            data = json.loads(config.read_text())
            stack = cls(root, Path(data["papers"]), data["ports"], data["secrets"], data["llm"])
            changed = False
            if papers is not None and papers.resolve() != stack.papers:
                stack.papers, changed = papers.resolve(), True
            if llm is not None and llm != stack.llm:
                stack.llm, changed = llm, True
            if changed:
                stack.save()
            return stack
        names = ["postgres", "documents", "graph", "graph_http", "vectors", "llm", "code", "webserver", "api"]
        ports: dict[str, int] = {}
        for name in names:
            while (port := free_port()) in ports.values():
                pass
            ports[name] = port
        stack = cls(
            root=root,
            papers=(papers or root / "papers").resolve(),
            ports=ports,
            secrets={k: secrets.token_urlsafe(24) for k in ("postgres", "graph", "api")},
            llm=True if llm is None else llm,
        )
        root.mkdir(parents=True, exist_ok=True)
        stack.save()
        return stack

    def save(self) -> None:
        config = self.root / "stack.json"
        data = {"papers": str(self.papers), "ports": self.ports, "secrets": self.secrets, "llm": self.llm}
        config.touch(mode=0o600, exist_ok=True)
        config.chmod(0o600)  # the generated passwords and the API token
        config.write_text(json.dumps(data, indent=2) + "\n")

    def path(self, *parts: str) -> Path:
        return self.root.joinpath(*parts)

    def url(self, name: str) -> str:
        return f"http://127.0.0.1:{self.ports[name]}"

    def client_env(self) -> dict[str, str]:
        """The settings every GeoRAG and Dagster process of the stack reads (geo_rag_runtime.settings)."""
        env = {
            "GEO_RAG_HOME": str(self.path("home")),
            "GEO_RAG_PAPERS": str(self.papers),
            "MONGODB_URI": f"mongodb://127.0.0.1:{self.ports['documents']}/",
            "CHROMA_HOST": "127.0.0.1",
            "CHROMA_PORT": str(self.ports["vectors"]),
            "NEO4J_URI": f"bolt://127.0.0.1:{self.ports['graph']}",
            "NEO4J_USER": GRAPH_USER,
            "NEO4J_PASSWORD": self.secrets["graph"],
            "NEO4J_DATABASE": "neo4j",
            "GEO_RAG_LOCAL_LLM": "false",  # the stack's llm service is the endpoint, as in compose.yaml
            "DAGSTER_HOME": str(self.path("dagster")),
            "DAGSTER_PG_USERNAME": PG_USER,
            "DAGSTER_PG_PASSWORD": self.secrets["postgres"],
            "DAGSTER_PG_HOST": "127.0.0.1",
            "DAGSTER_PG_PORT": str(self.ports["postgres"]),
            "DAGSTER_PG_DB": PG_DB,
            "DAGSTER_STORAGE_DIR": str(self.path("dagster", "storage")),
            "DAGSTER_COMPUTE_LOGS_DIR": str(self.path("dagster", "storage", "compute_logs")),
        }
        if self.llm:
            env |= {
                "OPENAI_BASE_URL": f"{self.url('llm')}/v1",
                "GEO_RAG_LLM_MODEL": LLM_ALIAS,
                "GEO_RAG_LLM_JSON_STYLE": "llama_cpp",
            }
        return env


# --------------------------------------------------------------------------------- processes


@dataclass
class Service:
    """One server: how it starts, how it is known to be healthy, how it stops."""

    name: str
    argv: list[str]
    health: Callable[[], str | None]  # None when healthy, else what is wrong
    address: str
    env: dict[str, str] = field(default_factory=dict)
    stdin: str | None = None
    user: str | None = None
    stop_signal: int = signal.SIGTERM
    start_timeout_s: float = 90.0
    stop_grace_s: float = 20.0
    prepare: Callable[[], None] | None = None
    after_start: Callable[[], None] | None = None
    enabled: bool = True  # False: `up` and `status` leave it out, `down` still stops it


def _start_ticks(pid: int) -> str | None:
    """The process's start time in clock ticks (/proc), so a reused pid is not mistaken for ours."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat.rsplit(")", 1)[1].split()[19]


def _pid_file(stack: Stack, name: str) -> Path:
    return stack.path("run", f"{name}.pid")


def running_pid(stack: Stack, name: str) -> int | None:
    """The service's pid when the process recorded at its start is still alive."""
    record = _pid_file(stack, name)
    if not record.is_file():
        return None
    data = json.loads(record.read_text())
    pid = int(data["pid"])
    ticks = _start_ticks(pid)
    if ticks is None or ticks != data["ticks"]:
        return None
    state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    return None if state == "Z" else pid


def log_tail(stack: Stack, name: str, lines: int = 25) -> str:
    log = stack.path("logs", f"{name}.log")
    if not log.is_file():
        return ""
    return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])


def start(stack: Stack, service: Service, say: Callable[[str], None]) -> bool:
    """Start the service unless it already runs healthy; wait until its health check passes. Whether
    it was started."""
    pid = running_pid(stack, service.name)
    if pid is not None:
        problem = service.health()
        if problem is None:
            say(f"{service.name:<10} running   pid {pid:<7} {service.address}")
            return False
        raise StackError(
            f"{service.name} runs (pid {pid}) but is not healthy: {problem}. "
            f"Its log: {stack.path('logs', service.name + '.log')}; `scripts/stack down` stops it"
        )
    if service.prepare is not None:
        service.prepare()
    stack.path("logs").mkdir(parents=True, exist_ok=True)
    stack.path("run").mkdir(parents=True, exist_ok=True)
    log_path = stack.path("logs", f"{service.name}.log")
    began = time.monotonic()
    with log_path.open("ab") as log:
        log.write(f"\n=== {time.strftime('%Y-%m-%dT%H:%M:%S')} start: {' '.join(service.argv)}\n".encode())
        log.flush()
        proc = subprocess.Popen(
            service.argv,
            cwd=stack.path("run"),  # servers that write beside themselves (ArcadeDB's log/) write here
            env={**os.environ, **service.env},
            stdin=subprocess.PIPE if service.stdin is not None else subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group: `down` stops it with its children
            user=service.user,
            group=service.user,
            extra_groups=[] if service.user else None,
        )
    if service.stdin is not None and proc.stdin is not None:
        proc.stdin.write(service.stdin.encode() + b"\n")
        proc.stdin.close()
    _pid_file(stack, service.name).write_text(
        json.dumps({"pid": proc.pid, "ticks": _start_ticks(proc.pid), "argv": service.argv[:3]})
    )
    problem: str | None = "not checked yet"
    while time.monotonic() - began < service.start_timeout_s:
        if proc.poll() is not None:
            raise StackError(
                f"{service.name} exited with {proc.returncode} while starting; the end of "
                f"{log_path}:\n{log_tail(stack, service.name)}"
            )
        problem = service.health()
        if problem is None:
            break
        time.sleep(0.5)
    else:
        raise StackError(
            f"{service.name} did not become healthy in {service.start_timeout_s:.0f} s ({problem}); "
            f"the end of {log_path}:\n{log_tail(stack, service.name)}"
        )
    if service.after_start is not None:
        service.after_start()
    say(
        f"{service.name:<10} started   pid {proc.pid:<7} {service.address} ({time.monotonic() - began:.1f} s)"
    )
    return True


def stop(stack: Stack, service: Service, say: Callable[[str], None]) -> None:
    """Signal the service's process group, wait out the grace period, then kill what is left."""
    pid = running_pid(stack, service.name)
    record = _pid_file(stack, service.name)
    if pid is None:
        record.unlink(missing_ok=True)
        return
    began = time.monotonic()
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pid, service.stop_signal)
    while running_pid(stack, service.name) is not None and time.monotonic() - began < service.stop_grace_s:
        time.sleep(0.2)
    how = "stopped"
    if running_pid(stack, service.name) is not None:
        how = f"killed after {service.stop_grace_s:.0f} s"
    with contextlib.suppress(ProcessLookupError):  # whatever is left of the group (run workers, JVM)
        os.killpg(pid, signal.SIGKILL)
    record.unlink(missing_ok=True)
    say(f"{service.name:<10} {how} ({time.monotonic() - began:.1f} s)")


# --------------------------------------------------------------------------------- health checks


def http_ok(url: str, accept: tuple[int, ...] = (200,), timeout: float = 3.0) -> str | None:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            code = response.status
    except urllib.error.HTTPError as exc:
        code = exc.code
    except (OSError, urllib.error.URLError) as exc:
        return f"{url}: {exc}"
    return None if code in accept else f"{url} answered {code}"


def graphql(stack: Stack, query: str, variables: dict[str, Any] | None = None) -> dict[str, Any]:
    """Ask the Dagster webserver's GraphQL API (what the UI reads)."""
    body = json.dumps({"query": query, "variables": variables or {}}).encode()
    request = urllib.request.Request(
        f"{stack.url('webserver')}/graphql", data=body, headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        answer: dict[str, Any] = json.loads(response.read())
    if answer.get("errors"):
        raise StackError(f"GraphQL: {answer['errors']}")
    return answer["data"]


DAEMON_HEALTH = "{ instance { daemonHealth { allDaemonStatuses { daemonType required healthy } } } }"


def daemons_unhealthy(stack: Stack) -> str | None:
    try:
        statuses = graphql(stack, DAEMON_HEALTH)["instance"]["daemonHealth"]["allDaemonStatuses"]
    except (OSError, StackError, KeyError, TypeError) as exc:
        return f"daemon health unknown: {exc}"
    sick = [s["daemonType"] for s in statuses if s["required"] and not s["healthy"]]
    return f"daemons not healthy yet: {', '.join(sick)}" if sick else None


def postgres_bin(tool: str) -> str:
    """A PostgreSQL server program (Debian keeps them under /usr/lib/postgresql/<version>/bin)."""
    found = sorted(Path("/usr/lib/postgresql").glob(f"*/bin/{tool}"), key=lambda p: int(p.parts[-3]))
    if found:
        return str(found[-1])
    on_path = shutil.which(tool)
    if on_path:
        return on_path
    raise StackError(
        f"PostgreSQL's {tool} is not installed: `apt-get install postgresql` (Debian's packages; "
        "scripts/install does it when run as root)"
    )


def services(stack: Stack) -> list[Service]:
    """The stack's services in start order (``down`` stops them in reverse)."""
    env = stack.client_env()
    ports = stack.ports
    as_root = os.geteuid() == 0
    pg_user = "postgres" if as_root else None
    pgdata = stack.path("postgres")
    pg_env = {"PGPASSWORD": stack.secrets["postgres"]}
    pg_client = ["-h", "127.0.0.1", "-p", str(ports["postgres"]), "-U", PG_USER]

    def prepare_postgres() -> None:
        if (pgdata / "PG_VERSION").is_file():
            return
        pgdata.mkdir(parents=True, exist_ok=True)
        pwfile = stack.path("run", "pg.pw")
        pwfile.parent.mkdir(parents=True, exist_ok=True)
        pwfile.write_text(stack.secrets["postgres"] + "\n")
        if as_root:
            shutil.chown(pgdata, "postgres", "postgres")
            shutil.chown(pwfile, "postgres", "postgres")
            pgdata.chmod(0o700)
            denied = subprocess.run(["runuser", "-u", "postgres", "--", "test", "-w", str(pgdata)]).returncode
            if denied:
                raise StackError(
                    f"the postgres user cannot write {pgdata}: a folder above it is closed to other users; "
                    "put the stack where it can (--dir)"
                )
        pwfile.chmod(0o600)
        try:
            initdb = [postgres_bin("initdb"), "-D", str(pgdata), "-U", PG_USER, f"--pwfile={pwfile}"]
            initdb += ["--auth-local=scram-sha-256", "--auth-host=scram-sha-256", "-E", "UTF8", "--no-locale"]
            done = subprocess.run(initdb, user=pg_user, capture_output=True, text=True)
        finally:
            pwfile.unlink(missing_ok=True)
        if done.returncode != 0:
            raise StackError(f"initdb failed: {done.stderr.strip() or done.stdout.strip()}")

    def postgres_health() -> str | None:
        ready = subprocess.run(
            [postgres_bin("pg_isready"), "-h", "127.0.0.1", "-p", str(ports["postgres"])],
            capture_output=True,
            text=True,
        )
        return None if ready.returncode == 0 else f"pg_isready: {ready.stdout.strip()}"

    def create_dagster_db() -> None:
        exists = subprocess.run(
            [
                postgres_bin("psql"),
                *pg_client,
                "-d",
                "postgres",
                "-tAc",
                f"SELECT 1 FROM pg_database WHERE datname='{PG_DB}'",
            ],
            env={**os.environ, **pg_env},
            capture_output=True,
            text=True,
        )
        if exists.returncode != 0:
            raise StackError(f"psql: {exists.stderr.strip()}")
        if exists.stdout.strip() != "1":
            made = subprocess.run(
                [postgres_bin("createdb"), *pg_client, PG_DB],
                env={**os.environ, **pg_env},
                capture_output=True,
                text=True,
            )
            if made.returncode != 0:
                raise StackError(f"createdb: {made.stderr.strip()}")

    def mongo_health() -> str | None:
        import pymongo

        try:
            with pymongo.MongoClient(env["MONGODB_URI"], serverSelectionTimeoutMS=1000) as client:
                client.admin.command("ping")
        except pymongo.errors.PyMongoError as exc:
            return f"ping: {type(exc).__name__}"
        return None

    def graph_health() -> str | None:
        import neo4j

        if not port_open(ports["graph"]):
            return "bolt port closed"
        try:
            with neo4j.GraphDatabase.driver(
                env["NEO4J_URI"], auth=(GRAPH_USER, stack.secrets["graph"])
            ) as driver:
                driver.verify_connectivity()
        except Exception as exc:  # the driver's errors have no common base beyond Exception
            return f"bolt: {type(exc).__name__}: {exc}"
        return None

    def code_health() -> str | None:
        from dagster._grpc.client import DagsterGrpcClient

        if not port_open(ports["code"]):
            return "gRPC port closed"
        try:
            DagsterGrpcClient(port=ports["code"], host="127.0.0.1").ping("stack")
        except Exception as exc:  # grpc's errors
            return f"gRPC ping: {type(exc).__name__}"
        return None

    def prepare_dagster() -> None:
        home = stack.path("dagster")
        (home / "storage" / "compute_logs").mkdir(parents=True, exist_ok=True)
        link = home / "dagster.yaml"
        if link.is_symlink() or link.exists():
            link.unlink()
        link.symlink_to(REPO / "deploy" / "dagster.yaml")  # the production instance, as it is
        workspace = (
            "# written by scripts/stack: the code location over gRPC, as deploy/workspace.yaml in compose\n"
            "load_from:\n  - grpc_server:\n      host: 127.0.0.1\n"
            f"      port: {ports['code']}\n      location_name: geo_assets\n"
        )
        (home / "workspace.yaml").write_text(workspace)
        stack.papers.mkdir(parents=True, exist_ok=True)

    workspace = str(stack.path("dagster", "workspace.yaml"))
    listed = [
        Service(
            "postgres",
            [postgres_bin("postgres"), "-D", str(pgdata), "-p", str(ports["postgres"]), "-k", str(pgdata)]
            + ["-c", "listen_addresses=127.0.0.1"],
            postgres_health,
            f"postgresql://127.0.0.1:{ports['postgres']}/{PG_DB}",
            user=pg_user,
            stop_signal=signal.SIGINT,  # fast shutdown: SIGTERM would wait for the daemon's connections
            stop_grace_s=30.0,
            prepare=prepare_postgres,
            after_start=create_dagster_db,
        ),
        Service(
            "documents",
            [str(BIN / "secantusd-py"), "--config", str(stack.path("run", "secantusd.toml"))]
            + [
                "--host",
                "127.0.0.1",
                "--port",
                str(ports["documents"]),
                "--storage-path",
                str(stack.path("documents")),
            ]
            + ["--standalone", "--log-level", "WARNING"],
            mongo_health,
            env["MONGODB_URI"],
            prepare=lambda: stack.path("run", "secantusd.toml").write_text(""),  # no other config is read
        ),
        Service(
            "graph",
            [sys.executable, "-c", ARCADEDB_LAUNCHER, str(stack.path("graph")), str(ports["graph"])]
            + [str(ports["graph_http"])],
            graph_health,
            env["NEO4J_URI"],
            stdin=stack.secrets["graph"],
            start_timeout_s=120.0,
        ),
        Service(
            "vectors",
            [str(BIN / "chroma"), "run", "--path", str(stack.path("vectors")), "--host", "127.0.0.1"]
            + ["--port", str(ports["vectors"])],
            lambda: http_ok(f"{stack.url('vectors')}/api/v2/heartbeat"),
            stack.url("vectors"),
        ),
    ]
    listed.append(
        Service(
            "llm",
            [str(BIN / "geo-rag"), "llm", "serve", "--host", "127.0.0.1", "--port", str(ports["llm"])],
            lambda: http_ok(f"{stack.url('llm')}/v1/models"),
            f"{stack.url('llm')}/v1",
            env=env,
            start_timeout_s=600.0,  # the first start assembles and hashes the 1.1 GB model
            enabled=stack.llm,
        )
    )
    listed += [
        Service(
            "code",
            [str(BIN / "dagster"), "code-server", "start", "-m", "geo_assets.definitions", "-h", "127.0.0.1"]
            + ["-p", str(ports["code"]), "--location-name", "geo_assets"],
            code_health,
            f"grpc://127.0.0.1:{ports['code']}",
            env=env,
            start_timeout_s=240.0,
            stop_grace_s=30.0,
            prepare=prepare_dagster,
        ),
        Service(
            "webserver",
            [
                str(BIN / "dagster-webserver"),
                "-h",
                "127.0.0.1",
                "-p",
                str(ports["webserver"]),
                "-w",
                workspace,
            ],
            lambda: http_ok(f"{stack.url('webserver')}/server_info"),
            stack.url("webserver"),
            env=env,
            start_timeout_s=180.0,
        ),
        Service(
            "daemon",
            [str(BIN / "dagster-daemon"), "run", "-w", workspace],
            lambda: daemons_unhealthy(stack),
            "dagster-daemon (sensors, schedules, run queue, run monitoring)",
            env=env,
            start_timeout_s=180.0,
            stop_grace_s=30.0,
        ),
        Service(
            "api",
            [str(BIN / "geo-rag"), "serve", "--host", "127.0.0.1", "--port", str(ports["api"])],
            lambda: http_ok(f"{stack.url('api')}/health", accept=(200, 503)),  # 503 = nothing ingested yet
            stack.url("api"),
            env=env | {"GEO_RAG_API_TOKEN": stack.secrets["api"]},
            start_timeout_s=120.0,
        ),
    ]
    return listed


# --------------------------------------------------------------------------------- commands


def cmd_up(stack: Stack) -> int:
    database_started = False
    for service in services(stack):
        if not service.enabled:
            stop(stack, service, print)  # switched off with --no-llm since the last up
            continue
        if service.name == "webserver" and database_started and running_pid(stack, "webserver") is not None:
            # The UI keeps one pooled PostgreSQL connection per storage (dagster-webserver's
            # --db-pool-* options); they died with the old server, and the UI's next request on each
            # would fail ("server closed the connection unexpectedly"). The daemon and the run
            # workers open a connection per use and ride it out.
            print("webserver  restarting: its database connections died with PostgreSQL")
            stop(stack, service, print)
        try:
            started = start(stack, service, print)
            database_started = database_started or (service.name == "postgres" and started)
        except StackError as exc:
            print(f"error: {exc}", file=sys.stderr)
            print(
                "the services started so far keep running: `scripts/stack down` stops them", file=sys.stderr
            )
            return 1
    try:
        reexecute_orphaned_runs(stack, print)
    except (OSError, StackError, subprocess.SubprocessError) as exc:
        print(f"error: runs left by a killed run worker could not be checked: {exc}", file=sys.stderr)
        return 1
    print(f"UI {stack.url('webserver')} · API {stack.url('api')} (token: `scripts/stack env`)")
    print(f"watched folder {stack.papers} · logs {stack.path('logs')}")
    return 0


# The run workers are children of the code server; Dagster's run monitoring cannot ask
# DefaultRunLauncher whether one lives, so a run whose worker died with the code server's processes
# (``down`` mid-run, a crash, the OOM killer) would stay STARTED with its pool slots, and every later
# run would wait for them. geo_assets.cli.runs.recover_orphaned_runs marks such runs failed by the
# worker pid they logged (this host's processes) and frees their slots; ``up`` then re-executes them.
_RECOVER = """
import json
import dagster as dg
from geo_assets.cli.runs import recover_orphaned_runs, worker_alive

with dg.DagsterInstance.get() as instance:
    runs = recover_orphaned_runs(instance, worker_alive)
    print(json.dumps([[r.run_id, r.tags.get("dagster/partition", r.job_name)] for r in runs]))
"""

REEXECUTE = """mutation($id: String!) { launchRunReexecution(reexecutionParams: {parentRunId: $id, strategy: FROM_FAILURE}) {
  __typename ... on LaunchRunSuccess { run { runId } } ... on PythonError { message } } }"""


def reexecute_orphaned_runs(stack: Stack, say: Callable[[str], None]) -> None:
    """Runs left STARTED by a run worker that is gone: marked failed, then re-executed from failure
    through the UI's API (what an operator would do by hand), each said in one line."""
    done = subprocess.run(
        [str(BIN / "python"), "-c", _RECOVER],
        env={**os.environ, **stack.client_env()},
        capture_output=True,
        text=True,
        timeout=120,
    )
    if done.returncode != 0:
        raise StackError(done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "no output")
    for run_id, what in json.loads(done.stdout.strip().splitlines()[-1]):
        answer = _reexecute(stack, run_id)
        again = answer["run"]["runId"][:8] if answer.get("__typename") == "LaunchRunSuccess" else None
        say(
            f"recovered  run {run_id[:8]} ({what}) was left STARTED by a run worker that is gone: marked "
            "failed, "
            + (
                f"re-executed from failure as run {again}"
                if again
                else f"not re-executed ({answer}): use the UI's Re-execute from failure"
            )
        )


RELOAD = """mutation { reloadRepositoryLocation(repositoryLocationName: "geo_assets") { __typename } }"""


def _reexecute(stack: Stack, run_id: str, timeout_s: float = 90.0) -> dict[str, Any]:
    """The UI's "Re-execute from failure"; a UI that still holds the restarted code server's old
    connection reloads the code location first (the mutation fails until it has)."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            answer: dict[str, Any] = graphql(stack, REEXECUTE, {"id": run_id})["launchRunReexecution"]
            if answer["__typename"] == "LaunchRunSuccess" or time.monotonic() > deadline:
                return answer
        except (OSError, StackError) as exc:
            if time.monotonic() > deadline:
                return {"error": str(exc)}
        with contextlib.suppress(OSError, StackError):
            graphql(stack, RELOAD)
        time.sleep(3)


def cmd_down(stack: Stack) -> int:
    for service in reversed(services(stack)):
        stop(stack, service, print)
    print("stack stopped")
    return 0


def cmd_status(stack: Stack, as_json: bool) -> int:
    rows = []
    for service in services(stack):
        if not service.enabled:
            continue
        pid = running_pid(stack, service.name)
        problem = service.health() if pid is not None else "not running"
        rows.append(
            {
                "service": service.name,
                "pid": pid,
                "healthy": problem is None,
                "problem": problem,
                "address": service.address,
                "log": str(stack.path("logs", service.name + ".log")),
            }
        )
    if as_json:
        print(
            json.dumps(
                {"services": rows, "papers": str(stack.papers), "logs": str(stack.path("logs"))}, indent=2
            )
        )
    else:
        for row in rows:
            state = "healthy" if row["healthy"] else row["problem"]
            print(f"{row['service']:<10} {str(row['pid'] or '-'):<8} {row['address']:<45} {state}")
        print(f"logs: {stack.path('logs')} · watched folder: {stack.papers}")
    return 0 if all(row["healthy"] for row in rows) else 1


def cmd_env(stack: Stack) -> int:
    env = stack.client_env() | {
        "GEO_RAG_API_TOKEN": stack.secrets["api"],
        "GEO_RAG_STACK_API": stack.url("api"),
        "GEO_RAG_STACK_UI": stack.url("webserver"),
    }
    for key, value in env.items():
        print(f"export {key}={json.dumps(value)}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="scripts/stack", description=__doc__.split("\n\n")[0])
    parser.add_argument("action", choices=["up", "down", "status", "env"])
    default_dir = os.environ.get("GEO_RAG_STACK_DIR", str(REPO / "data" / "stack"))
    parser.add_argument("--dir", default=default_dir, help="the stack's folder (default %(default)s)")
    parser.add_argument("--papers", help="the folder the sensor watches (default DIR/papers; remembered)")
    parser.add_argument("--no-llm", action="store_true", help="up: without the local LLM server (remembered)")
    parser.add_argument("--llm", action="store_true", help="up: with the local LLM server again")
    parser.add_argument("--json", action="store_true", help="status: machine-readable")
    args = parser.parse_args(argv)
    root = Path(args.dir).expanduser().resolve()
    if args.action != "up" and not (root / "stack.json").is_file():
        print(f"no stack in {root}: `scripts/stack up` makes one", file=sys.stderr)
        return 0 if args.action == "down" else 1
    llm = False if args.no_llm else (True if args.llm else None)
    try:
        stack = Stack.load(
            root, Path(args.papers) if args.papers else None, llm if args.action == "up" else None
        )
        if args.action == "up":
            return cmd_up(stack)
        if args.action == "down":
            return cmd_down(stack)
        if args.action == "status":
            return cmd_status(stack, args.json)
        return cmd_env(stack)
    except StackError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
