"""Answer-level metrics on hand-made answers whose values are worked out by hand here."""

import math

from geo_assets.evaluation.answer_metrics import (
    answer_evidence_recall,
    both_papers_found,
    carried_passages,
    reference_numbers,
    reference_numbers_stated,
)

AGE = (
    "Fifteen analyses of sample 19MAT-169 yield a weighted mean 206Pb/238U age of 410 ± 4 Ma "
    "(MSWD = 1.2), which we interpret as the crystallisation age."
)
PLUME = "The high Th/Yb ratios of the basalts point to a mantle plume source beneath the ocean."


def test_a_quoted_passage_is_carried_and_a_neighbour_is_not() -> None:
    answer = f"{AGE[:-1]} [V0]. The basalts were sampled along the coast [V1]."
    assert carried_passages(answer, [AGE, PLUME]) == [True, False]
    value = answer_evidence_recall(answer, [AGE, PLUME], answerable=True)
    assert value.value == 0.5 and value.status == "ok"


def test_a_passage_quoted_with_the_extraction_s_glyphs_is_carried_by_the_printed_text() -> None:
    """A reference passage quoted as pypdf extracted it ("ðxo = −3.84, yo =2.12Þ", a maths font's
    brackets) read "2" where the page prints "2.12", so an answer quoting the page as printed
    ("(xo = -3.84, yo = 2.12)") missed a number of the passage and carried nothing."""
    passage = (
        "These two lines intersect at ðxo = −3.84, yo =2.12Þ, which is equivalent to a hypothetical common "
        "magma source with a normalised A–F–M composition of (Ao =0.23 %, Fo =10.72 %, Mo =89.05 %; see Fig. 2d)."
    )
    answer = (
        "Eq. 5 These two lines intersect at (xo = -3.84, yo = 2.12), which is equivalent to a hypothetical "
        "common magma source with a normalised A–F–M composition of (Ao = 0.23 %, Fo = 10.72 %, "
        "Mo = 89.05 %; see Fig. 2d) [V1]."
    )
    assert carried_passages(answer, [passage]) == [True]
    assert carried_passages(answer.replace("10.72", "10.27"), [passage]) == [False]


def test_a_paraphrase_counts_when_its_words_and_numbers_rest_on_the_passage() -> None:
    # every number in the passage, most content words shared: attributed
    assert carried_passages("Sample 19MAT-169 gave a weighted mean 206Pb/238U age of 410 ± 4 Ma.", [AGE])
    # one number the passage does not state: never carried, however similar the words
    assert carried_passages("Sample 19MAT-169 gave a weighted mean 206Pb/238U age of 420 ± 4 Ma.", [AGE]) == [
        False
    ]


def test_abstention_and_unanswerable() -> None:
    assert answer_evidence_recall("Not found in the corpus.", [AGE], answerable=True).value == 0.0
    undefined = answer_evidence_recall("anything", [], answerable=False)
    assert math.isnan(undefined.value) and undefined.status == "undefined"


def test_numbers_are_values_not_notation() -> None:
    assert reference_numbers("87Sr/86Sr of 0.70352 and εNd of −2.1; 206Pb/238U age 1,096.19 ± 0.19 Ma") == {
        "0.70352",
        "-2.1",
        "1096.19",
        "0.19",
    }
    stated = reference_numbers_stated("The age is 410 Ma [V0].", "410 ± 4 Ma", answerable=True)
    assert stated.value == 0.5
    assert reference_numbers_stated("x", "No numbers here.", answerable=True).status == "undefined"


def test_both_papers_found_in_the_top_five() -> None:
    files = ["A.pdf", "A.pdf", "C.pdf", "A.pdf", "D.pdf", "B.pdf"]
    assert both_papers_found(files, ["A.pdf", "C.pdf"]).value == 1.0
    assert both_papers_found(files, ["A.pdf", "B.pdf"]).value == 0.0  # B only at rank 6
    assert both_papers_found(files, ["A.pdf"]).status == "undefined"
