"""Reported values for a question: the measurement rows of what it asks about, as cited context.

A geochemist asking "what 87Sr/86Sr values are reported for the Hawaiian basalts?" wants the numbers,
not only passages that contain them. The ``measurements`` asset (geo_assets/measurements) stored every
value a paper reports as a typed row with its page and table cell or sentence; here the rows of the
analytes the question names are looked up — only in the papers the retrieved passages come from, so
the rows belong to the evidence the answer is built on — and become context facts that cite their
page and table. Passages first: rows never replace a passage, they share the graph facts' budget.
Explicit-fact questions only: on the 186 hand-written corpus questions, rows in every route cost the
implicit-reasoning questions evidence recall (0.789 → 0.776: the rows' tokens come out of the
passages' budget), while explicit facts kept theirs (0.725 both ways).

When the question names a sample that rows carry ("… of sample FC-4b?", FC4b and FC-4b alike), only
that sample's rows are given. Among rows of one passage, those whose row label, column header or
sentence share more of the question's words come first ("weighted mean 206Pb/238U age" picks the
table's weighted-mean row over the grains' ratios).

An analyte counts as named when the question's vocabulary entities name it ("87Sr/86Sr", "SiO2",
"La/Yb" for the chondrite-normalized "(La/Yb)N"), when it is written as a word of the question
("Tp", "MSWD"), or, for ages, when the question asks for an age ("age", "dated", "how old").
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from geo_rag_runtime.measurements import TIME_NOTES, quote, sample_key
from geo_rag_runtime.models import PRINTED_QUALIFIERS, Measurement, RetrievedItem
from geo_rag_runtime.query.question import Question
from geo_rag_runtime.stores.protocols import MeasurementReader
from geo_rag_runtime.text.keyword_terms import normalize_tokens

__all__ = ["MAX_VALUE_ROWS", "question_analytes", "row_text", "value_facts"]

MAX_VALUE_ROWS = 8  # a compact table in the context; `geo-rag measurements` gives all of them
_AGE_WORDS = re.compile(r"\b(ages?|dated|dating|how old)\b", re.IGNORECASE)


def _key(name: str) -> str:
    return "".join(name.split()).replace("(", "").replace(")", "").casefold()


def question_analytes(question: Question, known: Sequence[str]) -> list[str]:
    """The stored analytes (``known``) that ``question`` asks about, in the question's order."""
    by_key: dict[str, list[str]] = {}
    for analyte in known:
        by_key.setdefault(_key(analyte), []).append(analyte)
    wanted: list[str] = []
    for entity in question.entities:
        key = _key(str(entity.name))
        # "(La/Yb)N" is the chondrite-normalized La/Yb the question names without the subscript
        wanted += by_key.get(key, []) + by_key.get(key + "n", [])
    words = set(re.findall(r"[\w/+*#]+", question.text))
    wanted += [a for a in known if len(a) >= 2 and a in words]
    if "age" in by_key and _AGE_WORDS.search(question.text):
        wanted += by_key["age"]
    return list(dict.fromkeys(wanted))


_PRINTED_UNIT = re.compile(r"[A-Za-zµμ%‰°]\.?\s*$")
_PRINTED_LEVEL = re.compile(r"\(\s*(?:[12]\s*[σs]|2\s*SE|2\s*SD|1\s*SE|1\s*SD)\s*\)")
# a printed value that starts with its qualifier (a word form only as a whole word)
_PRINTED_QUALIFIER = re.compile(
    "|".join(form + (r"\b" if form[-1].isalpha() else "") for form in PRINTED_QUALIFIERS)
)


def row_text(row: Measurement) -> str:
    """``87Sr/86Sr = 0.70350 ± 0.00002 (2σ) ratio; sample KIL-1; whole rock; TIMS (Table 2, row …)``."""
    if row.value is None:
        value = {"bdl": "below detection", "nd": "not determined"}.get(row.qualifier, row.qualifier or "—")
    else:
        prefix = row.qualifier if row.qualifier in {"<", ">", "~"} else ""
        printed = row.printed or f"{row.value:g}"
        # the qualifier once, as printed: "~500 kyr", "ca. 2,312 Ma", "∼512–510 Ma" (not "~ca. 2,312")
        value = printed if _PRINTED_QUALIFIER.match(printed) else f"{prefix}{printed}"
        if not row.printed and row.value_max is not None:
            value += f"–{row.value_max:g}"
        if not row.printed and row.uncertainty is not None:
            value += f" ± {row.uncertainty:g}"
        # the level once: "± 0.19 Ma (2s)" prints it already
        if row.uncertainty_level and row.uncertainty_level not in value and not _PRINTED_LEVEL.search(value):
            value += f" ({row.uncertainty_level})"
    # the printed group may carry its unit, as printed ("800 Ma", "200-700 kyr" normalized to ka,
    # "1096.19 ± 0.19 (0.36) [1.15] Ma (2s)")
    printed_unit = bool(row.unit) and re.search(
        rf"(?<![A-Za-z]){re.escape(row.unit)}(?![A-Za-z])", row.printed
    )
    unit = (
        ""
        if row.unit and (value.endswith(row.unit) or _PRINTED_UNIT.search(row.printed) or printed_unit)
        else row.unit
    )
    parts = [f"{row.analyte} = {value} {unit}".rstrip()]
    parts += [note for note in row.notes if note in TIME_NOTES]  # εNd(t) is no εNd(0)
    # the rock unit stays out of the text (it is a field of the value context): with it, the fact
    # outranked the passages' sentences for the extractive answer on one held-out question
    # (corpus_heldout x013, 2026-12-06) and changed nothing else
    parts += [p for p in (f"sample {row.sample}" if row.sample else "", row.material, row.method) if p]
    if row.source_type == "table":
        where = f"{row.table_label or 'table'}, row {row.row!r}, column {row.column!r}"
    else:
        where = f"“{quote(row)}”" if row.sentence else "text"
    return f"{'; '.join(parts)} — {where}"


def value_facts(
    question: Question, passages: Sequence[RetrievedItem], reader: MeasurementReader
) -> list[RetrievedItem]:
    """Fact items for the rows of the question's analytes in the passages' papers: rows from the
    retrieved chunks themselves first, then the rest of those papers in text order, at most
    :data:`MAX_VALUE_ROWS`."""
    papers = list(dict.fromkeys(p.paper_id for p in passages if p.kind == "chunk" and p.paper_id))
    if not papers:
        return []
    analytes = question_analytes(question, list(reader.measurement_analytes()))
    if not analytes:
        return []
    rows = _of_named_sample(question.text, reader.find_measurements(analyte=analytes, paper_id=papers))
    chunk_rank = {p.chunk_id: i for i, p in enumerate(passages) if p.chunk_id}
    paper_rank = {paper: i for i, paper in enumerate(papers)}
    analyte_rank = {a: i for i, a in enumerate(analytes)}
    asked = set(normalize_tokens(question.text))
    rows.sort(
        key=lambda r: (
            chunk_rank.get(r.chunk_id, len(chunk_rank)),
            paper_rank[r.paper_id],
            -len(asked.intersection(normalize_tokens(f"{r.row} {r.column} {r.sentence}"))),
            analyte_rank.get(r.analyte, len(analytes)),
            r.char_start,
        )
    )
    titles = {p.paper_id: p.title for p in passages if p.paper_id}
    return [_fact(row, titles.get(row.paper_id)) for row in rows[:MAX_VALUE_ROWS]]


_NAME_TOKEN = re.compile(r"[A-Za-z0-9]+(?:[-‐‑‒–_.][A-Za-z0-9]+)*")


def _of_named_sample(question: str, rows: list[Measurement]) -> list[Measurement]:
    """The rows of the samples the question names, when any row carries one; else all rows."""
    named = {sample_key(t) for t in _NAME_TOKEN.findall(question) if any(c.isdigit() for c in t)}
    mine = [
        r
        for r in rows
        if r.sample and named & {sample_key(s) for s in (r.sample_key or r.sample).split("; ")}
    ]
    return mine or rows


def _fact(row: Measurement, title: str | None) -> RetrievedItem:
    provenance = {
        "paper_id": row.paper_id,
        "chunk_id": row.chunk_id,
        "source_file": row.source_file,
        "title": title or "",
        "page_start": row.page,
        "page_end": row.page,
        "measurement_id": row.measurement_id,
        "table_label": row.table_label,
        "row": row.row,
        "column": row.column,
        "char_start": row.char_start,
        "char_end": row.char_end,
    }
    return RetrievedItem(
        kind="fact",
        text=row_text(row),
        score=1.0,
        retriever="measurements",
        chunk_id=row.chunk_id or None,
        paper_id=row.paper_id,
        source_file=row.source_file,
        title=title,
        section=row.section or None,
        page_start=row.page,
        page_end=row.page,
        provenance=[provenance],
        measurement=row,
    )
