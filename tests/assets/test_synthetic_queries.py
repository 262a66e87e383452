"""The synthetic query generator: size, balance, de-duplication, determinism, LLM rows, files, template data."""

from __future__ import annotations

import json
import shutil
from collections import Counter, defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from geo_assets.queries import synthetic_queries as sq
from geo_assets.queries import template_data as qt
from geo_rag_runtime.errors import ServiceUnavailableError
from geo_rag_runtime.models import QUERY_TYPES


@pytest.fixture(scope="module")
def generated() -> pd.DataFrame:
    return sq.generate_synthetic_queries({}, n_per_type=600, seed=13)


def test_default_size_is_balanced_and_large_enough(generated: pd.DataFrame) -> None:
    assert len(generated) >= 2000
    assert Counter(generated["label"]) == dict.fromkeys(QUERY_TYPES, 600)
    assert list(generated.columns) == list(sq.COLUMNS)
    assert set(generated["generator"]) == {sq.TEMPLATE_GENERATOR}
    assert generated["query"].str.strip().str.len().min() >= 8


def test_shuffled_not_grouped_by_label(generated: pd.DataFrame) -> None:
    first = generated["label"].head(100)
    assert first.nunique() == len(QUERY_TYPES)


def test_no_exact_or_near_duplicates_survive(generated: pd.DataFrame) -> None:
    keys = generated["query"].map(sq.normalize_query)
    assert keys.is_unique
    # re-running the filter on the output removes nothing: no pair is above the cosine threshold
    assert sq.near_duplicate_mask(generated["query"].tolist()).all()


def test_every_template_contributes_and_types_have_many_templates(generated: pd.DataFrame) -> None:
    for label in QUERY_TYPES:
        assert len(sq.TEMPLATES[label]) >= 30
    counts = generated["template"].value_counts()
    assert len(counts) == sum(len(t) for t in sq.TEMPLATES.values())
    assert counts.min() >= 5  # no template starved by the de-duplication


def test_first_word_is_not_a_label_shortcut(generated: pd.DataFrame) -> None:
    """A classifier that only looks at the first word must do badly, else routing learns 'why'→hidden."""
    first = generated["query"].map(lambda q: sq.normalize_query(q).split()[0])
    table: dict[str, Counter[str]] = defaultdict(Counter)
    for word, label in zip(first, generated["label"], strict=True):
        table[word][label] += 1
    majority = {word: counts.most_common(1)[0][0] for word, counts in table.items()}
    accuracy = float(
        np.mean([majority[w] == label for w, label in zip(first, generated["label"], strict=True)])
    )
    assert accuracy < 0.65
    assert {"hidden_rationale", "interpretable_rationale"} <= set(table["why"])
    assert {"explicit_fact", "interpretable_rationale"} <= set(table["list"])
    assert len(table["what"]) == len(QUERY_TYPES) and len(table["how"]) == len(QUERY_TYPES)


def test_deterministic_for_a_seed_and_different_for_another() -> None:
    first = sq.generate_synthetic_queries({}, n_per_type=120, seed=5)
    again = sq.generate_synthetic_queries({}, n_per_type=120, seed=5)
    other = sq.generate_synthetic_queries({}, n_per_type=120, seed=6)
    pd.testing.assert_frame_equal(first, again)
    assert sq.dataset_version(first) == sq.dataset_version(again)
    assert sq.dataset_version(first) != sq.dataset_version(other)


def test_order_of_given_entities_does_not_matter() -> None:
    minerals = [f"mineral{chr(97 + i)}ite" for i in range(10)]
    forward = sq.generate_synthetic_queries({"Mineral": minerals}, n_per_type=80, seed=3)
    backward = sq.generate_synthetic_queries({"Mineral": minerals[::-1]}, n_per_type=80, seed=3)
    pd.testing.assert_frame_equal(forward, backward)


def test_given_entities_fill_the_slots_and_thin_types_are_topped_up() -> None:
    minerals = [f"testmineral{i}" for i in range(12)]
    frame = sq.generate_synthetic_queries({"Mineral": minerals, "Oxide": ["SiO2"]}, n_per_type=150, seed=2)
    words = set(" ".join(frame["query"].map(sq.normalize_query)).split())
    assert {f"testmineral{i}" for i in range(12)} <= words
    assert not words & {"zircon", "zircons", "olivine", "garnet"}  # given minerals replace the defaults
    assert "mgo" in words  # a single given oxide is topped up from the defaults
    prepared = sq.prepare_entities({"Rock": ["  basalt ", "Basalt", "x" * 80]})
    assert prepared["Rock"].count("basalt") == 1 and "x" * 80 not in prepared["Rock"]


def test_exact_dedup_drops_texts_seen_with_two_labels() -> None:
    rows = [
        {"query": "What is the εNd of MORB?", "label": "explicit_fact", "generator": "t", "template": "a"},
        {"query": "what is the  εNd of MORB", "label": "explicit_fact", "generator": "t", "template": "a"},
        {"query": "Why is X?", "label": "hidden_rationale", "generator": "t", "template": "b"},
        {"query": "why is x", "label": "interpretable_rationale", "generator": "t", "template": "c"},
    ]
    kept = sq._exact_dedup(rows)
    assert [row["query"] for row in kept] == ["What is the εNd of MORB?"]


def test_near_duplicate_filter_keeps_first_of_similar_texts() -> None:
    texts = [
        "How does fractional crystallization of plagioclase change the Eu anomaly of the residual melt?",
        "How does fractional crystallization of plagioclase change the Eu anomaly of the residual melts?",
        "What is the half-life of 147Sm?",
    ]
    assert sq.near_duplicate_mask(texts).tolist() == [True, False, True]


def test_plural() -> None:
    assert [sq.plural(w) for w in ("basalt", "gneiss", "MORB", "quartzy", "apatite")] == [
        "basalts",
        "gneisses",
        "MORBs",
        "quartzies",
        "apatites",
    ]


_TOPICS = (
    "boron isotopes in Kamchatka",
    "zircon Hf in the Pilbara",
    "Os in Kaapvaal peridotites",
    "Li in altered oceanic crust",
    "Mo isotopes of Andean porphyries",
    "Ba/Th in Mariana lavas",
    "He in Icelandic olivines",
    "Sr in Deccan basalts",
    "Nb/Ta in Tanzanian carbonatites",
    "Pb in Samoan lavas",
    "Fe isotopes of komatiites",
    "Mg isotopes of eclogites",
    "Cr in chromitites",
)


class FakeLLM:
    """Returns canned JSON; one valid question per call plus rows the validator must reject."""

    name = "fake-llm-1"

    def __init__(self, fail_for: str | None = None) -> None:
        self.calls: list[str] = []
        self.fail_for = fail_for

    def complete_json(
        self, system: str, user: str, *, json_schema: dict[str, Any], max_tokens: int = 1024
    ) -> dict[str, Any]:
        assert json_schema["properties"]["queries"]["items"]["properties"]["label"]["enum"] == list(
            QUERY_TYPES
        )
        assert max_tokens > 0
        label = next(t for t in QUERY_TYPES if f"'{t}'" in user)
        self.calls.append(label)
        if label == self.fail_for:
            raise ServiceUnavailableError("endpoint busy")
        n = len(self.calls)
        topic = _TOPICS[n % len(_TOPICS)]
        return {
            "queries": [
                {"query": f"LLM question: {topic} ({label})?", "label": label},
                {"query": f"llm question {topic} ({label})", "label": label},  # duplicate once normalized
                {"query": "   ", "label": label},  # empty
                {"query": "A question with a label outside the set?", "label": "opinion"},
                {
                    "query": f"Mislabelled question number {n} here?",
                    "label": "explicit_fact" if label != "explicit_fact" else "hidden_rationale",
                },
                "not an object",
            ]
        }


def test_llm_rows_are_validated_deduplicated_and_kept_balanced() -> None:
    llm = FakeLLM()
    frame = sq.generate_synthetic_queries(
        {}, n_per_type=100, seed=1, llm=llm, llm_per_type=3, llm_batch_size=1
    )
    assert Counter(frame["label"]) == dict.fromkeys(QUERY_TYPES, 100)
    llm_rows = frame[frame["generator"] == "fake-llm-1"]
    # each call yields 2 valid rows (one a duplicate), so 2 calls reach llm_per_type=3 for a label;
    # the duplicates go in de-duplication, leaving one row per call
    assert Counter(llm.calls) == dict.fromkeys(QUERY_TYPES, 2)
    assert Counter(llm_rows["label"]) == dict.fromkeys(QUERY_TYPES, 2)
    assert llm_rows["query"].str.startswith("LLM question:").all()
    assert llm_rows["query"].is_unique
    assert not frame["query"].str.contains("outside the set|Mislabelled", regex=True).any()
    stats = frame.attrs["generation"]
    assert stats["llm_rows_kept"] == 8 and stats["llm_rejected"] == 8 * 4 and stats["llm_errors"] == []


def test_llm_failure_degrades_to_templates_and_is_recorded() -> None:
    frame = sq.generate_synthetic_queries(
        {}, n_per_type=60, seed=1, llm=FakeLLM(fail_for="hidden_rationale"), llm_per_type=2, llm_batch_size=1
    )
    assert Counter(frame["label"]) == dict.fromkeys(QUERY_TYPES, 60)
    assert not ((frame["generator"] != sq.TEMPLATE_GENERATOR) & (frame["label"] == "hidden_rationale")).any()
    assert len(frame.attrs["generation"]["llm_errors"]) == 2


def test_write_query_dataset_round_trips(tmp_path: Any) -> None:
    frame = sq.generate_synthetic_queries({}, n_per_type=40, seed=4)
    paths = sq.write_query_dataset(frame, tmp_path / "out")
    assert set(paths) == {"csv", "parquet", "manifest"}
    pd.testing.assert_frame_equal(sq.read_query_dataset(paths["csv"]), frame, check_dtype=False)
    pd.testing.assert_frame_equal(sq.read_query_dataset(paths["parquet"]), frame)
    manifest = json.loads(paths["manifest"].read_text(encoding="utf-8"))
    assert manifest["version"] == sq.dataset_version(frame)
    assert manifest["rows"] == 160 and manifest["labels"] == dict.fromkeys(QUERY_TYPES, 40)
    changed = frame.copy()
    changed.loc[0, "query"] = changed.loc[0, "query"] + " (edited)"
    assert sq.dataset_version(changed) != manifest["version"]
    with pytest.raises(ValueError, match="unknown labels"):
        sq.write_query_dataset(frame.assign(label="chit-chat"), tmp_path / "bad")


def test_seed_queries_are_a_labelled_test_split_the_templates_did_not_write(generated: pd.DataFrame) -> None:
    seed = sq.load_seed_queries()
    assert list(seed.columns) == ["query", "label"]
    assert Counter(seed["label"]).most_common()[-1][1] >= 25 and set(seed["label"]) == set(QUERY_TYPES)
    assert seed["query"].map(sq.normalize_query).is_unique
    # the templates write at most one seed question verbatim ("What is the half-life of 147Sm?"),
    # which training removes (decontamination); everything else is worded differently
    generated_keys = set(generated["query"].map(sq.normalize_query))
    assert sum(sq.normalize_query(q) in generated_keys for q in seed["query"]) <= 1


def test_generation_from_the_project_vocabulary() -> None:
    """What the asset does: slots filled from the vocabulary (graph entities are merged in the same way)."""
    from geo_rag_runtime import vocab

    vocabulary = vocab.load_vocabulary()
    entities = {etype: vocabulary.entities(etype) for etype in vocabulary.types}
    frame = sq.generate_synthetic_queries(entities, n_per_type=300, seed=13)
    assert Counter(frame["label"]) == dict.fromkeys(QUERY_TYPES, 300)
    words = set(" ".join(frame["query"].map(sq.normalize_query)).split())
    # minerals the vocabulary has and the fallback list does not are used
    extra = {m.lower() for m in vocabulary.entities("Mineral")} - set(sq.DEFAULT_ENTITIES["Mineral"])
    assert words & {m for m in extra if " " not in m and "-" not in m}


def test_template_data_is_loaded_once_and_backs_the_module() -> None:
    data = qt.load_template_data()
    assert qt.load_template_data() is data and qt.load_template_data(qt.TEMPLATES_DIR) is data
    assert sq.TEMPLATES is data.templates and sq.DEFAULT_ENTITIES is data.default_entities
    assert list(data.templates) == list(QUERY_TYPES)
    assert data.plural_slots <= set(data.slots) and set(data.slots.values()) <= set(data.default_entities)


def _template_copy(tmp_path: Path) -> Path:
    folder = tmp_path / "templates"
    shutil.copytree(qt.TEMPLATES_DIR, folder)
    return folder


def _edit(path: Path, change: Callable[[dict[str, Any]], object]) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    change(data)
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")


_BROKEN: list[tuple[str, str, Callable[[dict[str, Any]], object], str]] = [
    (
        "unknown key in a type file",
        "explicit_fact.json",
        lambda d: d.update(notes="x"),
        r"unknown key\(s\) \['notes'\]",
    ),
    (
        "unknown key in shared",
        "shared.json",
        lambda d: d.update(conditions=["x"]),
        r"unknown key\(s\) \['conditions'\]",
    ),
    ("missing key", "shared.json", lambda d: d.pop("suffixes"), r"missing key\(s\) \['suffixes'\]"),
    (
        "empty templates",
        "hidden_rationale.json",
        lambda d: d["templates"].clear(),
        "templates is an empty list",
    ),
    (
        "empty entity list",
        "shared.json",
        lambda d: d["default_entities"].update(Mineral=[]),
        "default_entities.Mineral is an empty list",
    ),
    (
        "empty word list",
        "shared.json",
        lambda d: d["word_lists"].update(condition=[]),
        "word_lists.condition is an empty list",
    ),
    (
        "blank template",
        "implicit_reasoning.json",
        lambda d: d["templates"].append("  "),
        r"templates\[\d+\] is a blank string",
    ),
    ("non-string", "shared.json", lambda d: d["prefixes"].append(3), r"prefixes\[\d+\] is not a string"),
    (
        "slot without filler",
        "interpretable_rationale.json",
        lambda d: d["templates"].append("What colour is {colour}?"),
        r"templates\[\d+\]: slot \{colour\} has no filler",
    ),
    (
        "second slot without filler",
        "explicit_fact.json",
        lambda d: d["templates"].append("Is {rock} older than {gem2}?"),
        r"slot \{gem2\} has no filler",
    ),
    (
        "slot in a modifier without filler",
        "shared.json",
        lambda d: d["modifiers"].append(" in {basin}"),
        r"modifiers\[\d+\]: slot \{basin\} has no filler",
    ),
    (
        "entity type without defaults",
        "shared.json",
        lambda d: d["slots"].update(gem="Gemstone"),
        "slots.gem: entity type 'Gemstone' has no default_entities list",
    ),
    (
        "plural of no slot",
        "shared.json",
        lambda d: d["plural_slots"].append("oxides"),
        r"\['oxides'\] are not listed under slots",
    ),
    (
        "mod in a modifier",
        "shared.json",
        lambda d: d["modifiers"].append(" and{mod}"),
        r"\{mod\} is only allowed",
    ),
    (
        "malformed slot",
        "explicit_fact.json",
        lambda d: d["templates"].append("What is the {Ratio} of {rock}?"),
        "malformed slot",
    ),
    (
        "wrong label",
        "explicit_fact.json",
        lambda d: d.update(label="explicit_facts"),
        "expected 'explicit_fact'",
    ),
    (
        "template in two types",
        "hidden_rationale.json",
        lambda d: d["templates"].append("What is the half-life of {isotope}?"),
        r"is also listed in .*explicit_fact\.json",
    ),
]


@pytest.mark.parametrize(
    ("file_name", "change", "message"), [c[1:] for c in _BROKEN], ids=[c[0] for c in _BROKEN]
)
def test_template_loader_rejects_bad_data_naming_the_file(
    tmp_path: Path, file_name: str, change: Callable[[dict[str, Any]], object], message: str
) -> None:
    folder = _template_copy(tmp_path)
    qt.load_template_data(folder)  # the unchanged copy is valid
    folder = folder.rename(tmp_path / "edited")  # a new folder, so the cached result is not reused
    _edit(folder / file_name, change)
    with pytest.raises(qt.TemplateDataError, match=message) as raised:
        qt.load_template_data(folder)
    assert str(folder.resolve() / file_name) in str(raised.value)


def test_template_loader_rejects_missing_and_invalid_files(tmp_path: Path) -> None:
    folder = _template_copy(tmp_path)
    (folder / "hidden_rationale.json").unlink()
    with pytest.raises(qt.TemplateDataError, match=r"hidden_rationale\.json: template file is missing"):
        qt.load_template_data(folder)
    folder = _template_copy(tmp_path / "second")
    (folder / "shared.json").write_text('{"slots": {', encoding="utf-8")
    with pytest.raises(qt.TemplateDataError, match=r"shared\.json: not valid JSON"):
        qt.load_template_data(folder)
    (folder / "shared.json").write_text("[]", encoding="utf-8")
    with pytest.raises(qt.TemplateDataError, match=r"shared\.json: expected a JSON object"):
        qt.load_template_data(folder)
