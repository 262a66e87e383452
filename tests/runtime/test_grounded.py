"""Attribution of the local model's answer sentences to the evidence it was shown (pure code: the
model's part is tested against the real model in test_local_llm)."""

from __future__ import annotations

from geo_rag_runtime.query.grounded import attribute_answer, attribute_sentences, split_answer

# Real sentences of Keller et al. (2019, PNAS): the listing the model reads, numbered from 0 here.
LISTED = [
    "Modern glacial erosion rates are highly variable, estimated to span some four orders of magnitude "
    "from ∼0.01 mm/y to ∼100 mm/y.",
    "Present-day sea level prior to the Neoproterozoic is reproduced with ∼4.5 km glacial erosion in the "
    "constant sedimentation model, and ∼3.5 km in the variable sedimentation model.",
    "For comparison, 4 km of erosion over 64 Ma of Neoproterozoic glaciation would require an average "
    "erosion rate of only 0.0625 mm/y.",
]


def test_a_sentence_written_from_an_unchosen_listed_sentence_is_kept_and_cited_there() -> None:
    sentences = [
        "Modern glacial erosion rates span four orders of magnitude from 0.01 mm/y to 100 mm/y.",
        "An average erosion rate of only 0.0625 mm/y would be required for 4 km of erosion over 64 Ma.",
        "Erosion of 9 km is required.",  # a number no evidence states: never supported
    ]
    chosen = [0, 1]
    only_chosen = attribute_sentences(sentences, [LISTED[i] for i in chosen])
    assert [a.evidence for a in only_chosen] == [0, None, None]
    answer = attribute_answer(sentences, LISTED, chosen)
    assert [a.evidence for a in answer] == [0, 2, None]  # indices into the listing
    assert answer[1].overlap >= 0.6


def test_chosen_evidence_wins_over_an_equally_good_listed_sentence() -> None:
    listed = [LISTED[2], LISTED[2].replace("For comparison, ", "")]
    answer = attribute_answer(["4 km of erosion over 64 Ma would require 0.0625 mm/y."], listed, [1])
    assert answer[0].evidence == 1


def test_abbreviations_do_not_end_answer_sentences() -> None:
    text = "Errors rise for aliquot c (Fig. 3c). Keller et al. 2019 use e.g. freeboard [V1]. It ends."
    assert split_answer(text) == [
        "Errors rise for aliquot c (Fig. 3c).",
        "Keller et al. 2019 use e.g. freeboard.",
        "It ends.",
    ]


def test_a_yes_or_no_verdict_is_not_carried_by_a_supported_clause() -> None:
    text = "Yes, one hundred seven of these zircon grains were large enough. No. It does not. Nobody knows."
    assert split_answer(text) == [
        "One hundred seven of these zircon grains were large enough.",
        "It does not.",  # "No." reads as an abbreviation ("No. 5"), so it joins its sentence and goes
        "Nobody knows.",
    ]
