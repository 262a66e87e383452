"""A paper's measurement rows: every value reported in its text and tables, with provenance.

Stage helper (plain Python, no Dagster): the ``measurements`` asset calls :func:`paper_measurements`
with the paper's cleaned text and its chunks. Sentences come from the same splitter the chunker and
the generators use, values from :mod:`geo_assets.measurements.text_values`; each row names the page
(from the cleaned text's page marks), the section, the chunk that holds it and the character span
of the printed value in the cleaned text, so a value can be cited like a passage.

Tables come from the paper's captions that carry cells (``Caption.rows``: GROBID's ``<table>``, or
the embedded parser's, read from pdfplumber's words by :mod:`geo_assets.ingest.pdf.word_tables`) through
:mod:`geo_assets.measurements.table_values`; their rows name the table, the row label and the
column header, and the character span of the table's block in the cleaned text.

Material and method are filled only when the sentence names exactly one mineral / rock or one
analytical method (vocabulary recognizer); a table row's material is its "Rock type" / "Lithology" /
"Mineral" / "Phase" cell, else the one mineral or rock its caption names. A table row's sample is its label when the label column is
headed as samples, or the column header in a samples-as-columns table (footnote marks kept as
notes); else a sample the paper names elsewhere that the row label is, or is a spot of ("GJ1-2-2" of
"GJ-1"); else the one sample the table's caption names ("U–Pb data of sample D21G-2"); a note says
which. In running text, the sample the sentence names for the value
(:mod:`geo_assets.measurements.samples`; a name the tables give as a sample counts printed bare:
the tables are read first), else the one an earlier sentence of its paragraph named
(:mod:`geo_assets.measurements.carried`: past a paragraph break only the one sample a section names,
or onto the figure that showed it). Kept as printed, with ``sample_key`` the paper's one printing of
each name. The rock unit a value describes ("mafic rocks from the Ulgey bimodal volcanic
suite") is read the same way (:mod:`geo_assets.measurements.rock_units`); a table's is the one unit
its caption names.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from typing import Any

from geo_assets.ingest.chunking import page_at
from geo_assets.ingest.cleaned_paper import table_heading
from geo_assets.measurements.carried import Carried, cited
from geo_assets.measurements.rock_units import unit_mentions, units_for_values
from geo_assets.measurements.samples import (
    as_printed,
    caption_samples,
    known_names,
    normalise_names,
    reference_material,
    sample_for_label,
    sample_key,
    sample_mentions,
    samples_for_values,
)
from geo_assets.measurements.table_values import (
    TableValue,
    extract_table_values,
    header_rows,
    identifier_label,
)
from geo_assets.measurements.text_values import TextValue, extract_text_values
from geo_rag_runtime import contract
from geo_rag_runtime.models import Caption, Chunk, CleanedPaper, Measurement

__all__ = ["EXTRACTOR", "REFERENCE_NOTE", "paper_measurements"]

log = logging.getLogger(__name__)

EXTRACTOR = "text-rules-7"  # 7: values in a list of names, "sample OK16", regions by acronym; 6: samples the tables name; 5: samples kept to a paragraph; 4: "these basalts", a unit named later; 3: units
TABLE_EXTRACTOR = "table-headers-3"  # 3: samples from the paper's names and the caption; units per column
_MATERIAL_TYPES = {"Mineral", "Rock"}
# values that describe what rocks are made of (a unit named later in the sentence may be theirs), not
# when something happened or how hot it was
_COMPOSITION_UNITS = {"wt.%", "ppm", "ppb", "mol%", "ratio", "epsilon", "‰"}
# "Table 1. (continued)": a later page of a table
_CONTINUED = re.compile(r"^\W*(?:table\s+\S+?\W+)?cont(?:inued|d?\.)", re.I)
# "Row and column names follow the same convention as Table 1": that caption defines these columns too
_SAME_AS = re.compile(
    r"\bsame\s+(?:conventions?|format|notation|columns?|units?|layout)\s+as\s+(?:in\s+)?Table\s+(\w+)", re.I
)
_METHOD_TYPES = {"AnalyticalMethod"}
REFERENCE_NOTE = "reference material: "  # then its name: the row's sample is a standard
_IDENTIFIER_NOTE = "sample: the identifier the row label prints"  # a table row's sample only guessed


def paper_measurements(
    cleaned: CleanedPaper, chunks: Sequence[Chunk], captions: Sequence[Caption] = ()
) -> list[Measurement]:
    """Every value the text and the tables report, once, in text order (references and caption
    text are skipped; a table's cells are read from ``captions``)."""
    from geo_rag_runtime.text.sentences import split_sentences
    from geo_rag_runtime.vocab import recognize

    ordered = sorted(chunks, key=lambda c: c.ordinal)
    rows: dict[str, Measurement] = {}
    # every sentence of the text and the sample names it prints, read once; then the paper's own
    # names, found bare in any sentence once the paper has named them ("sample LAB03 …", later "The
    # age of LAB03 is …"): a sentence where one is printed is read again with them
    read = [
        (section, [(a, b, sample_mentions(section.text[a:b])) for a, b in split_sentences(section.text)])
        for section in cleaned.sections
        if section.kind not in {"references", "captions", "tables"}
    ]
    found_all = [m for _, sentences in read for *_, found in sentences for m in found]
    said = [n for m in found_all if m.named for n in m.names]
    printed = [n for m in found_all for n in m.names]
    tables = _table_rows(cleaned, ordered, captions, list(dict.fromkeys(printed)))
    # the samples the paper's tables name (a "Sample" column, samples as columns): printed bare in a
    # sentence ("QM01 (Fig. 4) shows alteration over 400 °C"), the sentence is about that sample
    tabled = [n for r in tables if r.sample and not _guessed(r) for n in r.sample.split("; ")]
    known = known_names([*said, *tabled])
    said_keys = {sample_key(n) for n in said}
    for section, sentences in read:
        carried = Carried(said_keys)  # what the section named last, a sample or a rock unit
        for s_start, s_end, found in sentences:
            sentence = section.text[s_start:s_end]
            values = extract_text_values(sentence)
            mentions = (
                sample_mentions(sentence, known) if known is not None and known.search(sentence) else found
            )
            carried.enter(section.text, s_start, s_end, mentions)
            units = unit_mentions(sentence)
            spans = [(v.start, v.end) for v in values]
            lent = carried.lent(sentence, units)
            samples = [
                own or ("" if cited(sentence, *span) else lent)
                for own, span in zip(samples_for_values(sentence, spans, mentions), spans, strict=True)
            ]
            compositions = [v.unit in _COMPOSITION_UNITS for v in values]
            opener = carried.opener(sentence, mentions)
            of_unit = units_for_values(sentence, spans, units, opener=opener, compositions=compositions)
            carried.named(sentence, mentions, units)
            if not values:
                continue
            entities = recognize(sentence)
            materials = {e.name for e in entities if e.type in _MATERIAL_TYPES}
            methods = {e.name for e in entities if e.type in _METHOD_TYPES}
            base = section.char_start + s_start
            for value, sample, unit in zip(values, samples, of_unit, strict=True):
                start, end = base + value.start, base + value.end
                holder = _chunk_at(ordered, start)
                row = Measurement(
                    measurement_id=contract.measurement_id(cleaned.paper_id, start, value.analyte),
                    **_shared(cleaned, value, holder),
                    source_type="text",
                    value_max=value.value_max,
                    material=next(iter(materials)) if len(materials) == 1 else "",
                    method=next(iter(methods)) if len(methods) == 1 else "",
                    sample=sample,
                    rock_unit=unit,
                    page=page_at(cleaned.page_marks, start),
                    section=section.heading,
                    sentence=" ".join(sentence.split()),
                    char_start=start,
                    char_end=end,
                    extractor=EXTRACTOR,
                )
                rows.setdefault(row.measurement_id, row)
    repeated: dict[str, int] = {}
    for row in tables:
        if row.measurement_id in rows:  # the same row and column header twice: only the first is kept
            repeated[row.table_label] = repeated.get(row.table_label, 0) + 1
        rows.setdefault(row.measurement_id, row)
    for label, count in repeated.items():  # a column header printed twice under different group headers
        log.warning("%s %s: %d cells repeat a row and column header already read; not kept", cleaned.source_file,
                    label, count)  # fmt: skip
    # kept as printed; the key is one printing per sample in the paper (FC4b and FC-4b are one sample)
    forms = normalise_names(r.sample for r in rows.values())
    for row in rows.values():
        if row.sample:
            row.sample_key = "; ".join(forms.get(n, n) for n in row.sample.split("; "))
            # a standard's analysis (GJ-1, BCR-2, Temora2 with its literature age) is noted as such,
            # so that a user can tell it from the study's samples
            if standards := list(
                dict.fromkeys(filter(None, map(reference_material, row.sample.split("; "))))
            ):
                row.notes.append(REFERENCE_NOTE + "; ".join(standards))
    return sorted(rows.values(), key=lambda r: r.char_start)


def _table_rows(
    cleaned: CleanedPaper, chunks: Sequence[Chunk], captions: Sequence[Caption], named: Sequence[str] = ()
) -> list[Measurement]:
    """Rows of the tables that have cells; located at their ``tables`` block of the cleaned text.
    ``named``: the sample names the paper's text prints (see the module docstring)."""
    blocks = [s for s in cleaned.sections if s.kind == "tables"]
    out: list[Measurement] = []
    seen: dict[str, int] = {}
    for caption in (c for c in captions if c.kind == "table" and c.rows):
        label = table_heading(caption)
        # the cleaned text has one block per table caption with cells, in the same order: a table's
        # second page ("(continued)") is its label's second block, and its rows are cited there
        same = [b for b in blocks if b.heading == label]
        nth = seen[label] = seen.get(label, -1) + 1
        block = same[nth] if nth < len(same) else (same[0] if same else None)
        start = block.char_start if block else -1
        holder = _chunk_at(chunks, start) if block else None
        lender = _lender(caption, captions)
        # a continued page's caption says only "(continued)": the unit its first page's caption
        # gives every cell ("Major elements (wt.%)") holds there too
        continued = lender is not None and bool(_CONTINUED.match(caption.text))
        said = f"{caption.text} {lender.text}" if lender and continued else caption.text
        try:
            # a table split over pages prints its footnotes under its last page: they hold on all
            notes = caption.note or (lender.note if lender else "") or _later_notes(caption, captions)
            values = extract_table_values(caption.rows, said, lender.text if lender else "", notes)
            if not values and lender is not None and lender.rows and continued:
                # a continued page that does not repeat the header: the first page's header rows
                values = extract_table_values(
                    [*header_rows(lender.rows), *caption.rows], said, lender.text, notes
                )
        except Exception as exc:  # a malformed table loses its rows, never the paper's others
            log.warning("%s %s: table skipped (%s: %s)", cleaned.source_file, label, type(exc).__name__, exc)
            continue
        in_caption = {sample_key(n): n for n in caption_samples(caption.text)}
        # what the rows are: a "Rock type" / "Mineral" cell, else the one mineral or rock the caption
        # names ("U–Pb data of zircon"), canonical as in running text
        of_caption = _material(caption.text)
        # the rock unit the caption names, when one ("Major elements of the Mukhar formation basalts")
        caption_units = {u.names[0] for u in unit_mentions(caption.text)}
        caption_unit = next(iter(caption_units)) if len(caption_units) == 1 else ""
        of_cell: dict[str, str] = {}  # a "Rock type" cell's material, recognised once per table
        known = list(dict.fromkeys([*named, *in_caption.values()]))
        for value in values:
            if value.material not in of_cell:
                of_cell[value.material] = _material(value.material)
            value.sample = as_printed(value.sample)
            if not value.sample and value.row:
                value.sample = sample_for_label(value.row, known)
                if value.sample:
                    value.notes.append("sample: the row label names it")
            if not value.sample and len(in_caption) == 1:
                value.sample = next(iter(in_caption.values()))
                value.notes.append("sample: the one the caption names")
            if not value.sample and (identifier := identifier_label(value.row)):
                value.sample = identifier  # "BGC-5", "T12": the row is that item's analysis
                value.notes.append(_IDENTIFIER_NOTE)
            out.append(
                Measurement(
                    measurement_id=contract.measurement_id(
                        cleaned.paper_id,
                        start,
                        value.analyte,
                        f"{label}|{value.row}|{value.column}" + (f"|{value.apart}" if value.apart else ""),
                    ),
                    **_shared(cleaned, value, holder),
                    source_type="table",
                    value_max=value.value_max,
                    page=caption.page,
                    section=label,
                    char_start=start,
                    char_end=block.char_end if block else -1,
                    table_label=label,
                    sample=value.sample,
                    rock_unit=caption_unit,
                    material=of_cell[value.material] or of_caption,
                    row=value.row,
                    column=value.column,
                    extractor=TABLE_EXTRACTOR,
                )
            )
    return out


def _guessed(row: Measurement) -> bool:
    """Whether a table row's sample is only its label's identifier (no column says it is a sample)."""
    return _IDENTIFIER_NOTE in row.notes


def _material(text: str) -> str:
    """The one mineral or rock ``text`` names (the vocabulary's canonical name), else ""."""
    if not text:
        return ""
    from geo_rag_runtime.vocab import recognize

    found = {e.name for e in recognize(text) if e.type in _MATERIAL_TYPES}
    return next(iter(found)) if len(found) == 1 else ""


def _lender(caption: Caption, captions: Sequence[Caption]) -> Caption | None:
    """The table whose caption defines this one's columns: the one it says it follows ("same
    convention as Table 1"), else, for a continued page, the table's first page."""
    same = _SAME_AS.search(caption.text)
    if same:
        for other in captions:
            if (
                other is not caption
                and other.kind == "table"
                and (other.label or "").split()[-1:] == [same.group(1)]
            ):
                return other
    if _CONTINUED.match(caption.text):
        for other in captions:
            if other.kind == "table" and other.label == caption.label and not _CONTINUED.match(other.text):
                return other
    return None


def _later_notes(caption: Caption, captions: Sequence[Caption]) -> str:
    """The footnotes printed under the continued pages of the table ``caption`` begins ("" for a
    continued page itself, which has its own or its first page's)."""
    if _CONTINUED.match(caption.text):
        return ""
    later = (
        c.note
        for c in captions
        if c is not caption and c.kind == "table" and c.label == caption.label and _CONTINUED.match(c.text)
    )
    return " ".join(n for n in later if n)


def _chunk_at(chunks: Sequence[Chunk], offset: int) -> Chunk | None:
    """The first chunk (in ordinal order) whose text holds the character at ``offset``."""
    return next((c for c in chunks if c.char_start <= offset < c.char_end), None)


def _shared(cleaned: CleanedPaper, value: TextValue | TableValue, holder: Chunk | None) -> dict[str, Any]:
    """The fields a text value and a table cell fill alike."""
    return {
        "paper_id": cleaned.paper_id,
        "source_file": cleaned.source_file,
        "analyte": value.analyte,
        "value": value.value,
        "unit": value.unit,
        "uncertainty": value.uncertainty,
        "uncertainty_level": value.uncertainty_level,
        "qualifier": value.qualifier,
        "chunk_id": holder.chunk_id if holder else "",
        "printed": value.printed,
        "notes": value.notes,
    }
