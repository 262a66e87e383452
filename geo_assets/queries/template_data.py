"""Load and validate the synthetic-query templates kept as JSON in ``templates/`` (schema: its README.md).

The data (question templates per query type, slot → entity type map, word lists, modifiers, noise
prefixes/suffixes, default entities) is read once per folder and checked before any question is
generated: a missing file, invalid JSON, an unknown or missing key, an empty list or object, a
non-string entry, a slot that nothing fills, a malformed slot or a template listed twice raises
``TemplateDataError`` with the file's path in the message.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

from geo_rag_runtime.models import QUERY_TYPES

TEMPLATES_DIR = Path(__file__).resolve().parent / "templates"
SHARED_FILE = "shared.json"
SLOT = re.compile(r"\{([a-z]+)(2?)\}")  # "{rock}"; "{rock2}" takes a value different from "{rock}"
MODIFIER_SLOT = "mod"  # "{mod}" (templates only): replaced by one of the modifiers, often ""
GENERATED_SLOTS = frozenset({"sample"})  # filled by code (a made-up sample id), not from a list

_SHARED_KEYS = (
    "slots",
    "plural_slots",
    "word_lists",
    "modifiers",
    "prefixes",
    "suffixes",
    "default_entities",
)
_TYPE_KEYS = ("label", "templates")


class TemplateDataError(ValueError):
    """A template file is missing, malformed or inconsistent; the message names the file."""


@dataclass(frozen=True)
class TemplateData:
    """The validated contents of the template folder (read-only mappings, tuples of strings)."""

    templates: Mapping[str, tuple[str, ...]]  # query type → templates; a template's id is its position
    slots: Mapping[str, str]  # slot name → entity type it draws from
    plural_slots: frozenset[str]  # slots whose value is put in the plural ("rocks")
    word_lists: Mapping[str, tuple[str, ...]]  # slot name → fixed values ("condition")
    modifiers: tuple[str, ...]
    prefixes: tuple[str, ...]
    suffixes: tuple[str, ...]
    default_entities: Mapping[str, tuple[str, ...]]  # entity type → fallback names


def load_template_data(directory: str | Path | None = None) -> TemplateData:
    """The templates in ``directory`` (default: the package's ``templates/``), read and checked once."""
    return _load(Path(directory).resolve() if directory is not None else TEMPLATES_DIR)


@functools.lru_cache(maxsize=8)
def _load(folder: Path) -> TemplateData:
    shared_path = folder / SHARED_FILE
    shared = _read_object(shared_path, _SHARED_KEYS)
    slots = _object(shared_path, "slots", shared["slots"])
    word_lists = {
        name: _strings(shared_path, f"word_lists.{name}", values)
        for name, values in _object(shared_path, "word_lists", shared["word_lists"]).items()
    }
    defaults = {
        etype: _strings(shared_path, f"default_entities.{etype}", names)
        for etype, names in _object(shared_path, "default_entities", shared["default_entities"]).items()
    }
    for name, etype in slots.items():
        _check_slot_name(shared_path, "slots", name)
        if not isinstance(etype, str) or etype not in defaults:
            raise TemplateDataError(
                f"{shared_path}: slots.{name}: entity type {etype!r} has no default_entities list, "
                "so the slot would have no filler"
            )
    for name in word_lists:
        _check_slot_name(shared_path, "word_lists", name)
        if name in slots:
            raise TemplateDataError(f"{shared_path}: word_lists.{name}: slot is also listed under slots")
    plural_slots = _strings(shared_path, "plural_slots", shared["plural_slots"])
    unknown_plurals = sorted(set(plural_slots) - set(slots))
    if unknown_plurals:
        raise TemplateDataError(f"{shared_path}: plural_slots: {unknown_plurals} are not listed under slots")
    for where, values in [*word_lists.items(), *defaults.items()]:
        for value in values:
            if "{" in value or "}" in value:
                raise TemplateDataError(f"{shared_path}: {where}: value {value!r} contains a brace")
    fillable = set(slots) | set(word_lists) | GENERATED_SLOTS
    modifiers = _strings(shared_path, "modifiers", shared["modifiers"], allow_empty=True)
    prefixes = _strings(shared_path, "prefixes", shared["prefixes"])
    suffixes = _strings(shared_path, "suffixes", shared["suffixes"])
    for key, texts in (("modifiers", modifiers), ("prefixes", prefixes), ("suffixes", suffixes)):
        for i, text in enumerate(texts):
            _check_slots(shared_path, f"{key}[{i}]", text, fillable, allow_modifier=False)

    templates: dict[str, tuple[str, ...]] = {}
    first_seen: dict[str, Path] = {}
    for label in QUERY_TYPES:
        path = folder / f"{label}.json"
        data = _read_object(path, _TYPE_KEYS)
        if data["label"] != label:
            raise TemplateDataError(
                f"{path}: label is {data['label']!r}, expected {label!r} (the file's name)"
            )
        texts = _strings(path, "templates", data["templates"])
        for i, text in enumerate(texts):
            _check_slots(path, f"templates[{i}]", text, fillable, allow_modifier=True)
            if text in first_seen:
                raise TemplateDataError(
                    f"{path}: templates[{i}] {text!r} is also listed in {first_seen[text]}"
                )
            first_seen[text] = path
        templates[label] = texts

    return TemplateData(
        templates=MappingProxyType(templates),
        slots=MappingProxyType(dict(slots)),
        plural_slots=frozenset(plural_slots),
        word_lists=MappingProxyType(word_lists),
        modifiers=modifiers,
        prefixes=prefixes,
        suffixes=suffixes,
        default_entities=MappingProxyType(defaults),
    )


def _read_object(path: Path, keys: tuple[str, ...]) -> dict[str, Any]:
    """A JSON file holding an object with exactly ``keys``."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise TemplateDataError(f"{path}: template file is missing") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise TemplateDataError(f"{path}: not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise TemplateDataError(f"{path}: expected a JSON object at the top level")
    unknown = sorted(set(data) - set(keys))
    if unknown:
        raise TemplateDataError(f"{path}: unknown key(s) {unknown}; allowed: {list(keys)}")
    missing = [key for key in keys if key not in data]
    if missing:
        raise TemplateDataError(f"{path}: missing key(s) {missing}")
    return data


def _object(path: Path, where: str, value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise TemplateDataError(f"{path}: {where} must be a JSON object")
    if not value:
        raise TemplateDataError(f"{path}: {where} is empty")
    return value


def _strings(path: Path, where: str, value: Any, *, allow_empty: bool = False) -> tuple[str, ...]:
    """A non-empty list of strings; blank strings only where ``allow_empty`` (modifiers)."""
    if not isinstance(value, list):
        raise TemplateDataError(f"{path}: {where} must be a list of strings")
    if not value:
        raise TemplateDataError(f"{path}: {where} is an empty list")
    for i, item in enumerate(value):
        if not isinstance(item, str):
            raise TemplateDataError(f"{path}: {where}[{i}] is not a string: {item!r}")
        if not allow_empty and not item.strip():
            raise TemplateDataError(f"{path}: {where}[{i}] is a blank string")
    return tuple(value)


def _check_slot_name(path: Path, where: str, name: str) -> None:
    if not re.fullmatch(r"[a-z]+", name) or name in GENERATED_SLOTS or name == MODIFIER_SLOT:
        raise TemplateDataError(
            f"{path}: {where}: invalid slot name {name!r} (lower-case letters only; "
            f"{sorted(GENERATED_SLOTS | {MODIFIER_SLOT})} are reserved)"
        )


def _check_slots(path: Path, where: str, text: str, fillable: set[str], *, allow_modifier: bool) -> None:
    """Every ``{slot}`` in ``text`` has a filler; no stray braces."""
    for match in SLOT.finditer(text):
        name, second = match.groups()
        if name == MODIFIER_SLOT:
            if allow_modifier and not second:
                continue
            raise TemplateDataError(
                f"{path}: {where}: {match.group(0)} is only allowed as {{mod}} in templates"
            )
        if name not in fillable:
            raise TemplateDataError(
                f"{path}: {where}: slot {match.group(0)} has no filler "
                f"(known slots: {sorted(fillable | {MODIFIER_SLOT})})"
            )
    if "{" in SLOT.sub("", text) or "}" in SLOT.sub("", text):
        raise TemplateDataError(
            f"{path}: {where}: malformed slot in {text!r} (a slot is a lower-case name in braces, "
            "optionally ending in 2)"
        )
