"""Abstention: a question's entities must occur in the context (real vocabulary recognizer)."""

from __future__ import annotations

from geo_rag_runtime.models import RetrievedItem
from geo_rag_runtime.query.abstention import (
    abstention_text,
    asks_for_value,
    missing_entities,
    no_value_text,
    unsupported,
    unvalued_quantities,
)
from geo_rag_runtime.query.context import ContextBundle
from geo_rag_runtime.vocab import recognize


def passage(text: str) -> RetrievedItem:
    return RetrievedItem(kind="chunk", text=text, score=1.0, retriever="dense", chunk_id="p-c0", paper_id="p")


CASCADES = (
    "Calc-alkaline lavas of the Cascades have 87Sr/86Sr of 0.7030–0.7035 and εNd of +6 to +8, "
    "close to the depleted mantle."
)


def test_an_entity_no_passage_mentions_is_missing() -> None:
    question = "What δ11B values do the Cascades calc-alkaline lavas have?"
    missing = missing_entities(recognize(question), ContextBundle(chunks=[passage(CASCADES)]), recognize)
    assert missing == ["δ11B"]


def test_synonyms_plurals_and_split_phrases_count_as_mentions() -> None:
    context = ContextBundle(
        chunks=[passage(CASCADES + " Strontium isotopes in the lava were measured by TIMS.")]
    )
    for question in (
        "What 87Sr/86Sr ratios do the Cascades lavas have?",
        "How high is strontium in the calc-alkaline lava?",  # canonical name vs surface
        "Which Cascades lavas were dated?",
    ):
        assert missing_entities(recognize(question), context, recognize) == [], question


def test_other_word_forms_of_an_entity_count_as_mentions() -> None:
    """Stemmed keyword tokens: "tholeiites" ↔ "tholeiitic", "40Ar/39Ar dating" ↔ "40Ar/39Ar dates";
    notation still has to match whole."""
    context = ContextBundle(
        chunks=[
            passage(
                "Icelandic tholeiitic lavas define two linear segments; 40Ar/39Ar dates of the "
                "lithospheric mantle xenoliths agree."
            )
        ]
    )
    for question in (
        "How do the Icelandic tholeiites differ from each other?",
        "How is 40Ar/39Ar dating used on the lithosphere?",
    ):
        assert missing_entities(recognize(question), context, recognize) == [], question
    assert missing_entities(recognize("What δ11B do tholeiites have?"), context, recognize) == ["δ11B"]


def test_numbers_in_the_question_are_givens_not_topics() -> None:
    question = "If the Cascades lavas were 101.1 Ma old, what εNd would they have?"
    assert missing_entities(recognize(question), ContextBundle(chunks=[passage(CASCADES)]), recognize) == []


def test_class_names_describe_and_are_not_topics() -> None:
    # Vermeesch 2023 (JGR Earth Surface): the passages say "metamorphic" and "igneous", never "rocks"
    text = "Titanites from catchments draining metamorphic terranes have lower Zr than igneous titanites."
    question = "How does titanite differ between catchments draining metamorphic rocks and igneous rocks?"
    assert missing_entities(recognize(question), ContextBundle(chunks=[passage(text)]), recognize) == []
    assert missing_entities(
        recognize("What δ11B do igneous rocks have?"), ContextBundle(chunks=[passage(text)]), recognize
    ) == ["δ11B"]


def test_graph_facts_do_not_count_as_mentions() -> None:
    def fact(sentence: str | None) -> RetrievedItem:
        provenance = [{"chunk_id": "p-c1", "sentence": sentence}] if sentence else []
        return RetrievedItem(kind="fact", text="δ11B MEASURED_IN lava", score=1.0, provenance=provenance)

    question = "What δ11B values do the Cascades lavas have?"
    bare = ContextBundle(chunks=[passage(CASCADES)], facts=[fact(None)])
    assert missing_entities(recognize(question), bare, recognize) == ["δ11B"]
    # facts are fetched for the question's entities: even their source sentences name them
    cited = ContextBundle(chunks=[passage(CASCADES)], facts=[fact("The lavas have δ11B of −2 to +4 ‰.")])
    assert missing_entities(recognize(question), cited, recognize) == ["δ11B"]


def test_an_empty_context_or_question_without_entities_is_left_to_the_generators() -> None:
    assert missing_entities(recognize("What δ11B values?"), ContextBundle(), recognize) == []
    assert missing_entities(recognize("Why so?"), ContextBundle(chunks=[passage(CASCADES)]), recognize) == []


def test_abstention_text_names_what_is_missing() -> None:
    assert abstention_text(["δ11B"], "Not found.") == "Not found. The retrieved sources do not mention δ11B."
    assert abstention_text(["a", "b", "c"], "X.") == "X. The retrieved sources do not mention a, b or c."


# Li & Vermeesch 2021 / Vermeesch 2020 (Geochronology): decay constants named, one given a value
DECAY = (
    "The 187Re decay constant λ187 = 1.666 × 10−11 yr−1 (Smoliar et al., 1996) was used. "
    "The decay constants λ38, λ35 and λ32 of 238U, 235U and 232Th enter Eq. (3); their "
    "systematic uncertainties can be propagated (Steiger and Jäger, 1977)."
)


def unvalued(question: str, *items: RetrievedItem) -> list[str]:
    return unvalued_quantities(
        question, recognize(question), ContextBundle(chunks=[passage(DECAY)], facts=list(items))
    )


def test_only_questions_that_ask_for_a_value_are_checked() -> None:
    assert asks_for_value("What value of the 232Th decay constant is used?")
    assert asks_for_value("Which numerical δ18O do the zircons have?")
    assert asks_for_value("What initial 87Sr/86Sr ratios do the rhyolites have?")
    assert not asks_for_value("Why is the 232Th decay constant uncertain?")
    assert not asks_for_value("How do decay constants enter the isochron equation?")
    assert unvalued("Why is the 232Th decay constant uncertain?") == []


def test_a_value_question_needs_a_sentence_with_its_quantity_and_a_number() -> None:
    # 232Th's constant is named only symbolically, next to a citation year and an equation number
    assert unvalued("Which numerical value of the 232Th decay constant is adopted?") == [
        "232Th decay constant"
    ]
    assert unvalued("What value of the 187Re decay constant is used?") == []
    # no qualifier: any decay constant with a number answers
    assert unvalued("What decay constant values are used?") == []
    assert unvalued("What δ18O values do the rhyolites have?") == ["δ18O"]
    # figure, table and equation numbers, lists of them included, are not values
    fo2 = ContextBundle(chunks=[passage("We model oxygen fugacity via f in Eqs. 7 and 10 (Figs. 2b,c).")])
    question = "What oxygen fugacity value separates the two series?"
    assert unvalued_quantities(question, recognize(question), fo2) == ["oxygen fugacity"]


def test_a_reported_value_row_gives_the_value() -> None:
    row = RetrievedItem(
        kind="fact", text="δ18O = 5.6 ‰ (zircon, sample U-1)", score=1.0, retriever="measurements"
    )
    assert unvalued("What δ18O values do the rhyolites have?", row) == []
    graph = RetrievedItem(kind="fact", text="δ18O = 5.6 ‰", score=1.0, retriever="graph")
    assert unvalued("What δ18O values do the rhyolites have?", graph) == ["δ18O"]  # facts come from anywhere


def test_no_value_text_names_the_quantity() -> None:
    assert no_value_text(["δ18O"], "Not found.") == "Not found. The retrieved sources give no value for δ18O."


def test_unsupported_names_the_first_check_that_objects() -> None:
    context = ContextBundle(chunks=[passage(DECAY)])

    def check(question: str) -> tuple[str, str] | None:
        found = unsupported(question, recognize(question), context, recognize, "Not found.")
        return None if found is None else (found.answer, found.reason)

    assert check("What δ11B values are used?") == (
        "Not found. The retrieved sources do not mention δ11B.",
        "no retrieved passage mentions δ11B",
    )
    assert check("Which numerical value of the 232Th decay constant is adopted?") == (
        "Not found. The retrieved sources give no value for 232Th decay constant.",
        "the question asks for a value and no retrieved sentence gives one for 232Th decay constant",
    )
    assert check("What value of the 187Re decay constant is used?") is None
