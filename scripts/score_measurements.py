"""Precision and recall of the measurement extractor against the hand-labelled gold set.

    python scripts/score_measurements.py [--gold data/measurements/gold_v1.csv] [--show-errors]
    python scripts/score_measurements.py --gold data/measurements/heldout_v1.csv \
        --sentences data/measurements/heldout_v1_sentences.csv     # the held-out set

The extractor's rules were written against gold_v1 (a development score); heldout_v1 was labelled
afterwards, by someone who never saw the extractor, on other stretches of the papers (the
generalization score). ``--sentences`` adds the covered sentences that hold no value, so a value
reported there counts as a false positive.

Text rows: the extractor reads each gold sentence (the labelled stretches, verbatim from the PDF) and
its rows are matched to the gold rows of that sentence on (analyte, value, value_max, unit); a
matched row also scores its uncertainty. Precision counts every row extracted from those sentences,
so a number the gold set excludes (a count, a year) that the extractor reports is a false positive.
Prints the counts and P/R per source type (tables are scored once the table extractor exists).
"""

from __future__ import annotations

import argparse
import csv
import math
import re
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def _float(text: str) -> float | None:
    return float(text) if text.strip() else None


def _same(a: float | None, b: float | None) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


def _names(joined: str) -> set[str]:
    """A "; "-joined sample list as a set of names, hyphens made ASCII."""
    return {
        re.sub("[\u2010\u2011\u2012\u2013\u2212]", "-", n.strip()) for n in joined.split(";") if n.strip()
    }


def _take(unmatched: list[dict[str, str]], value: Any, *, with_max: bool = True) -> dict[str, str] | None:
    """The first unmatched gold row with the value's (analyte, value[, value_max], unit), removed;
    ``value`` is a TextValue or a TableValue (tables have no ranges). The gold names units of the
    vocabulary only (one outside it, "pmol", is empty there), so a row's unit is compared as such."""
    from geo_assets.measurements.table_headers import vocabulary_unit

    names = {value.analyte, "T" if value.analyte in {"Tp", "Tex"} else value.analyte}  # gold README: T
    for g in unmatched:
        if (
            g["analyte"] in names
            and _same(_float(g["value"]), value.value)
            and (not with_max or _same(_float(g["value_max"]), value.value_max))
            and g["unit"] == vocabulary_unit(value.unit)
        ):
            unmatched.remove(g)
            return g
    return None


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--gold", default=str(ROOT / "data/measurements/gold_v1.csv"))
    parser.add_argument("--sentences", help="CSV with a 'sentence' column: covered sentences without values")
    parser.add_argument("--papers", help="folder of the gold set's PDFs: also score the table rows")
    parser.add_argument("--show-errors", action="store_true")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    from geo_assets.measurements.samples import samples_for_values
    from geo_assets.measurements.text_values import extract_text_values

    with open(args.gold, encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    by_sentence: dict[str, list[dict[str, str]]] = defaultdict(list)
    for row in rows:
        if row["source_type"] == "text":
            by_sentence[row["sentence"]].append(row)
    if args.sentences:
        with open(args.sentences, encoding="utf-8") as handle:
            for row in csv.DictReader(handle):
                by_sentence.setdefault(row["sentence"], [])
    tp = fp = fn = unc_right = unc_total = sample_right = sample_total = 0
    errors: list[str] = []
    for sentence, gold in by_sentence.items():
        found = extract_text_values(sentence)
        samples = samples_for_values(sentence, [(v.start, v.end) for v in found])
        unmatched = list(gold)
        for value, sample in zip(found, samples, strict=True):
            hit = _take(unmatched, value)
            if hit is None:
                fp += 1
                errors.append(
                    f"FP {value.analyte} {value.value} {value.value_max} {value.unit!r} | {value.printed!r} | {sentence[:140]}"
                )
                continue
            tp += 1
            if hit["sample"].strip():
                sample_total += 1
                right = _names(sample) == _names(hit["sample"])
                sample_right += right
                if not right:
                    errors.append(
                        f"SAMPLE {sample!r} vs gold {hit['sample']!r} | {value.printed!r} | {sentence[:140]}"
                    )
            if hit["uncertainty"].strip():
                unc_total += 1
                unc_right += _same(_float(hit["uncertainty"]), value.uncertainty)
        fn += len(unmatched)
        errors += [
            f"FN {g['analyte']} {g['value']} {g['value_max']} {g['unit']!r} | {sentence[:140]}"
            for g in unmatched
        ]
    precision = tp / (tp + fp) if tp + fp else float("nan")
    recall = tp / (tp + fn) if tp + fn else float("nan")
    print(f"text: {len(by_sentence)} sentences, gold {tp + fn}, extracted {tp + fp}")
    print(f"  (analyte, value, unit) precision {precision:.3f}  recall {recall:.3f}")
    print(f"  uncertainty right on matched rows that have one: {unc_right}/{unc_total}")
    print(
        f"  sample right on matched rows whose gold names one: {sample_right}/{sample_total}"
        + (f" ({sample_right / sample_total:.3f})" if sample_total else "")
    )
    if args.papers:
        errors += _score_samples_in_papers(rows, Path(args.papers))
        errors += _score_tables(rows, Path(args.papers))
    if args.show_errors:
        print("\n".join(errors))
    return 0


def _key(text: str) -> str:
    return re.sub(r"[\W_]+", "", text).casefold()


def _same_samples(extracted: str, gold: str) -> bool:
    """Whether two "; "-joined sample lists name the same samples, as the store's ``sample_key`` does
    (hyphens, spaces and case aside: FC4b = FC-4b), with a bracketed note of the gold's left out."""
    from geo_assets.measurements.samples import sample_key

    def keys(joined: str) -> set[str]:
        return {sample_key(re.sub(r"\s*\([^()]*\)\s*$", "", n)) for n in _names(joined)}

    return bool(extracted.strip()) and keys(extracted) == keys(gold)


_UNIT_FILLER = {"the", "from", "of", "in", "and", "rock", "rocks", "sample", "samples", "collected"}


def _unit_words(text: str) -> set[str]:
    words = (w.casefold() for w in re.findall(r"[^\W\d_]+", text))
    return {w[:-1] if len(w) > 3 and w.endswith("s") else w for w in words} - _UNIT_FILLER


def _same_unit(extracted: str, gold: str) -> bool:
    """Whether a row's rock unit is the group a gold row names ("Mukhar formation basalts"): every
    word of the gold's, plurals and filler words aside, starts a word of the row's ("basalt" is
    "basaltic"); the row may say more ("mafic rocks from the Ulgey bimodal volcanic suite")."""
    have = _unit_words(extracted)
    want = _unit_words(gold)
    return bool(want) and all(any(h.startswith(w) for h in have) for w in want)


def _score_samples_in_papers(rows: list[dict[str, str]], papers: Path) -> list[str]:
    """Samples as a whole ingest assigns them: each gold paper is parsed and cleaned, its rows are
    extracted by ``paper_measurements`` (so a sample named earlier in the section counts), and each
    gold text row is matched to the row of the same sentence, analyte, value and unit. Reports the
    share of matched rows whose gold names a sample that get it right, and how often a row gets a
    sample where the gold names none."""
    from geo_assets.ingest.cleaned_paper import clean_paper
    from geo_assets.ingest.pdf import pdf_to_tei
    from geo_assets.ingest.tei import tei_to_paper
    from geo_assets.measurements.extract import paper_measurements

    by_file: dict[str, list[dict[str, str]]] = defaultdict(list)
    for row in rows:
        if row["source_type"] == "text":
            by_file[row["source_file"]].append(row)
    right = total = invented = without = matched = id_right = id_total = same_right = same_id_right = 0
    unit_right = unit_total = unit_invented = 0
    errors: list[str] = []
    for source, gold in sorted(by_file.items()):
        if not (papers / source).is_file():
            continue
        paper = tei_to_paper(pdf_to_tei(papers / source), paper_id="g", source_file=source, sha256="0" * 64)
        extracted = [m for m in paper_measurements(clean_paper(paper), []) if m.source_type == "text"]
        by_sentence: dict[str, list[Any]] = defaultdict(list)
        for m in extracted:
            by_sentence[_key(m.sentence)].append(m)
        for g in gold:
            candidates = by_sentence.get(_key(g["sentence"]), [])
            m = next((c for c in candidates if _take([dict(g)], c)), None)
            if m is None:
                continue
            matched += 1
            if g["sample"].strip():
                total += 1
                ok = _names(m.sample) == _names(g["sample"])
                same = _same_samples(m.sample, g["sample"])
                right += ok
                same_right += same
                if any(c.isdigit() for c in g["sample"]):  # an identifier, not "Mukhar formation basalts"
                    id_total += 1
                    id_right += ok
                    same_id_right += same
                else:  # a group of rocks: right when the row's rock unit names it
                    unit_total += 1
                    ok = _same_unit(m.rock_unit, g["sample"])
                    unit_right += ok
                if not ok:
                    errors.append(
                        f"PAPER-SAMPLE {m.sample!r} / unit {m.rock_unit!r} vs gold {g['sample']!r} | {m.printed!r} "
                        f"| {g['sentence'][:120]}"
                    )
            else:
                without += 1
                invented += bool(m.sample)
                unit_invented += bool(m.rock_unit)
                if m.rock_unit:
                    errors.append(f"UNIT-GIVEN {m.rock_unit!r} | {m.printed!r} | {g['sentence'][:120]}")
    print(f"text samples in whole papers: {matched} gold rows matched in {len(by_file)} paper(s)")
    if total:
        print(f"  sample right where the gold names one: {right}/{total} ({right / total:.3f})")
        print(f"    of which the gold sample is an identifier (has a digit): {id_right}/{id_total}")
        print(
            f"  the same sample, printing aside (LGC1 = LGC-1; the gold's bracketed note, "
            f"'GJ-1 (pair 1)', left out): {same_right}/{total} ({same_right / total:.3f}); "
            f"identifiers {same_id_right}/{id_total}"
        )
        print(
            f"    of which the gold names a group of rocks, right in the row's rock unit: {unit_right}/{unit_total}"
        )
        both = same_id_right + unit_right
        print(f"  sample or rock unit right where the gold names one: {both}/{total} ({both / total:.3f})")
    if without:
        print(f"  a sample given where the gold names none: {invented}/{without}")
        print(f"  a rock unit given where the gold names no sample: {unit_invented}/{without}")
    return errors


def _score_tables(rows: list[dict[str, str]], papers: Path) -> list[str]:
    """Table rows as a whole ingest stores them: the embedded parser reads each paper and
    ``paper_measurements`` its tables (so a sample the paper names elsewhere counts); a cell matches
    on (table, analyte, value, unit). Precision counts every value extracted from the labelled tables
    (cells of unlabelled columns such as coordinates included); ``sample`` is the share of matched
    cells whose gold names a sample that carry it, beside how many carry one the gold does not name."""
    from geo_assets.ingest.cleaned_paper import clean_paper, table_heading
    from geo_assets.ingest.pdf import pdf_to_tei
    from geo_assets.ingest.tei import tei_to_paper
    from geo_assets.measurements.extract import paper_measurements

    gold: dict[tuple[str, str], list[dict[str, str]]] = defaultdict(list)
    for row in rows:
        if row["source_type"] == "table":
            gold[row["source_file"], row["table_label"]].append(row)
    tp = fp = fn = found_tables = sample_right = sample_total = invented = without = 0
    errors: list[str] = []
    parsed: dict[str, Any] = {}
    for (source, label), expected in sorted(gold.items()):
        if source not in parsed:
            paper = tei_to_paper(
                pdf_to_tei(papers / source), paper_id="g", source_file=source, sha256="0" * 64
            )
            parsed[source] = (paper, paper_measurements(clean_paper(paper), [], paper.captions))
        paper, measured = parsed[source]
        table = next((c for c in paper.captions if c.kind == "table" and c.label == label and c.rows), None)
        heading = table_heading(table) if table else None
        values = [m for m in measured if m.source_type == "table" and m.table_label == heading]
        found_tables += table is not None
        unmatched = list(expected)
        for value in values:
            if value.value is None:
                continue
            hit = _take(unmatched, value, with_max=False)
            if hit is None:
                fp += 1
                errors.append(
                    f"FP {source[:20]} {label} {value.row!r} {value.column!r} {value.analyte} {value.value} {value.unit!r}"
                )
                continue
            tp += 1
            if hit["sample"].strip():
                sample_total += 1
                ok = _names(value.sample) == _names(hit["sample"])
                sample_right += ok
                if not ok:
                    errors.append(
                        f"TABLE-SAMPLE {value.sample!r} vs gold {hit['sample']!r} | {label} {value.row!r}"
                    )
            else:
                without += 1
                invented += bool(value.sample)
        fn += len(unmatched)
        errors += [
            f"FN {source[:20]} {label} {g['row']!r} {g['column']!r} {g['analyte']} {g['value']} {g['unit']!r}"
            for g in unmatched
        ]
    precision = tp / (tp + fp) if tp + fp else float("nan")
    recall = tp / (tp + fn) if tp + fn else float("nan")
    print(
        f"tables: {len(gold)} labelled, {found_tables} with cells from the embedded parser; gold {tp + fn}, extracted {tp + fp}"
    )
    print(f"  (analyte, value, unit) precision {precision:.3f}  recall {recall:.3f}")
    print(
        f"  sample right where the gold names one: {sample_right}/{sample_total}; given where it names none: {invented}/{without}"
    )
    return errors


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
