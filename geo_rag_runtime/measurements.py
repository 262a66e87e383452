"""Reading measurement rows back: filters for ``geo-rag measurements`` and ``GET /measurements``, and
the long-format export shaped like a GEOROC download (one row per value, citation columns).

The rows are written at ingest by the ``measurements`` asset (geo_assets/measurements); this side
only reads the document store, so it needs no Dagster.
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
from collections.abc import Sequence
from typing import Any, Literal

from geo_rag_runtime.errors import QueryError
from geo_rag_runtime.models import Measurement
from geo_rag_runtime.settings import Settings

__all__ = [
    "EXPORT_COLUMNS",
    "INITIAL_EPSILON",
    "INITIAL_RATIO",
    "PRESENT_EPSILON",
    "TIME_NOTES",
    "Format",
    "citation",
    "export_rows",
    "find",
    "quote",
    "render",
    "sample_key",
]

Format = Literal["table", "csv", "json", "parquet"]
EXPORT_COLUMNS = (
    "sample", "analyte", "value", "value_max", "unit", "uncertainty", "uncertainty_level", "qualifier",
    "material", "method", "citation", "source_file", "page", "table_label", "row", "column",
    "sentence", "char_start", "char_end", "paper_id", "measurement_id",
    "sample_key",  # added after the rest: existing readers of the export keep their columns
    "printed", "notes",  # the value group as printed; what qualifies the value, "; "-joined
    "rock_unit",  # the named unit the value describes ("basalts from the Mukhar formation")
)  # fmt: skip
# notes that change what a value means: an initial ratio is not the measured one, εNd(t) is not εNd(0)
INITIAL_RATIO = "initial ratio"
INITIAL_EPSILON = "initial value (t)"
PRESENT_EPSILON = "present-day value (0)"
TIME_NOTES = (INITIAL_RATIO, INITIAL_EPSILON, PRESENT_EPSILON)
MAX_ROWS = 100_000
MAX_NAME = 200  # characters of a sample or rock-unit filter


def sample_key(name: str) -> str:
    """The form two printings of one sample name share: no hyphens (typographic ones included),
    spaces or underscores, case folded (FC4b = FC-4b). Stored at ingest as ``Measurement.sample_key``
    and used by questions that name a sample."""
    return re.sub(r"[\s\-\u2010\u2011\u2012\u2013\u2212_]", "", name).casefold()


def citation(row: Measurement) -> str:
    """``Zhu2024….pdf, p. 3, sentence`` or ``…, p. 8, Table 2 row A1 column U``."""
    where = f"{row.source_file}, p. {row.page}" if row.page else row.source_file
    if row.source_type == "table":
        return f"{where}, {row.table_label or 'table'} row {row.row!r} column {row.column!r}"
    return f"{where}, characters {row.char_start}–{row.char_end}"


def find(
    settings: Settings,
    *,
    analyte: str | None = None,
    paper: str | None = None,
    minimum: float | None = None,
    maximum: float | None = None,
    limit: int = 0,
    sample: str | None = None,
    rock_unit: str | None = None,
) -> list[Measurement]:
    """Rows matching the filters. ``analyte`` is matched exactly, else case-insensitively and without
    spaces ("sio2" → SiO2, "87Sr / 86Sr" → 87Sr/86Sr); ``paper`` is a paper id or a PDF file name;
    ``sample`` is a sample name as any printing of it ("19mat169" = 19MAT-169, one of a row's
    "; "-joined samples); ``rock_unit`` is a piece of the row's unit, case aside ("mukhar"). Values
    reach the store as query parameters only; the sample and unit filters are applied here, to the
    rows the store returns (a printing-aside comparison no store query can express).

    A read path: the store is opened read-only (no index creation, no write lock), so a read-only
    database user, or a store an ingest is writing, serves it; and the rows of papers an ingest is
    rebuilding or that were retired are left out, as questions leave them out."""
    from geo_rag_runtime.stores import publication
    from geo_rag_runtime.stores.opening import open_documents

    for name, bound in (("min", minimum), ("max", maximum)):
        if bound is not None and not math.isfinite(bound):
            raise QueryError(f"--{name} must be a finite number")
    if limit < 0 or limit > MAX_ROWS:
        raise QueryError(f"limit must lie between 0 and {MAX_ROWS}")
    for name, text in (("sample", sample), ("rock unit", rock_unit)):
        if text is not None and not 0 < len(text.strip()) <= MAX_NAME:
            raise QueryError(f"the {name} filter must be 1 to {MAX_NAME} characters")
    hidden = publication.hidden_papers(settings.home_dir)
    store = open_documents(settings, read_only=True)
    try:
        paper_id = None
        if paper:
            doc = store.get_paper(paper) or store.find_paper_by_source(paper)
            if doc is None:
                raise QueryError(f"no ingested paper has the id or file name {paper!r}")
            paper_id = str(doc["paper_id"])
            if paper_id in hidden:
                why = (
                    "is retired (`geo-rag unretire` brings it back)"
                    if paper_id in publication.retired_papers(settings.home_dir)
                    else "is being rebuilt by an ingest (its values return when it completes)"
                )
                raise QueryError(f"the paper {paper!r} {why}")
        wanted = analyte
        if analyte is not None:
            known = store.measurement_analytes()
            if analyte not in known:
                key = "".join(analyte.split()).casefold()
                wanted = next((a for a in known if "".join(a.split()).casefold() == key), analyte)
        rows = store.find_measurements(
            analyte=wanted,
            paper_id=paper_id,
            minimum=minimum,
            maximum=maximum,
            limit=0 if sample or rock_unit else limit,
            exclude_papers=hidden,
        )
    finally:
        store.close()
    if sample:
        key = sample_key(sample)
        rows = [
            r for r in rows if key in {sample_key(n) for n in f"{r.sample}; {r.sample_key}".split("; ") if n}
        ]
    if rock_unit:
        piece = " ".join(rock_unit.split()).casefold()
        rows = [r for r in rows if piece in r.rock_unit.casefold()]
    return rows[:limit] if limit else rows


def export_rows(rows: Sequence[Measurement]) -> list[dict[str, Any]]:
    """One flat record per value, columns :data:`EXPORT_COLUMNS`."""
    out = []
    for row in rows:
        record = row.model_dump()
        record["citation"] = citation(row)
        record["notes"] = "; ".join(row.notes)  # one flat record: a CSV or Parquet cell, not a list
        out.append({column: record.get(column) for column in EXPORT_COLUMNS})
    return out


def render(rows: Sequence[Measurement], fmt: Format) -> str | bytes:
    """The rows as a readable table, CSV, JSON (text) or Parquet (bytes)."""
    records = export_rows(rows)
    if fmt == "json":
        return json.dumps(records, ensure_ascii=False, indent=1)
    if fmt == "csv":
        buffer = io.StringIO()
        writer = csv.DictWriter(buffer, fieldnames=EXPORT_COLUMNS)
        writer.writeheader()
        writer.writerows(records)
        return buffer.getvalue()
    if fmt == "parquet":
        import pandas as pd

        buffer_bytes = io.BytesIO()
        pd.DataFrame.from_records(records, columns=list(EXPORT_COLUMNS)).to_parquet(buffer_bytes, index=False)
        return buffer_bytes.getvalue()
    lines = []
    for row in rows:
        value = f"{row.value:g}" if row.value is not None else row.qualifier or "—"
        if row.value_max is not None:
            value += f"–{row.value_max:g}"
        if row.uncertainty is not None:
            value += f" ± {row.uncertainty:g}" + (
                f" ({row.uncertainty_level})" if row.uncertainty_level else ""
            )
        prefix = row.qualifier if row.qualifier in {"<", ">", "~"} else ""
        lines.append(f"{row.analyte:<12} {prefix + value:<22} {row.unit:<8} {citation(row)}")
        if row.sentence:
            lines.append(f"{'':<12} “{quote(row)}”")
    lines.append(f"{len(rows)} value(s)")
    return "\n".join(lines)


def quote(row: Measurement, width: int = 70) -> str:
    """The words around the value in its sentence (the whole sentence when it is short)."""
    sentence = row.sentence
    at = sentence.find(row.printed) if row.printed else -1
    if len(sentence) <= 2 * width or at < 0:
        return sentence if len(sentence) <= 2 * width else sentence[: 2 * width] + " …"
    start, end = max(0, at - width), min(len(sentence), at + len(row.printed) + width)
    if start and not sentence[start - 1].isspace():  # whole words only
        start = sentence.find(" ", start, at) + 1 or start
    if end < len(sentence) and not sentence[end].isspace():
        cut = sentence.rfind(" ", at + len(row.printed), end)
        end = cut if cut > 0 else end
    return ("… " if start else "") + sentence[start:end].strip() + (" …" if end < len(sentence) else "")
