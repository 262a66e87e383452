"""Reported values in answers: the measurement rows of what a question names, cited to page and
sentence or table cell, from the papers the passages come from (real knowledge base, real rows)."""

from __future__ import annotations

from typing import Any

from geo_rag_runtime.models import Entity, Measurement
from geo_rag_runtime.query.question import Question
from geo_rag_runtime.query.reported_values import question_analytes, row_text
from tests.runtime.knowledge_base import KnowledgeBase, graph_items

KNOWN = ["age", "87Sr/86Sr", "(La/Yb)N", "SiO2", "Tp", "T", "MSWD"]


def _question(text: str, *names: str) -> Question:
    return Question(text, text, tuple(Entity(name=n, type="x", surface=n) for n in names))


def test_the_analytes_a_question_names() -> None:
    assert question_analytes(_question("What 87Sr/86Sr values?", "87Sr/86Sr"), KNOWN) == ["87Sr/86Sr"]
    # the chondrite-normalized ratio is named without its subscript
    assert question_analytes(_question("Which La/Yb ratios?", "La/Yb"), KNOWN) == ["(La/Yb)N"]
    # a symbol outside the vocabulary, written as a word; one letter ("T") is too ambiguous
    assert question_analytes(_question("What Tp is estimated at T of 1 GPa?"), KNOWN) == ["Tp"]
    assert question_analytes(_question("How old is the tuff, and when was it dated?"), KNOWN) == ["age"]
    assert question_analytes(_question("Why do arc magmas oxidize?"), KNOWN) == []


def test_an_age_question_gets_the_reported_ages_cited(service: Any, knowledge_base: KnowledgeBase) -> None:
    answer = service.ask(
        "What eruption ages are reported from the zircon ages?", mode="hybrid", category="explicit_fact"
    )
    graph = graph_items(answer)
    values = [item for item in graph if item["kind"] == "value"]
    assert values, graph
    keller = knowledge_base.paper_ids["Keller2018_GPL_ZirconEruptionAge_CCBY.pdf"]
    for item in values:
        assert (
            item["text"].startswith("age = ")
            and item["analyte"] == "age"
            and item["retriever"] == "measurements"
        )
        assert item["value"] is not None and item["unit"]
        (source,) = item["provenance"]
        assert source["paper_id"] == keller and source["page_start"] >= 1
        assert source["chunk_id"] in knowledge_base.chunks
        assert source["measurement_id"]
        # the value as printed lies in the chunk at the row's character span
        chunk = knowledge_base.chunks[source["chunk_id"]]
        assert chunk.char_start <= source["char_start"] < source["char_end"] <= chunk.char_end
    # values come first among the facts, and no more than a compact table of them
    kinds = [item["kind"] for item in graph]
    assert kinds[: len(values)] == ["value"] * len(values)
    assert len(values) <= 8


def test_values_only_for_explicit_facts_that_name_an_analyte_and_only_in_hybrid(service: Any) -> None:
    def values(answer: Any) -> list[str]:
        return [i["text"] for i in graph_items(answer) if i["kind"] == "value"]

    ages = "What eruption ages are reported from the zircon ages?"
    assert (
        values(service.ask("Which iron contents do calc-alkaline magmas have?", category="explicit_fact"))
        == []
    )
    assert values(service.ask(ages, mode="baseline", category="explicit_fact")) == []
    assert values(service.ask(ages, mode="hybrid", category="implicit_reasoning")) == []


def test_a_row_reads_as_printed_with_its_unit_once() -> None:
    def row(**fields: Any) -> Measurement:
        base = {"measurement_id": "m", "paper_id": "p", "source_file": "p.pdf", "source_type": "text"}
        return Measurement(**{**base, **fields})

    # the printed group already carries its unit ("t = 800 Ma"): no "800 Ma Ma"
    assert row_text(row(analyte="age", value=800.0, unit="Ma", printed="800 Ma")).startswith(
        "age = 800 Ma — "
    )
    ratio = row(analyte="87Sr/86Sr", value=0.7035, uncertainty=2e-05, uncertainty_level="2σ", unit="ratio")
    assert row_text(ratio).startswith("87Sr/86Sr = 0.7035 ± 2e-05 (2σ) ratio — ")
    assert row_text(row(analyte="SiO2", value=52.1, unit="wt.%", printed="52.1")).startswith(
        "SiO2 = 52.1 wt.%"
    )
    # a unit printed in another form than the normalized one ("kyr" read as ka) and an approximate
    # value whose "~" is printed: each once (was "~~500 kyr ka")
    approx = row(analyte="age", value=500.0, unit="ka", qualifier="~", printed="~500 kyr")
    assert row_text(approx).startswith("age = ~500 kyr — ")
    spread = row(
        analyte="age", value=200.0, value_max=700.0, unit="ka", qualifier="range", printed="200-700 kyr"
    )
    assert row_text(spread).startswith("age = 200-700 kyr — ")
    assert row_text(row(analyte="age", value=28.0, unit="Ma", qualifier="~", printed="28")).startswith(
        "age = ~28 Ma — "
    )
    # a qualifier printed in words or as "∼" stays as printed (was "~ca. 2,312 Ma", "~∼512–510 Ma")
    for printed in ("ca. 2,312 Ma", "∼512–510 Ma", "about 3 Ga", "≤ 0.5"):
        qualified = row(analyte="age", value=1.0, unit="Ma", qualifier="~", printed=printed)
        assert row_text(qualified).startswith(f"age = {printed}"), row_text(qualified)
    assert row_text(row(analyte="Sr", value=0.5, unit="ppm", qualifier="<", printed="0.5")).startswith(
        "Sr = <0.5 ppm"
    )
    # an ID-TIMS age prints its unit and level inside the group: each once
    tims = row(analyte="age", value=1095.69, uncertainty=0.18, uncertainty_level="2σ", unit="Ma",
               printed="1095.69 ± 0.18 (0.35) [1.14] Ma (2s)")  # fmt: skip
    assert row_text(tims).startswith("age = 1095.69 ± 0.18 (0.35) [1.14] Ma (2s) — ")


def test_the_named_sample_s_rows_and_the_row_the_question_describes_come_first() -> None:
    """A question that names a sample gets that sample's rows only (FC4b and FC-4b alike), and among
    the rows of one passage the one whose label shares the question's words ("weighted mean") first."""
    from geo_rag_runtime.models import RetrievedItem
    from geo_rag_runtime.query.reported_values import value_facts

    def row(n: int, sample: str, label: str, column: str, value: float) -> Measurement:
        return Measurement(
            measurement_id=f"m{n}", paper_id="p", source_file="dr1.pdf", source_type="table", analyte="age",
            value=value, unit="Ma", sample=sample, sample_key=sample, chunk_id="c1", row=label, column=column,
            table_label="Table DR1", char_start=n,
        )  # fmt: skip

    rows = [
        row(1, "PRI", "PRI / z2", "Isotopic Ages 206Pb/238U", 1096.37),
        row(2, "FC-4b", "FC-4b / z10", "Isotopic Ages 206Pb/238U", 1095.85),
        row(3, "FC-4b", "weighted mean 206Pb/238U age = 1095.69 ± 0.18 Ma (2s)", "", 1095.69),
        row(4, "PRI", "weighted mean 206Pb/238U age = 1096.19 ± 0.19 Ma (2s)", "", 1096.19),
    ]

    class Reader:
        def measurement_analytes(self) -> list[str]:
            return ["age"]

        def find_measurements(self, **_: Any) -> list[Measurement]:
            return list(rows)

    passage = RetrievedItem(kind="chunk", text="…", score=1.0, retriever="dense", chunk_id="c1", paper_id="p")
    asked = _question("What is the weighted mean 206Pb/238U age of sample FC4b?")
    facts = value_facts(asked, [passage], Reader())  # type: ignore[arg-type]
    assert [f.measurement.value for f in facts if f.measurement] == [1095.69, 1095.85]
    # no sample named: every sample's rows, the weighted means first
    facts = value_facts(_question("What weighted mean ages are reported?"), [passage], Reader())  # type: ignore[arg-type]
    assert [f.measurement.value for f in facts if f.measurement][:2] == [1095.69, 1096.19]
