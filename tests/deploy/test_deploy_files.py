"""Offline checks of the production deployment files under deploy/ (nothing is built or started).

* deploy/compose.yaml: the Compose specification's JSON schema (vendored in deploy/schemas/), plus what
  the schema cannot see: depends_on targets and health, env files, ${VAR}s against .env.example,
  named volumes, plaintext secrets, host names of the services GeoRAG talks to, the commands against
  the real `geo-rag` and `dagster` command lines, and env names against geo_rag_runtime/settings.py.
* deploy/dagster.yaml: Dagster's own instance-config validation (dagster_instance_config), and the
  configurable classes it names (all from dagster core) loaded and their config validated.
* deploy/helm/values.yaml: a hand-written subset of the chart's values schema, the official
  values.schema.json when it is vendored, and the Dagster instance settings it implies, validated by
  Dagster. deploy/schemas/README.md says exactly what is and is not checked.
* Each kind of file also has a broken copy that must fail, so these tests can fail.

Everything read lies in this repository.
"""

from __future__ import annotations

import copy
import functools
import json
import re
import tomllib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import click
import jsonschema
import pytest
import yaml
from packaging.specifiers import SpecifierSet
from packaging.version import Version

REPO = Path(__file__).resolve().parents[2]
DEPLOY = REPO / "deploy"
SCHEMAS = DEPLOY / "schemas"
COMPOSE = DEPLOY / "compose.yaml"
ENV_EXAMPLE = DEPLOY / ".env.example"
DAGSTER_YAML = DEPLOY / "dagster.yaml"
WORKSPACE_YAML = DEPLOY / "workspace.yaml"
HELM_VALUES = DEPLOY / "helm" / "values.yaml"
DOCKERFILE = DEPLOY / "Dockerfile"
COMPOSE_SCHEMA = SCHEMAS / "compose-spec.json"
HELM_SUBSET_SCHEMA = SCHEMAS / "dagster-helm-values.subset.schema.json"
HELM_OFFICIAL_SCHEMA = SCHEMAS / "dagster-helm-values.schema.json"
HELM_CHART_DEFAULTS = SCHEMAS / "dagster-helm-chart-values.yaml"

SECRET_NAME = re.compile(r"PASSWORD|SECRET|TOKEN|API_KEY|_AUTH$", re.IGNORECASE)
URI_CREDENTIALS = re.compile(r"://(?P<user>[^:/@\s]+):(?P<password>[^@\s]+)@")
INTERPOLATION = re.compile(r"\$\{(?P<braced>[A-Za-z_][A-Za-z0-9_]*)|\$(?P<bare>[A-Za-z_][A-Za-z0-9_]*)")
GEORAG_IMAGE = re.compile(r"^georag(?:-serve)?:")  # the full image and the serving one
POOL_IN_CODE = re.compile(r"""pool\s*=\s*["']([A-Za-z0-9_\-]+)["']""")


def load_yaml(path: Path) -> Any:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def load_mapping(path: Path) -> dict[str, Any]:
    """A YAML file whose top level must be a mapping (every deployment file here)."""
    doc = load_yaml(path)
    assert isinstance(doc, dict), f"{path}: top level is not a mapping"
    return doc


def read_env_file(path: Path) -> dict[str, str]:
    """KEY=VALUE lines of a Compose env file (comments and blank lines skipped)."""
    values: dict[str, str] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        key, sep, value = line.partition("=")
        assert sep, f"{path.name}: not KEY=VALUE: {line!r}"
        values[key.strip()] = value.strip()
    return values


def strings(node: Any) -> Iterator[str]:
    """Every string value (not key) in a parsed YAML document."""
    if isinstance(node, str):
        yield node
    elif isinstance(node, dict):
        for value in node.values():
            yield from strings(value)
    elif isinstance(node, list):
        for item in node:
            yield from strings(item)


def interpolated_names(doc: Any) -> set[str]:
    """Variables Compose interpolates in the file's values ($$ is Compose's escape for a literal $)."""
    names: set[str] = set()
    for value in strings(doc):
        for match in INTERPOLATION.finditer(value.replace("$$", "")):
            names.add(match.group("braced") or match.group("bare"))
    return names


def environment(service: dict[str, Any]) -> dict[str, str]:
    env = service.get("environment") or {}
    if isinstance(env, list):
        return dict(item.partition("=")[::2] for item in env)
    return {str(k): "" if v is None else str(v) for k, v in env.items()}


def env_file_paths(service: dict[str, Any]) -> list[str]:
    entries = service.get("env_file") or []
    if isinstance(entries, str | dict):
        entries = [entries]
    return [entry if isinstance(entry, str) else entry["path"] for entry in entries]


def command(service: dict[str, Any]) -> list[str]:
    cmd = service.get("command") or []
    return cmd.split() if isinstance(cmd, str) else [str(part) for part in cmd]


def is_georag(service: dict[str, Any]) -> bool:
    return bool(GEORAG_IMAGE.match(str(service.get("image", ""))))


def runs_dagster(service: dict[str, Any]) -> bool:
    return command(service)[:1] in (["dagster"], ["dagster-webserver"], ["dagster-daemon"])


def bind_mounts(service: dict[str, Any]) -> dict[str, str]:
    """Container path -> host path (relative to deploy/) of the service's bind mounts."""
    mounts = {}
    for volume in service.get("volumes") or []:
        if isinstance(volume, str):
            source, _, rest = volume.partition(":")
            target = rest.split(":")[0]
        else:
            source, target = volume.get("source", ""), volume.get("target", "")
        if source.startswith((".", "/", "~")):
            mounts[target] = source
    return mounts


def dagster_env_vars(node: Any) -> set[str]:
    """Names used as `{env: NAME}` in a Dagster instance config."""
    found: set[str] = set()
    if isinstance(node, dict):
        if set(node) == {"env"} and isinstance(node["env"], str):
            found.add(node["env"])
        for value in node.values():
            found |= dagster_env_vars(value)
    elif isinstance(node, list):
        for item in node:
            found |= dagster_env_vars(item)
    return found


def settings_env_names() -> set[str]:
    """The environment variables geo_rag_runtime.settings.Settings reads."""
    from pydantic import AliasChoices

    from geo_rag_runtime.settings import Settings

    prefix = str(Settings.model_config.get("env_prefix", ""))
    names: set[str] = set()
    for name, field in Settings.model_fields.items():
        alias = field.validation_alias
        if isinstance(alias, AliasChoices):
            names.update(choice for choice in alias.choices if isinstance(choice, str))
        elif isinstance(alias, str):
            names.add(alias)
        else:
            names.add(f"{prefix}{name}".upper())
    return names


# ----------------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    return load_mapping(COMPOSE)


@pytest.fixture(scope="module")
def env_example() -> dict[str, str]:
    return read_env_file(ENV_EXAMPLE)


@pytest.fixture(scope="module")
def dagster_yaml() -> dict[str, Any]:
    return load_mapping(DAGSTER_YAML)


@pytest.fixture(scope="module")
def helm_values() -> dict[str, Any]:
    return load_mapping(HELM_VALUES)


@pytest.fixture(scope="module")
def pyproject() -> dict[str, Any]:
    return tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))


# --------------------------------------------------------------------------------- compose.yaml


@functools.cache
def validator(schema_path: Path) -> Any:
    """A validator for a vendored JSON schema, of the draft the schema declares (checked first)."""
    schema = json.loads(schema_path.read_text(encoding="utf-8"))
    validator_class = jsonschema.validators.validator_for(schema)
    validator_class.check_schema(schema)
    return validator_class(schema)


def schema_errors(schema_path: Path, doc: Any) -> list[str]:
    return [
        f"{'/'.join(map(str, error.absolute_path)) or '<root>'}: {error.message}"
        for error in validator(schema_path).iter_errors(doc)
    ]


def compose_schema_errors(doc: dict[str, Any]) -> list[str]:
    return schema_errors(COMPOSE_SCHEMA, doc)


def compose_problems(doc: dict[str, Any], env_example: dict[str, str]) -> list[str]:
    """What the Compose schema cannot check; [] when the file is sound."""
    problems: list[str] = []
    services: dict[str, Any] = doc.get("services", {})
    declared_volumes = set(doc.get("volumes") or {})
    used_volumes: set[str] = set()
    if "version" in doc:
        problems.append("top-level `version:` is obsolete in the Compose specification")
    for name, service in services.items():
        where = f"services.{name}"
        if service.get("restart") != "unless-stopped":
            problems.append(f"{where}: restart is {service.get('restart')!r}, not 'unless-stopped'")
        check = service.get("healthcheck") or {}
        if not check.get("test") or check.get("disable") or check["test"][:1] == ["NONE"]:
            problems.append(f"{where}: no healthcheck")
        image = str(service.get("image", ""))
        tag = image.rpartition("/")[2].partition(":")[2]
        if not tag or tag == "latest":
            problems.append(f"{where}: image {image!r} has no pinned tag")
        depends = service.get("depends_on") or {}
        if isinstance(depends, list):
            problems.append(f"{where}: depends_on in short form (waits for start, not health)")
            depends = dict.fromkeys(depends, {})
        for target, spec in depends.items():
            if target not in services:
                problems.append(f"{where}: depends_on names no service: {target}")
                continue
            if (spec or {}).get("condition") != "service_healthy":
                problems.append(f"{where}: depends_on {target} without condition service_healthy")
            if not (services[target].get("healthcheck") or {}).get("test"):
                problems.append(f"{where}: depends_on {target}, which has no healthcheck")
        for path in env_file_paths(service):
            # deploy/.env is the operator's copy of .env.example (gitignored): one of the two must exist
            if not ((DEPLOY / path).is_file() or (DEPLOY / f"{path}.example").is_file()):
                problems.append(f"{where}: env_file {path} (nor {path}.example) exists in deploy/")
        for volume in service.get("volumes") or []:
            if isinstance(volume, str):
                source, sep, _ = volume.partition(":")
                source = source if sep else ""
            else:
                source = "" if volume.get("type") == "tmpfs" else str(volume.get("source", ""))
            if not source:
                problems.append(f"{where}: anonymous volume {volume!r} (give it a name)")
            elif source.startswith((".", "/", "~")):
                if source.startswith(".") and not (DEPLOY / source).exists():
                    problems.append(f"{where}: bind mount source {source} does not exist in deploy/")
            else:
                used_volumes.add(source)
                if source not in declared_volumes:
                    problems.append(f"{where}: named volume {source} is not declared under volumes:")
        for key, value in environment(service).items():
            if SECRET_NAME.search(key) and value and "${" not in value:
                problems.append(f"{where}: {key} has a plaintext value; take it from deploy/.env")
    problems += [f"volume {v} is declared but no service uses it" for v in declared_volumes - used_volumes]
    for value in strings(doc):
        match = URI_CREDENTIALS.search(value)
        if match and not match.group("password").startswith("${"):
            problems.append(f"plaintext credentials in {value!r}")
    missing = interpolated_names(doc) - set(env_example)
    problems += [
        f"${{{name}}} is used in compose.yaml but not listed in .env.example" for name in sorted(missing)
    ]
    return problems


def test_compose_matches_the_compose_specification(compose: dict[str, Any]) -> None:
    assert compose_schema_errors(compose) == []


def test_compose_semantics(compose: dict[str, Any], env_example: dict[str, str]) -> None:
    assert compose_problems(compose, env_example) == []


def test_env_example_lists_only_variables_something_reads(
    compose: dict[str, Any], env_example: dict[str, str], dagster_yaml: dict[str, Any]
) -> None:
    """Every .env.example variable is interpolated by Compose, read by Settings or by dagster.yaml."""
    readers = interpolated_names(compose) | settings_env_names() | dagster_env_vars(dagster_yaml)
    assert sorted(set(env_example) - readers) == []


def test_env_example_has_no_secret_values(env_example: dict[str, str]) -> None:
    filled = [key for key, value in env_example.items() if SECRET_NAME.search(key) and value]
    assert filled == [], "secrets in .env.example must be empty (compose refuses to start without them)"
    assert ".env" in (DEPLOY / ".gitignore").read_text(encoding="utf-8").split()


def test_georag_services_set_only_variables_the_code_reads(
    compose: dict[str, Any], dagster_yaml: dict[str, Any]
) -> None:
    known = settings_env_names() | dagster_env_vars(dagster_yaml) | {"DAGSTER_HOME"}
    invented = {
        f"{name}: {key}"
        for name, service in compose["services"].items()
        if is_georag(service)
        for key in environment(service)
        if key not in known
    }
    assert sorted(invented) == []


def test_dagster_containers_get_the_instance_settings(
    compose: dict[str, Any], env_example: dict[str, str], dagster_yaml: dict[str, Any]
) -> None:
    """DAGSTER_HOME holds the mounted dagster.yaml, and every `env:` it names reaches the container."""
    needed = dagster_env_vars(dagster_yaml)
    dagster_services = {n: s for n, s in compose["services"].items() if runs_dagster(s)}
    assert set(dagster_services) == {"dagster-code", "dagster-webserver", "dagster-daemon"}
    for name, service in dagster_services.items():
        env = environment(service)
        provided = set(env) | (set(env_example) if ".env" in env_file_paths(service) else set())
        assert needed <= provided, f"{name} lacks {sorted(needed - provided)}"
        mounts = bind_mounts(service)
        assert mounts.get(f"{env['DAGSTER_HOME']}/dagster.yaml") == "./dagster.yaml", name


def test_service_addresses_point_at_compose_services(compose: dict[str, Any]) -> None:
    """GROBID_URL, MONGODB_URI, CHROMA_HOST/PORT, NEO4J_URI and OPENAI_BASE_URL name a service and its port."""
    services = compose["services"]
    env = environment(services["dagster-code"])
    llm_cmd = command(services["llm"])
    expected = {
        "GROBID_URL": ("grobid", 8070),
        "MONGODB_URI": ("mongodb", 27017),
        "NEO4J_URI": ("neo4j", 7687),
        "OPENAI_BASE_URL": ("llm", int(llm_cmd[llm_cmd.index("--port") + 1])),
    }
    for key, (host, port) in expected.items():
        assert re.search(rf"[/@]{host}:{port}(/|$|\?)", env[key]), f"{key}={env[key]}"
    assert (env["CHROMA_HOST"], env["CHROMA_PORT"]) == ("chroma", "8000")
    assert "8070" in [str(p) for p in services["grobid"]["expose"]]
    assert "/api/v2/heartbeat" in " ".join(services["chroma"]["healthcheck"]["test"])
    assert "/api/isalive" in " ".join(services["grobid"]["healthcheck"]["test"])


def test_llm_model_name_is_the_alias_the_server_gets(compose: dict[str, Any]) -> None:
    from geo_rag_runtime import local_llm

    env = environment(compose["services"]["api"])
    assert env["GEO_RAG_LLM_MODEL"] == local_llm.MODEL_NAME  # `geo-rag llm serve` passes --model_alias


def test_images_match_the_python_dependencies(compose: dict[str, Any], pyproject: dict[str, Any]) -> None:
    services = compose["services"]
    deps = pyproject["project"]["dependencies"]
    chroma_spec = SpecifierSet(next(d for d in deps if d.startswith("chromadb"))[len("chromadb") :])
    chroma_tag = services["chroma"]["image"].partition(":")[2]
    assert Version(chroma_tag) in chroma_spec, f"chroma server {chroma_tag} vs client chromadb{chroma_spec}"
    images = {s["image"] for s in services.values() if is_georag(s)}
    version = pyproject["project"]["version"]
    assert images == {f"georag:{version}", f"georag-serve:{version}"}
    assert (
        services["api"]["image"] == f"georag-serve:{version}"
        and services["api"]["build"]["target"] == "serve"
    )
    assert services["neo4j"]["environment"]["NEO4J_PLUGINS"] == '["apoc"]'


def test_geo_rag_commands_parse_with_the_real_cli(compose: dict[str, Any]) -> None:
    from geo_rag_runtime.cli import build_parser

    parsed = {}
    for name, service in compose["services"].items():
        cmd = command(service)
        if cmd[:1] == ["geo-rag"]:
            parsed[name] = build_parser().parse_args(cmd[1:])
    assert parsed["llm"].command == "llm" and parsed["llm"].action == "serve"
    assert parsed["llm"].host == "0.0.0.0"
    assert parsed["api"].command == "serve" and (parsed["api"].host, parsed["api"].port) == ("0.0.0.0", 8000)


def test_dagster_commands_parse_with_the_real_cli(compose: dict[str, Any]) -> None:
    """`dagster code-server start` and `dagster api grpc-health-check` parsed by Dagster's click CLI,
    and consistent with workspace.yaml (the webserver and daemon CLIs are not imported: too slow)."""
    from dagster._cli import create_dagster_cli

    cli = create_dagster_cli()
    assert isinstance(cli, click.Group)
    root = click.Context(cli)

    def parse(args: list[str]) -> dict[str, Any]:
        group = cli.get_command(root, args[0])
        assert isinstance(group, click.Group), args
        sub = group.get_command(root, args[1])
        assert sub is not None, args
        return dict(sub.make_context(args[1], args[2:]).params)

    services = compose["services"]
    code = parse(command(services["dagster-code"])[1:])
    health = parse(services["dagster-code"]["healthcheck"]["test"][2:])
    server = load_yaml(WORKSPACE_YAML)["load_from"][0]["grpc_server"]
    assert server == {"host": "dagster-code", "port": code["port"], "location_name": code["location_name"]}
    assert code["host"] == "0.0.0.0" and code["module_name"] == "geo_assets.definitions"
    assert health["port"] == code["port"]
    for name in ("dagster-webserver", "dagster-daemon"):
        cmd = command(services[name])
        workspace = cmd[cmd.index("-w") + 1]
        assert bind_mounts(services[name]).get(workspace) == "./workspace.yaml", name


def test_workspace_yaml_is_a_valid_dagster_workspace() -> None:
    from dagster._core.workspace.config_schema import process_workspace_config

    result = process_workspace_config(load_yaml(WORKSPACE_YAML))
    assert result.success, result.errors


# ---- broken compose files must fail


def _unknown_service_key(doc: dict[str, Any]) -> None:
    doc["services"]["api"]["restart_policy"] = "always"


def _depends_on_missing_service(doc: dict[str, Any]) -> None:
    doc["services"]["api"]["depends_on"]["redis"] = {"condition": "service_healthy"}


def _undeclared_variable(doc: dict[str, Any]) -> None:
    doc["services"]["api"]["environment"]["GEO_RAG_TOP_K"] = "${GEO_RAG_TOP_K_UNSET}"


def _plaintext_password(doc: dict[str, Any]) -> None:
    doc["services"]["postgres"]["environment"]["POSTGRES_PASSWORD"] = "hunter2hunter2"


def _plaintext_uri(doc: dict[str, Any]) -> None:
    doc["services"]["api"]["environment"]["MONGODB_URI"] = "mongodb://root:hunter2@mongodb:27017/"


def _undeclared_volume(doc: dict[str, Any]) -> None:
    doc["services"]["api"]["volumes"].append("api-cache:/cache")


def _no_healthcheck(doc: dict[str, Any]) -> None:
    del doc["services"]["grobid"]["healthcheck"]


def _missing_env_file(doc: dict[str, Any]) -> None:
    doc["services"]["api"]["env_file"] = ["secrets.env"]


BROKEN_COMPOSE: dict[str, Callable[[dict[str, Any]], None]] = {
    "unknown service key": _unknown_service_key,
    "depends_on a missing service": _depends_on_missing_service,
    "variable not in .env.example": _undeclared_variable,
    "plaintext password": _plaintext_password,
    "plaintext URI credentials": _plaintext_uri,
    "undeclared named volume": _undeclared_volume,
    "service without healthcheck": _no_healthcheck,
    "missing env_file": _missing_env_file,
}


@pytest.mark.parametrize("breakage", sorted(BROKEN_COMPOSE))
def test_broken_compose_fails(compose: dict[str, Any], env_example: dict[str, str], breakage: str) -> None:
    broken = copy.deepcopy(compose)
    BROKEN_COMPOSE[breakage](broken)
    assert compose_schema_errors(broken) + compose_problems(broken, env_example) != []


def test_unknown_service_key_is_caught_by_the_schema_itself(compose: dict[str, Any]) -> None:
    broken = copy.deepcopy(compose)
    _unknown_service_key(broken)
    errors = compose_schema_errors(broken)
    assert any("restart_policy" in error for error in errors), errors


# --------------------------------------------------------------------------------- dagster.yaml


def instance_config(overrides: dict[str, Any] | None = None) -> dict[str, Any]:
    """deploy/dagster.yaml through Dagster's own loader/validator (DagsterInvalidConfigError if bad)."""
    from dagster._core.instance.config import dagster_instance_config

    config, custom_class = dagster_instance_config(str(DEPLOY), DAGSTER_YAML.name, overrides=overrides)
    assert custom_class is None
    return dict(config)


CLASS_SECTIONS = ("run_coordinator", "run_launcher", "scheduler", "compute_logs", "local_artifact_storage")


def class_config_errors(config: dict[str, Any]) -> list[str]:
    """Load each configurable class (all dagster core here) and validate its config block with the
    class's own config_type(), as DagsterInstance.from_config would when it builds the instance."""
    from dagster._config import validate_config
    from dagster._serdes import class_from_code_pointer

    errors = []
    for section in CLASS_SECTIONS:
        data = config[section]
        klass: Any = class_from_code_pointer(data["module"], data["class"])
        result = validate_config(klass.config_type(), data.get("config") or {})
        errors += [f"{section}: {error.message}" for error in result.errors or []]
    return errors


def test_dagster_yaml_is_a_valid_instance_config() -> None:
    config = instance_config()
    assert set(config["storage"]) == {"postgres"}
    assert set(config["storage"]["postgres"]["postgres_db"]) >= {
        "username",
        "password",
        "hostname",
        "db_name",
    }


def test_dagster_yaml_classes_load_and_accept_their_config() -> None:
    assert class_config_errors(instance_config()) == []


def test_run_monitoring_matches_what_the_launcher_supports(dagster_yaml: dict[str, Any]) -> None:
    from dagster._core.launcher import DefaultRunLauncher

    assert dagster_yaml["run_launcher"]["class"] == "DefaultRunLauncher"
    monitoring = dagster_yaml["run_monitoring"]
    assert monitoring["enabled"] is True
    if not DefaultRunLauncher().supports_resume_run:
        assert monitoring["max_resume_run_attempts"] == 0


def test_pools_and_run_queue_keep_the_local_semantics(dagster_yaml: dict[str, Any]) -> None:
    local = load_yaml(REPO / "dagster.yaml")
    assert dagster_yaml["concurrency"]["pools"] == local["concurrency"]["pools"]
    assert (
        dagster_yaml["concurrency"]["runs"]["tag_concurrency_limits"]
        == local["concurrency"]["runs"]["tag_concurrency_limits"]
    )
    text = DAGSTER_YAML.read_text(encoding="utf-8")
    pools_in_code = {
        pool
        for path in (REPO / "geo_assets").rglob("*.py")
        for pool in POOL_IN_CODE.findall(path.read_text())
    }
    assert pools_in_code == {"grobid", "llm", "docstore", "graph"}
    assert all(pool in text for pool in pools_in_code)


BROKEN_DAGSTER: dict[str, dict[str, Any]] = {
    "unknown top-level key": {"run_monitor": {"enabled": True}},
    "misspelt run_monitoring key": {"run_monitoring": {"enabled": True, "max_resume_run_attempt": 0}},
    "misspelt postgres key": {
        "storage": {
            "postgres": {"postgres_db": {"username": "u", "hostname": "h", "db_name": "d", "prot": 5432}}
        }
    },
    "run limits in both run_coordinator and concurrency": {
        "run_coordinator": {
            "module": "dagster._core.run_coordinator",
            "class": "QueuedRunCoordinator",
            "config": {"max_concurrent_runs": 4},
        }
    },
    "bad pool granularity": {"concurrency": {"pools": {"default_limit": 1, "granularity": "ops"}}},
}


@pytest.mark.parametrize("breakage", sorted(BROKEN_DAGSTER))
def test_broken_dagster_yaml_fails(breakage: str) -> None:
    from dagster._core.errors import DagsterInvalidConfigError

    with pytest.raises(DagsterInvalidConfigError):
        instance_config(overrides=BROKEN_DAGSTER[breakage])


def test_broken_class_config_fails() -> None:
    config = instance_config()
    config["run_coordinator"] = {**config["run_coordinator"], "config": {"dequeue_intervall_seconds": 5}}
    assert class_config_errors(config) != []


# -------------------------------------------------------------------------------- helm values


def snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def helm_instance_settings(values: dict[str, Any]) -> dict[str, Any]:
    """The dagster.yaml sections the chart renders from these values (concurrency, run_coordinator,
    run_monitoring), with the chart's camelCase -> Dagster's snake_case key mapping."""
    concurrency = values["concurrency"]
    runs = concurrency.get("runs", {})
    queued = values["dagsterDaemon"]["runCoordinator"]["config"].get("queuedRunCoordinator") or {}
    return {
        "concurrency": {
            "pools": {snake(k): v for k, v in concurrency.get("pools", {}).items()},
            "runs": {
                "max_concurrent_runs": runs.get("maxConcurrentRuns"),
                "tag_concurrency_limits": runs.get("tagConcurrencyLimits"),  # items keep their keys
            },
        },
        "run_coordinator": {
            "module": "dagster._core.run_coordinator",
            "class": values["dagsterDaemon"]["runCoordinator"]["type"],
            "config": {snake(k): v for k, v in queued.items()},
        },
        "run_monitoring": {snake(k): v for k, v in values["dagsterDaemon"]["runMonitoring"].items()},
    }


def helm_instance_errors(values: dict[str, Any]) -> list[str]:
    """[] when Dagster accepts the instance settings the chart renders from these values."""
    from dagster._config import validate_config
    from dagster._core.errors import DagsterInvalidConfigError
    from dagster._core.instance.config import dagster_instance_config_schema, validate_concurrency_config
    from dagster._serdes import class_from_code_pointer

    settings = helm_instance_settings(values)
    try:
        validate_concurrency_config(settings)
    except DagsterInvalidConfigError as exc:
        return [str(exc)]
    result = validate_config(dagster_instance_config_schema(), settings)
    errors = [error.message for error in result.errors or []]
    coordinator = settings["run_coordinator"]
    klass: Any = class_from_code_pointer(coordinator["module"], coordinator["class"])
    errors += [e.message for e in validate_config(klass.config_type(), coordinator["config"]).errors or []]
    if values["runLauncher"]["type"] != "K8sRunLauncher" and settings["run_monitoring"].get(
        "max_resume_run_attempts"
    ):
        errors.append("max_resume_run_attempts > 0 needs a launcher that resumes runs (K8sRunLauncher)")
    return errors


def test_helm_values_match_the_subset_schema(helm_values: dict[str, Any]) -> None:
    assert schema_errors(HELM_SUBSET_SCHEMA, helm_values) == []


def helm_merge(defaults: Any, overrides: Any) -> Any:
    """Helm's merge of a values file over the chart's values.yaml: maps recursively, the rest replaced."""
    if isinstance(defaults, dict) and isinstance(overrides, dict):
        merged = dict(defaults)
        for key, value in overrides.items():
            merged[key] = helm_merge(defaults.get(key), value) if key in defaults else value
        return merged
    return overrides


def test_helm_values_match_the_official_chart_schema(helm_values: dict[str, Any]) -> None:
    """Helm validates the chart's values.yaml merged with ours against values.schema.json: so does this
    test, once both files of the chart release are vendored (deploy/schemas/README.md)."""
    if not (HELM_OFFICIAL_SCHEMA.is_file() and HELM_CHART_DEFAULTS.is_file()):
        pytest.skip(
            "the chart's values.schema.json and values.yaml are not vendored (deploy/schemas/README.md "
            "says how): only the hand-written subset schema was checked"
        )
    merged = helm_merge(load_yaml(HELM_CHART_DEFAULTS), helm_values)
    assert schema_errors(HELM_OFFICIAL_SCHEMA, merged) == []


def test_helm_values_render_to_a_valid_dagster_instance(helm_values: dict[str, Any]) -> None:
    assert helm_instance_errors(helm_values) == []


def test_helm_and_compose_share_pools_and_run_tags(
    helm_values: dict[str, Any], dagster_yaml: dict[str, Any]
) -> None:
    rendered = helm_instance_settings(helm_values)["concurrency"]
    assert rendered["pools"] == dagster_yaml["concurrency"]["pools"]
    assert (
        rendered["runs"]["tag_concurrency_limits"]
        == dagster_yaml["concurrency"]["runs"]["tag_concurrency_limits"]
    )
    assert helm_values["runLauncher"]["type"] == "K8sRunLauncher"
    assert helm_values["concurrency"]["enabled"] is True


def test_helm_user_code_uses_the_georag_image_and_real_settings(
    helm_values: dict[str, Any], pyproject: dict[str, Any]
) -> None:
    (deployment,) = helm_values["dagster-user-deployments"]["deployments"]
    assert deployment["codeServerArgs"] == ["-m", "geo_assets.definitions"]
    assert deployment["image"]["tag"] == pyproject["project"]["version"]
    assert deployment["includeConfigInLaunchedRuns"] == {"enabled": True}
    assert deployment["envSecrets"], "secrets come from a Kubernetes Secret"
    env = deployment["env"]
    assert sorted(set(env) - settings_env_names()) == []
    assert [key for key in env if SECRET_NAME.search(key)] == []
    assert [value for value in env.values() if URI_CREDENTIALS.search(str(value))] == []
    assert helm_values["postgresql"]["postgresqlPassword"] == ""
    mounts = {m["name"]: m["mountPath"] for m in deployment["volumeMounts"]}
    assert mounts == {"georag-home": env["GEO_RAG_HOME"], "georag-papers": env["GEO_RAG_PAPERS"]}


def _helm_unknown_launcher_key(values: dict[str, Any]) -> None:
    values["runLauncher"]["config"]["k8sRunLauncher"]["jobSpec"] = {"ttlSecondsAfterFinished": 60}


def _helm_pool_typo(values: dict[str, Any]) -> None:
    values["concurrency"]["pools"]["defaultlimit"] = 1


def _helm_bad_granularity(values: dict[str, Any]) -> None:
    values["concurrency"]["pools"]["granularity"] = "ops"


def _helm_monitoring_typo(values: dict[str, Any]) -> None:
    values["dagsterDaemon"]["runMonitoring"]["maxResumeRunAttempt"] = 1


def _helm_limits_in_both_places(values: dict[str, Any]) -> None:
    values["dagsterDaemon"]["runCoordinator"]["config"]["queuedRunCoordinator"]["maxConcurrentRuns"] = 4


BROKEN_HELM: dict[str, Callable[[dict[str, Any]], None]] = {
    "unknown k8sRunLauncher key": _helm_unknown_launcher_key,
    "misspelt pools key": _helm_pool_typo,
    "bad pool granularity": _helm_bad_granularity,
    "misspelt runMonitoring key": _helm_monitoring_typo,
    "run limits in both places": _helm_limits_in_both_places,
}


@pytest.mark.parametrize("breakage", sorted(BROKEN_HELM))
def test_broken_helm_values_fail(helm_values: dict[str, Any], breakage: str) -> None:
    broken = copy.deepcopy(helm_values)
    BROKEN_HELM[breakage](broken)
    assert schema_errors(HELM_SUBSET_SCHEMA, broken) + helm_instance_errors(broken) != []


# --------------------------------------------------------------------------------- Dockerfile


def dockerfile_args() -> dict[str, str]:
    return dict(re.findall(r"^ARG (\w+)=(\S+)$", DOCKERFILE.read_text(encoding="utf-8"), flags=re.M))


def test_dockerfile_pins_agree_with_pyproject_and_each_other(pyproject: dict[str, Any]) -> None:
    args = dockerfile_args()
    text = DOCKERFILE.read_text(encoding="utf-8")
    deps = pyproject["project"]["optional-dependencies"]["ingest"]
    assert f"torch=={args['TORCH_VERSION']}" in deps
    assert "download.pytorch.org/whl/cpu" in text and 'pip install ".[ingest,eval,llm]"' in text
    assert re.findall(r"^FROM (\S+)", text, flags=re.M) == ["python:3.11-slim"] * 3
    # the serving stage installs the serving role only: no torch, no Dagster
    serve = text[text.index("AS serve") :]
    assert 'pip install ".[serve]"' in serve and "torch" not in serve and "dagster" not in serve
    base = " ".join(pyproject["project"]["dependencies"])
    for heavy in ("torch", "dagster", "ragas", "matplotlib", "langchain", "sentence-transformers"):
        assert heavy not in base, heavy
    dagster = Version(args["DAGSTER_VERSION"])
    # the project pins the very Dagster release the image installs, and its Postgres library's
    assert f"dagster=={dagster}" in deps and f"dagster-webserver=={dagster}" in deps
    postgres = pyproject["project"]["optional-dependencies"]["postgres"]
    assert f"dagster-postgres=={args['DAGSTER_LIBS_VERSION']}" in postgres
    # dagster 1.M.P <-> libraries 0.(M+16).P, e.g. 1.13.27 <-> 0.29.27 (each library requires dagster==1.M.P)
    libs = Version(args["DAGSTER_LIBS_VERSION"])
    assert (libs.major, libs.minor, libs.micro) == (0, dagster.minor + 16, dagster.micro)
    for package in ("dagster-postgres", "dagster-k8s"):
        assert f'"{package}==${{DAGSTER_LIBS_VERSION}}"' in text
    for package in ("dagster", "dagster-webserver"):
        assert f'"{package}==${{DAGSTER_VERSION}}"' in text
