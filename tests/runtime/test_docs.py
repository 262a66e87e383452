"""The documentation cannot drift from the code.

docs/user-guide.md must name every setting (with its default), every `geo-rag` command, flag and
choice, and every HTTP route with its parameters; every relative link in README.md and docs/ must
lead to a file (and heading) that exists; the README stays short and keeps CI's test command.
Each test names exactly what is missing. Fast: nothing is ingested and no store is opened.
"""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import AliasChoices
from pydantic.fields import FieldInfo

from geo_rag_runtime.cli import build_parser
from geo_rag_runtime.settings import Settings

REPO = Path(__file__).resolve().parents[2]
README = REPO / "README.md"
DOCS = REPO / "docs"
GUIDE = DOCS / "user-guide.md"
TEST_COMMAND = ".venv/bin/python -m pytest"  # what .ci/run runs; the README must say the same
README_MAX_LINES = 200

_FENCE = re.compile(r"^\s*(```|~~~)")
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")


# --------------------------------------------------------------------------- markdown helpers


def _prose_lines(text: str) -> Iterator[tuple[int, str, bool]]:
    """(line number, line, inside a fenced code block) for every line."""
    fenced = False
    for number, line in enumerate(text.splitlines(), 1):
        if _FENCE.match(line):
            fenced = not fenced
            yield number, line, True
            continue
        yield number, line, fenced


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link in a heading keeps its text
    text = re.sub(r"[^\w\- ]", "", text.strip().lower())
    return text.replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    seen: dict[str, int] = {}
    anchors = set()
    for _, line, fenced in _prose_lines(path.read_text(encoding="utf-8")):
        match = None if fenced else _HEADING.match(line)
        if match:
            slug = _slug(match.group(2))
            count = seen.get(slug, 0)
            seen[slug] = count + 1
            anchors.add(slug if count == 0 else f"{slug}-{count}")
    return anchors


def _section(text: str, title_pattern: str) -> str:
    """The section whose heading matches ``title_pattern``, up to the next heading of its level or
    above ('' when there is none)."""
    lines = text.splitlines()
    for start, line in enumerate(lines):
        match = _HEADING.match(line)
        if match and re.search(title_pattern, match.group(2)):
            level = len(match.group(1))
            fenced = False
            for end in range(start + 1, len(lines)):
                if _FENCE.match(lines[end]):
                    fenced = not fenced
                following = None if fenced else _HEADING.match(lines[end])
                if following and len(following.group(1)) <= level:
                    return "\n".join(lines[start:end])
            return "\n".join(lines[start:])
    return ""


def _word(token: str, text: str) -> bool:
    """``token`` occurs in ``text`` as a whole word (``--top-k`` is not found inside ``--top-kk``)."""
    return re.search(rf"(?<![\w-]){re.escape(token)}(?![\w-])", text) is not None


def _guide() -> str:
    return GUIDE.read_text(encoding="utf-8")


# --------------------------------------------------------------------------- (a) settings


def _env_name(name: str, field: FieldInfo) -> str:
    """The environment variable pydantic-settings reads for a field."""
    alias = field.validation_alias
    if isinstance(alias, AliasChoices):
        return str(alias.choices[0])
    if isinstance(alias, str):
        return alias
    return (str(Settings.model_config.get("env_prefix", "")) + name).upper()


def _default_matches(default: Any, cell: str) -> bool:
    """The documented default (a table cell) says the same as the field's default."""
    text = cell.replace("`", "").strip()
    if default is None:
        return text in {"–", "-"}
    if isinstance(default, bool):
        return text.lower() == str(default).lower()
    if isinstance(default, int | float):
        try:
            return float(text) == float(default)
        except ValueError:
            return False
    if isinstance(default, list | dict):
        try:
            return bool(json.loads(text) == default)
        except ValueError:
            return False
    return text == str(default)


def _configuration_rows() -> dict[str, str]:
    """variable → documented default, from the tables of the user guide's Configuration section."""
    section = _section(_guide(), r"^Configuration$")
    rows = {}
    for line in section.splitlines():
        match = re.match(r"^\|\s*`([A-Z][A-Z0-9_]*)`\s*\|\s*([^|]*?)\s*\|", line)
        if match:
            rows[match.group(1)] = match.group(2)
    return rows


def test_every_setting_is_documented_with_its_default() -> None:
    documented = _configuration_rows()
    assert documented, "docs/user-guide.md has no '## Configuration' section with a settings table"
    problems = []
    expected = {}
    for name, field in Settings.model_fields.items():
        env = _env_name(name, field)
        expected[env] = name
        default = field.get_default(call_default_factory=True)
        if env not in documented:
            problems.append(
                f"setting {name!r} (environment variable {env}, default {default!r}) is not in the "
                "Configuration tables of docs/user-guide.md"
            )
        elif not _default_matches(default, documented[env]):
            problems.append(
                f"{env}: docs/user-guide.md says the default is {documented[env]!r}, Settings has {default!r}"
            )
    for env in sorted(set(documented) - set(expected)):
        problems.append(
            f"docs/user-guide.md documents {env}, which geo_rag_runtime.settings.Settings does not read"
        )
    assert not problems, "\n".join(problems)


# --------------------------------------------------------------------------- (b) the command line


def _commands(
    parser: argparse.ArgumentParser, path: tuple[str, ...] = ()
) -> Iterator[tuple[tuple[str, ...], argparse.ArgumentParser]]:
    """Every (sub)command of the parser, nested ones included, with its own parser."""
    if path:
        yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                yield from _commands(child, (*path, name))


def _options(parser: argparse.ArgumentParser) -> tuple[list[str], list[str]]:
    """(option strings, choices of options and positionals) of one parser, help left out."""
    flags: list[str] = []
    choices: list[str] = []
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction | argparse._SubParsersAction):
            continue
        flags += action.option_strings
        choices += [str(c) for c in action.choices or ()]
    return flags, choices


def _reference_lines() -> dict[str, str]:
    """Command path ('ask', 'llm') → its synopsis line in the user guide's command reference."""
    section = _section(_guide(), r"^Command reference$")
    lines = {}
    for _, line, fenced in _prose_lines(section):
        match = re.match(r"^geo-rag ((?:[a-z][\w-]*)(?: [a-z][\w-]*)*)", line) if fenced else None
        if match:
            words = match.group(1).split()
            lines[" ".join(words)] = line
    return lines


def test_every_command_flag_and_choice_is_documented() -> None:
    guide = _guide()
    reference = _reference_lines()
    assert reference, "docs/user-guide.md has no '## Command reference' with a geo-rag synopsis block"
    problems = []
    for path, parser in _commands(build_parser()):
        command = " ".join(path)
        flags, choices = _options(parser)
        # the synopsis line: 'geo-rag llm pull|start|...' is found under 'llm'
        line = next((reference[key] for key in reference if key.split()[: len(path)] == list(path)), None)
        if line is None:
            problems.append(f"`geo-rag {command}` has no line in the command reference of docs/user-guide.md")
        else:
            problems += [
                f"`geo-rag {command}`: {flag} is missing from its command-reference line"
                for flag in flags
                if not _word(flag, line)
            ]
            problems += [
                f"`geo-rag {command}`: the choice {choice!r} is missing from its command-reference line"
                for choice in choices
                if not _word(choice, line)
            ]
            problems += [
                f"`geo-rag {command}`: the command reference shows {flag}, which the parser does not have"
                for flag in re.findall(r"(?<![\w-])--?[a-z][\w-]*", line.split("geo-rag", 1)[1])
                if flag not in flags
            ]
        # its own section explains every flag
        section = _section(guide, rf"`geo-rag {re.escape(command)}`")
        if not section:
            problems.append(f"`geo-rag {command}` has no section (a heading naming `geo-rag {command}`)")
            continue
        problems += [
            f"`geo-rag {command}`: {flag} is not explained in its section of docs/user-guide.md"
            for flag in flags
            if not _word(flag, section)
        ]
    assert not problems, "\n".join(problems)


# --------------------------------------------------------------------------- (c) HTTP


def _app_routes() -> tuple[list[str], dict[str, list[str]]]:
    """('METHOD /path' of every route, parameter names per route from the OpenAPI schema)."""
    from geo_rag_runtime.server import create_app

    app = create_app(Settings())  # the service is built only at start-up: nothing is opened here
    routes = sorted(
        f"{method} {route.path}"
        for route in app.routes
        for method in getattr(route, "methods", None) or ()
        if method != "HEAD"
    )
    schema = app.openapi()
    components = schema.get("components", {}).get("schemas", {})
    parameters: dict[str, list[str]] = {}
    for route_path, operations in schema["paths"].items():
        for method, operation in operations.items():
            names = [p["name"] for p in operation.get("parameters", [])]
            body = operation.get("requestBody", {}).get("content", {}).get("application/json", {})
            ref = body.get("schema", {}).get("$ref", "")
            if ref:
                names += list(components[ref.rsplit("/", 1)[-1]].get("properties", {}))
            parameters[f"{method.upper()} {route_path}"] = names
    return routes, parameters


def test_every_http_route_and_parameter_is_documented() -> None:
    section = _section(_guide(), r"The HTTP service")
    assert section, "docs/user-guide.md has no section on the HTTP service"
    routes, parameters = _app_routes()
    problems = [
        f"HTTP route {route} is not in the HTTP section of docs/user-guide.md"
        for route in routes
        if not re.search(re.escape(route) + r"(?![\w/-])", section)
    ]
    for route, names in parameters.items():
        problems += [
            f"HTTP {route}: the parameter {name!r} is not in the HTTP section of docs/user-guide.md"
            for name in names
            if not re.search(rf"[`\"]{re.escape(name)}[`\"]", section)
        ]
    known = set(routes)
    for path in [README, *sorted(DOCS.glob("*.md"))]:
        for method, route in re.findall(
            r"\b(GET|POST|PUT|PATCH|DELETE) (/[\w./{}-]*\w)", path.read_text(encoding="utf-8")
        ):
            if f"{method} {route}" not in known:
                problems.append(
                    f"{path.relative_to(REPO)} documents {method} {route}, which the server does not have"
                )
    assert not problems, "\n".join(problems)


# --------------------------------------------------------------------------- (d) links


_LINK = re.compile(r"!?\[(?:[^\]\[]|\[[^\]]*\])*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


def _relative_links(path: Path) -> Iterator[tuple[int, str]]:
    """(line, target) of every link outside code; link text may run over a line break."""
    prose = "\n".join(
        "" if fenced else re.sub(r"`[^`]*`", lambda code: " " * len(code.group()), line)
        for _, line, fenced in _prose_lines(path.read_text(encoding="utf-8"))
    )
    for match in _LINK.finditer(prose):
        target = match.group(1)
        if not re.match(r"^[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto: are not checked
            yield prose.count("\n", 0, match.start()) + 1, target


def _broken(source: Path, target: str) -> str | None:
    """Why the link ``target`` written in ``source`` leads nowhere, or None."""
    file_part, _, anchor = target.partition("#")
    resolved = (source.parent / file_part).resolve() if file_part else source
    if not resolved.exists():
        return "no such file"
    if anchor and resolved.suffix == ".md" and anchor not in _anchors(resolved):
        return f"no heading with the anchor #{anchor} in {resolved.relative_to(REPO)}"
    return None


def test_every_relative_link_resolves() -> None:
    problems = []
    for path in [README, *sorted(DOCS.glob("*.md"))]:
        for number, target in _relative_links(path):
            why = _broken(path, target)
            if why:
                problems.append(f"{path.relative_to(REPO)}:{number}: link {target} is broken ({why})")
    assert not problems, "\n".join(problems)


def _code_files() -> Iterator[Path]:
    for folder in ("geo_rag_runtime", "geo_assets", "scripts", "tests", "deploy", "data/evaluation", ".ci"):
        for path in sorted((REPO / folder).rglob("*")):
            if path.is_file() and path.suffix in {".py", ".md", ".toml", ".yaml", ".yml", ""}:
                yield path
    yield from (REPO / name for name in ("pyproject.toml", "dagster.yaml", "workspace.yaml"))


def test_references_to_the_docs_from_code_resolve() -> None:
    """Comments and docstrings point at docs/<page>.md#<heading>; the page and heading must exist, and
    no file may point at design notes that are not part of the repository."""
    problems = []
    for path in _code_files():
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        for number, line in enumerate(text.splitlines(), 1):
            where = f"{path.relative_to(REPO)}:{number}"
            for page, anchor in re.findall(r"docs/([\w-]+\.md)(?:#([\w-]+))?", line):
                target = DOCS / page
                if not target.is_file():
                    problems.append(f"{where}: docs/{page} does not exist")
                elif anchor and anchor not in _anchors(target):
                    problems.append(f"{where}: docs/{page} has no heading with the anchor #{anchor}")
            if path != Path(__file__).resolve() and re.search(r"\b(DESIGN|PAPER)\.md\b", line):
                problems.append(
                    f"{where}: refers to a design note that is not in the repository; point at docs/"
                )
    assert not problems, "\n".join(problems)


# --------------------------------------------------------------------------- (e) the README


def test_readme_is_short_and_keeps_the_two_commands() -> None:
    lines = README.read_text(encoding="utf-8").splitlines()
    commands = [line.split("#", 1)[0].strip() for line in lines]
    problems = []
    if len(lines) >= README_MAX_LINES:
        problems.append(
            f"README.md has {len(lines)} lines; keep it under {README_MAX_LINES} and move detail to docs/"
        )
    if TEST_COMMAND not in commands:
        problems.append(f"README.md has no line `{TEST_COMMAND}` (the test command CI runs)")
    if "scripts/quickstart" not in commands:
        problems.append("README.md has no line `scripts/quickstart`")
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    if TEST_COMMAND not in [line.strip() for line in ci]:
        problems.append(f".ci/run no longer runs `{TEST_COMMAND}`, the README's test command")
    linked = {target.partition("#")[0] for _, target in _relative_links(README)}
    problems += [
        f"README.md does not link docs/{page.name}"
        for page in sorted(DOCS.glob("*.md"))
        if f"docs/{page.name}" not in linked
    ]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize(
    ("heading", "slug"),
    [
        ("Ingest papers: `geo-rag ingest`", "ingest-papers-geo-rag-ingest"),
        ("The `--json` object", "the---json-object"),
        ('"Not found in the corpus"', "not-found-in-the-corpus"),
        ("Results on the 17-paper corpus set", "results-on-the-17-paper-corpus-set"),
    ],
)
def test_anchors_follow_github(heading: str, slug: str) -> None:
    assert _slug(heading) == slug
