"""Synthetic labelled questions for training the query-type classifier (docs/method.md#query-classification).

The paper generated its training set with an LLM. Offline we generate it from templates: many
phrasings per query type, slots filled with geochemical entities (the knowledge graph's entities
merged with the vocabulary, passed in by the asset), optional modifiers, and label-neutral noise
(casing, punctuation, filler prefixes). When an LLM is configured its questions are added first.
The templates, slot fillers, modifiers, noise and default entities are data, not code:
``templates/*.json`` next to this module (schema in ``templates/README.md``), loaded and validated by
``geo_assets.queries.template_data``. A template's id is its position in its file.

What separates the four types is the *kind of answer asked for*, not the first word, so every type
uses several question words and some words on purpose cross types:

- explicit_fact: a value, name, list, date or definition ("What is", "Which", "List", "Give",
  "Report", "How much", "How old", terse keyword queries).
- implicit_reasoning: a relation between two named things: effect, correlation, comparison,
  covariation ("How does X affect Y", "relationship between", "compare", "does X correlate").
- interpretable_rationale: the factors, criteria, evidence, assumptions or method choices that the
  literature lays out ("what factors", "which criteria", "what evidence", "why is X used for",
  "list the factors").
- hidden_rationale: explanations of observations that are not stated anywhere directly: anomalies,
  paradoxes, mechanisms, hypotheticals ("why do ... show anomalously", "what could explain",
  "how come", "what underlying mechanism", "if ..., why would").

Near duplicates are removed in two steps: exact duplicates after normalization (lower case, no
punctuation, collapsed spaces; a text seen with two labels is dropped entirely), then a greedy filter
on the cosine similarity of word 1–3-gram count vectors (the classifier's n-grams, hashed, without
IDF so that similarity is a property of the pair alone) that drops a question when it is more than
``NEAR_DUPLICATE_COSINE`` similar to one already kept.
"""

import hashlib
import json
import os
import random
import re
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import pandas as pd
from sklearn.feature_extraction.text import HashingVectorizer

from geo_assets.queries.template_data import MODIFIER_SLOT, SLOT, load_template_data
from geo_rag_runtime.errors import GeoRagError
from geo_rag_runtime.models import QUERY_TYPES
from geo_rag_runtime.prompts import WRITE_QUERIES

TEMPLATE_GENERATOR = "template-v1"
NEAR_DUPLICATE_COSINE = 0.9
MIN_ENTITIES_PER_TYPE = 8  # fewer than this and the type is topped up from DEFAULT_ENTITIES
COLUMNS = ("query", "label", "generator", "template")

# The templates, slot fillers, modifiers, noise and default entities are data: templates/*.json,
# read and validated once by geo_assets.queries.template_data (schema in templates/README.md).
_DATA = load_template_data()
TEMPLATES: Mapping[str, tuple[str, ...]] = _DATA.templates  # query type → templates (id = position)
# Fallback vocabulary: used for entity types the caller does not provide (or provides too few of),
# so that generation never depends on how much the knowledge graph holds yet.
DEFAULT_ENTITIES: Mapping[str, tuple[str, ...]] = _DATA.default_entities


class JsonLLM(Protocol):
    """The part of ``geo_rag_runtime.llm.LLMClient`` this module needs (a fake works in tests)."""

    @property
    def name(self) -> str: ...

    def complete_json(
        self, system: str, user: str, *, json_schema: dict[str, Any], max_tokens: int = 1024
    ) -> dict[str, Any]: ...


_NGRAMS = HashingVectorizer(ngram_range=(1, 3), n_features=1 << 20, alternate_sign=False, norm="l2")
_PUNCT = re.compile(r"[^\w\s]+", re.UNICODE)
_SPACES = re.compile(r"\s+")
_DOUBLE_THE = re.compile(r"\b(the) the\b", re.IGNORECASE)  # "in the {location}" with "the Andes"


def plural(noun: str) -> str:
    """English plural good enough for rock and mineral names ("gneiss" → "gneisses", "MORB" → "MORBs")."""
    if not noun:
        return noun
    if noun.isupper():
        return noun + "s"
    if noun.endswith(("s", "x", "sh", "ch", "z")):
        return noun + "es"
    if noun.endswith("y") and len(noun) > 1 and noun[-2] not in "aeiou":
        return noun[:-1] + "ies"
    return noun + "s"


def normalize_query(text: str) -> str:
    """Lower case, punctuation removed, spaces collapsed: the key for exact de-duplication."""
    return _SPACES.sub(" ", _PUNCT.sub(" ", text.lower())).strip()


def prepare_entities(entities: Mapping[str, Sequence[str]]) -> dict[str, list[str]]:
    """Clean, de-duplicate and sort the entities per type, topping up thin types from the defaults.

    Sorting makes the output depend on the *set* of entities, not on the order a graph query
    returned them in; overly long names (extraction noise) are dropped.
    """
    prepared: dict[str, list[str]] = {}
    for etype in sorted(set(DEFAULT_ENTITIES) | set(entities)):
        seen: dict[str, str] = {}
        for raw in entities.get(etype, ()):
            name = _SPACES.sub(" ", str(raw)).strip()
            if 1 <= len(name) <= 60 and "{" not in name and "}" not in name:
                seen.setdefault(name.casefold(), name)
        values = sorted(seen.values())
        if len(values) < MIN_ENTITIES_PER_TYPE:
            for name in DEFAULT_ENTITIES.get(etype, ()):
                seen.setdefault(name.casefold(), name)
            values = sorted(seen.values())
        if values:
            prepared[etype] = values
    return prepared


def _fill(template: str, entities: Mapping[str, Sequence[str]], rng: random.Random) -> str:
    """Fill a template's slots; a slot ending in 2 takes a value different from its base slot."""
    template = template.replace("{" + MODIFIER_SLOT + "}", rng.choice(_DATA.modifiers))
    chosen: dict[str, str] = {}

    def pick(match: re.Match[str]) -> str:
        slot, second = match.group(1), match.group(2)
        if slot in _DATA.word_lists:
            pool: Sequence[str] = _DATA.word_lists[slot]
        elif slot == "sample":
            return f"{rng.choice('ABCDGHKMNRSTZ')}{rng.choice('ABKLMRSTW')}-{rng.randint(1, 240)}"
        elif slot in _DATA.slots:
            pool = entities[_DATA.slots[slot]]
        else:
            raise KeyError(f"unknown template slot {{{slot}}}")
        base = _DATA.slots.get(slot, slot)
        value = rng.choice(pool)
        if second:
            for _ in range(10):
                if value != chosen.get(base):
                    break
                value = rng.choice(pool)
        else:
            chosen[base] = value
        return plural(value) if slot in _DATA.plural_slots else value

    return _DOUBLE_THE.sub(r"\1", SLOT.sub(pick, template))


def _add_noise(text: str, entities: Mapping[str, Sequence[str]], rng: random.Random) -> str:
    """Label-neutral surface noise: filler prefixes/suffixes, casing, punctuation, spacing."""
    if rng.random() < 0.12:
        prefix = _fill(rng.choice(_DATA.prefixes), entities, rng)
        first = text.split(" ", 1)[0]
        # "What is..." becomes "..., what is..."; acronyms and formulas ("MORB", "87Sr/86Sr") keep case
        text = prefix + (text[0].lower() + text[1:] if first[1:].islower() else text)
    if rng.random() < 0.06:
        text = text + rng.choice(_DATA.suffixes)
    roll = rng.random()
    if roll < 0.10:
        text = text.lower()
    elif roll < 0.14:
        text = text[0].lower() + text[1:]
    roll = rng.random()
    if roll < 0.12:
        text = text.rstrip("?.")
    elif roll < 0.15 and text.endswith("?"):
        text = text[:-1] + " ??"
    if rng.random() < 0.04:
        text = text.replace(" ", "  ", 1)
    return text


def _template_candidates(
    label: str, count: int, entities: Mapping[str, Sequence[str]], rng: random.Random
) -> list[dict[str, str]]:
    """``count`` candidates cycling through the label's templates, so every template contributes."""
    templates = TEMPLATES[label]
    rows = []
    for i in range(count):
        index = i % len(templates)
        text = _add_noise(_fill(templates[index], entities, rng), entities, rng)
        rows.append(
            {
                "query": text,
                "label": label,
                "generator": TEMPLATE_GENERATOR,
                "template": f"{label}:{index:02d}",
            }
        )
    return rows


_TYPE_DEFINITIONS = {
    "explicit_fact": "asks for one fact: a value, name, list, date or definition stated in a paper",
    "implicit_reasoning": "asks how two or more things are related: effects, correlations, comparisons; "
    "needs connecting facts across passages (multi-hop)",
    "interpretable_rationale": "asks for the factors, criteria, evidence, assumptions or methodological "
    "reasons that the literature lays out explicitly",
    "hidden_rationale": "asks why something observed happens when no paper states it directly: anomalies, "
    "mechanisms, hypotheticals; needs inference across sources",
}


def _llm_schema() -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "queries": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "query": {"type": "string"},
                        "label": {"type": "string", "enum": list(QUERY_TYPES)},
                    },
                    "required": ["query", "label"],
                },
            }
        },
        "required": ["queries"],
    }


def _llm_candidates(
    llm: JsonLLM,
    entities: Mapping[str, Sequence[str]],
    rng: random.Random,
    per_type: int,
    batch_size: int,
    stats: dict[str, Any],
) -> list[dict[str, str]]:
    """Ask the LLM for questions of each type; keep rows whose label is the requested one."""
    definitions = "\n".join(f"- {name}: {text}" for name, text in _TYPE_DEFINITIONS.items())
    rows: list[dict[str, str]] = []
    for label in QUERY_TYPES:
        produced = 0
        for batch in range(max(1, -(-per_type // batch_size))):
            sample = {t: rng.sample(list(v), min(6, len(v))) for t, v in sorted(entities.items())}
            system, user = WRITE_QUERIES.render(
                definitions=definitions,
                batch_size=batch_size,
                label=label,
                batch=batch + 1,
                entities=json.dumps(sample, ensure_ascii=False),
            )
            try:
                payload = llm.complete_json(
                    system, user, json_schema=_llm_schema(), max_tokens=80 * batch_size + 200
                )
            except GeoRagError as exc:  # a failing endpoint degrades to templates, visibly
                stats["llm_errors"].append(f"{label} batch {batch + 1}: {exc}")
                continue
            items = payload.get("queries") if isinstance(payload, dict) else None
            for item in items if isinstance(items, list) else []:
                if not isinstance(item, dict):
                    stats["llm_rejected"] += 1
                    continue
                query = _SPACES.sub(" ", str(item.get("query") or "")).strip()
                if item.get("label") != label or not 8 <= len(query) <= 300:
                    stats["llm_rejected"] += 1
                    continue
                rows.append({"query": query, "label": label, "generator": llm.name, "template": "llm"})
                produced += 1
            if produced >= per_type:
                break
    return rows


def _exact_dedup(rows: list[dict[str, str]]) -> list[dict[str, str]]:
    """Keep the first row per normalized text; drop texts that were generated with two labels."""
    labels: dict[str, set[str]] = {}
    for row in rows:
        labels.setdefault(normalize_query(row["query"]), set()).add(row["label"])
    kept, seen = [], set()
    for row in rows:
        key = normalize_query(row["query"])
        if not key or key in seen or len(labels[key]) > 1:
            continue
        seen.add(key)
        kept.append(row)
    return kept


def near_duplicate_mask(texts: Sequence[str], threshold: float = NEAR_DUPLICATE_COSINE) -> np.ndarray:
    """Greedy filter in input order: False for a text whose n-gram cosine to a kept one exceeds threshold.

    Vectors are hashed word 1–3-gram counts (no IDF), so the similarity of two texts does not depend
    on the rest of the corpus: filtering the filter's output again removes nothing.
    """
    keep = np.ones(len(texts), dtype=bool)
    if len(texts) < 2:
        return keep
    matrix = _NGRAMS.transform(texts).tocsr()
    block = 512
    for start in range(0, len(texts), block):
        stop = min(start + block, len(texts))
        sims = (matrix[start:stop] @ matrix[:stop].T).toarray()
        for offset in range(stop - start):
            i = start + offset
            earlier = sims[offset, :i]
            if earlier.size and np.any(earlier[keep[:i]] > threshold):
                keep[i] = False
    return keep


def generate_synthetic_queries(
    entities: Mapping[str, Sequence[str]],
    n_per_type: int = 600,
    seed: int = 13,
    llm: JsonLLM | None = None,
    *,
    llm_per_type: int = 100,
    llm_batch_size: int = 25,
) -> pd.DataFrame:
    """A balanced, de-duplicated, shuffled set of labelled questions (``n_per_type`` per type).

    Columns: query, label, generator (``template-v1`` or the LLM's model name), template (template id
    such as ``hidden_rationale:07``, or ``llm``) — the template id lets training cross-validate by
    template, which measures generalisation to unseen phrasings rather than to unseen entities.
    LLM rows (when ``llm`` is given) take precedence over template rows of the same label.
    ``df.attrs["generation"]`` holds counts of what was generated, dropped and rejected.
    """
    if n_per_type < 1:
        raise ValueError("n_per_type must be positive")
    pool = prepare_entities(entities)
    rng = random.Random(seed)
    stats: dict[str, Any] = {"llm_errors": [], "llm_rejected": 0}
    llm_rows = _llm_candidates(llm, pool, rng, llm_per_type, llm_batch_size, stats) if llm is not None else []
    for oversample in (3, 6, 12):
        template_rows: list[dict[str, str]] = []
        for label in QUERY_TYPES:
            template_rows.extend(
                _template_candidates(label, n_per_type * oversample, pool, random.Random(f"{seed}:{label}"))
            )
        candidates = _exact_dedup(llm_rows + template_rows)
        keep = near_duplicate_mask([row["query"] for row in candidates])
        survivors = [row for row, ok in zip(candidates, keep, strict=True) if ok]
        by_label: dict[str, list[dict[str, str]]] = {label: [] for label in QUERY_TYPES}
        for row in survivors:
            if len(by_label[row["label"]]) < n_per_type:
                by_label[row["label"]].append(row)
        if all(len(rows) == n_per_type for rows in by_label.values()):
            break
    else:
        short = {label: len(rows) for label, rows in by_label.items()}
        raise ValueError(f"could not generate {n_per_type} distinct questions per type: {short}")
    frame = pd.DataFrame([row for label in QUERY_TYPES for row in by_label[label]], columns=list(COLUMNS))
    frame = frame.sample(frac=1.0, random_state=seed).reset_index(drop=True)
    frame.attrs["generation"] = {
        "candidates": len(llm_rows) + len(template_rows),
        "after_exact_dedup": len(candidates),
        "after_near_dedup": len(survivors),
        "oversample": oversample,
        "llm_rows_kept": int((frame["generator"] != TEMPLATE_GENERATOR).sum()),
        "llm_rejected": stats["llm_rejected"],
        "llm_errors": stats["llm_errors"],
        "near_duplicate_cosine": NEAR_DUPLICATE_COSINE,
    }
    return frame


def dataset_version(df: pd.DataFrame) -> str:
    """Content hash of the dataset (rows in order, all columns): the asset's data version."""
    payload = df.loc[:, [c for c in COLUMNS if c in df.columns]].to_csv(index=False, lineterminator="\n")
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:16]


def _atomic_write(path: Path, write: Any) -> None:
    """Write through a temporary file in the same folder, so readers never see half a file."""
    handle, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    os.close(handle)
    try:
        write(tmp)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def write_query_dataset(df: pd.DataFrame, out_dir: str | Path) -> dict[str, Path]:
    """Write the dataset as CSV and parquet plus a JSON manifest (version, counts); return the paths."""
    missing = {"query", "label"} - set(df.columns)
    if missing:
        raise ValueError(f"query dataset lacks columns {sorted(missing)}")
    bad = sorted(set(df["label"]) - set(QUERY_TYPES))
    if bad:
        raise ValueError(f"unknown labels in query dataset: {bad}")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = {
        "csv": out / "synthetic_queries.csv",
        "parquet": out / "synthetic_queries.parquet",
        "manifest": out / "synthetic_queries.json",
    }
    version = dataset_version(df)
    _atomic_write(paths["csv"], lambda tmp: df.to_csv(tmp, index=False, lineterminator="\n"))
    _atomic_write(paths["parquet"], lambda tmp: df.to_parquet(tmp, index=False))
    manifest = {
        "version": version,
        "rows": len(df),
        "labels": {label: int((df["label"] == label).sum()) for label in QUERY_TYPES},
        "generators": {str(k): int(v) for k, v in df["generator"].value_counts().sort_index().items()}
        if "generator" in df.columns
        else {},
        "generation": df.attrs.get("generation", {}),
    }
    text = json.dumps(manifest, indent=2, ensure_ascii=False)
    _atomic_write(paths["manifest"], lambda tmp: Path(tmp).write_text(text, encoding="utf-8"))
    return paths


def read_query_dataset(path: str | Path) -> pd.DataFrame:
    """Read a dataset written by ``write_query_dataset`` (CSV or parquet) or a query,label CSV."""
    path = Path(path)
    frame = pd.read_parquet(path) if path.suffix == ".parquet" else pd.read_csv(path)
    missing = {"query", "label"} - set(frame.columns)
    if missing:
        raise ValueError(f"{path}: missing columns {sorted(missing)}")
    bad = sorted(set(frame["label"]) - set(QUERY_TYPES))
    if bad:
        raise ValueError(f"{path}: unknown labels {bad}")
    return frame


SEED_QUERIES_PATH = Path(__file__).resolve().parent / "data" / "seed_queries.csv"


def load_seed_queries(path: str | Path | None = None) -> pd.DataFrame:
    """The hand-written test split (geo_assets/queries/data/seed_queries.csv): never used for training."""
    return read_query_dataset(path or SEED_QUERIES_PATH)


WRITTEN_QUERIES_PATH = Path(__file__).resolve().parent / "data" / "written_queries.csv"


def load_written_queries(path: str | Path | None = None) -> pd.DataFrame:
    """400 hand-written training questions (100 per type) on geochemistry in general, none about the
    evaluation sets' papers (geo_assets/queries/data/written_queries.csv, ``generator="written"``).

    Why: trained on templates alone the router learned the templates — 0.71 / 0.74 accuracy on the
    hand-written corpus / dev questions; with these beside them 0.75 / 0.90 (scripts/bench_router.py).
    Their wording varies the way researchers' questions do (two-part questions, preambles, terse
    noun phrases, "How …" explicit facts and non-"Why" hidden rationales).
    """
    frame = read_query_dataset(path or WRITTEN_QUERIES_PATH)
    return frame.assign(generator="written", template="")[list(COLUMNS)]


ROUTER_HELDOUT_PATH = Path(__file__).resolve().parents[2] / "data" / "evaluation" / "router_heldout_v1.csv"


def load_router_heldout(path: str | Path | None = None) -> pd.DataFrame:
    """600 hand-written questions for measuring the router only (data/evaluation/router_heldout_v1.csv:
    query, label, topic, writer): in no training set, so scripts/bench_router.py can report accuracy on
    questions it never saw."""
    return read_query_dataset(path or ROUTER_HELDOUT_PATH)
