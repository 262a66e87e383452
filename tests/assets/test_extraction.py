"""Triple extraction on real corpus sentences: rules-v1 and the LLM extractor behind a mock transport."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from geo_assets.graph.extraction import (
    RULES_EXTRACTOR,
    TRIPLE_JSON_SCHEMA,
    LLMTripleExtractor,
    extract_chunk_triples,
    extract_triples,
    extract_triples_with,
)
from geo_rag_runtime import contract
from geo_rag_runtime.models import Chunk
from geo_rag_runtime.vocab import RELATIONS, load_vocabulary

# Sentences from the shared corpus (Zhu 2024, Keller 2019, Vermeesch 2021/2022, McNab & Ball 2023).
ZHU = (
    "The felsic rocks have positive εNd(t) values (1.3–2.1), which are indistinguishable from the mafic rocks "
    "of the Ulgey bimodal suite. The mafic rocks have SiO2 contents of 45.1–49.9 wt.%. The lack of a correlation "
    "between Nb/La and Th/La, and the low Th/Ce (0.05–0.06) indicate negligible crustal contamination during the "
    "evolution of the basalts. Zircon U–Pb dating results indicate the Silurian age of the Mukhar formation. "
    "The positive correlation of Cr and Ni contents against Mg#, and Ni versus Cr diagrams indicate the "
    "fractional crystallization of olivine and clinopyroxene."
)
KELLER = (
    "Due to its low density and fusibility, subducted sediment in the mantle wedge is often incorporated into "
    "new arc magmas. This section applies the discordance filters to a dataset of 70 869 zircon U–Pb analyses "
    "that were acquired by Sensitive High Resolution Ion Micro-Probe (SHRIMP) mass spectrometry. Zircons from "
    "this sample were analyzed by electron microprobe. Hawaiian basalts are tholeiitic."
)


def chunk(text: str, ordinal: int = 0, paper_id: str = "p1", section: str = "Results") -> Chunk:
    return Chunk(
        chunk_id=contract.chunk_id(paper_id, ordinal, text),
        paper_id=paper_id,
        source_file=f"{paper_id}.pdf",
        section=section,
        ordinal=ordinal,
        char_start=0,
        char_end=len(text),
        token_count=len(text.split()),
        text=text,
    )


def facts(text: str) -> set[tuple[str, str, str]]:
    return {(t.head, t.relation, t.tail) for t in extract_chunk_triples(chunk(text))}


def test_rules_on_real_sentences() -> None:
    found = facts(ZHU)
    assert ("εNd", "HAS_VALUE", "1.3–2.1") in found
    assert ("SiO2", "HAS_VALUE", "45.1–49.9 wt.%") in found
    assert ("Th/Ce", "HAS_VALUE", "0.05–0.06") in found
    assert ("Th/Ce", "INDICATES", "crustal contamination") not in found  # "indicate negligible ..."
    assert ("zircon", "DATED_BY", "U–Pb") in found
    assert ("Cr", "INDICATES", "fractional crystallization") in found
    # vocabulary-structural facts
    assert ("εNd", "RATIO_OF", "Nd") in found and ("SiO2", "OXIDE_OF", "Si") in found
    assert ("Nb/La", "RATIO_OF", "La") in found

    found = facts(KELLER)
    assert ("U–Pb", "MEASURED_BY", "SHRIMP") in found
    assert ("zircon", "MEASURED_BY", "EPMA") in found
    assert ("basalt", "OCCURS_IN", "Hawaii") in found
    assert ("basalt", "BELONGS_TO", "tholeiitic") in found
    assert not any(r == "DATED_BY" and t == "EPMA" for _, r, t in found)  # "analyzed by" is no dating


def test_triples_fit_the_relation_vocabulary_and_carry_provenance() -> None:
    c = chunk(ZHU + " " + KELLER)
    triples = extract_chunk_triples(c)
    assert len(triples) >= 20
    types = set(load_vocabulary().types)
    for t in triples:
        assert RELATIONS[t.relation].allows(t.head_type, t.tail_type), t
        assert t.head_type in types and t.tail_type in types
        assert (t.paper_id, t.chunk_id, t.extractor) == ("p1", c.chunk_id, RULES_EXTRACTOR)
        assert t.sentence in " ".join(c.text.split())
        assert t.triple_id == contract.triple_id(c.chunk_id, t.head, t.relation, t.tail, t.sentence)
        assert 0 < t.confidence <= 1
    values = [t for t in triples if t.tail_type == "Measurement" and t.tail == "45.1–49.9 wt.%"]
    assert values and values[0].attributes["unit"] == "wt.%" and values[0].attributes["low"] == 45.1


def test_deterministic_and_unique_ids() -> None:
    chunks = [chunk(ZHU, 0), chunk(KELLER, 1)]
    first, second = extract_triples(chunks), extract_triples(chunks)
    assert [t.model_dump() for t in first] == [t.model_dump() for t in second]
    assert len({t.triple_id for t in first}) == len(first)


def test_structural_facts_once_per_chunk() -> None:
    text = "87Sr/86Sr ratios are high. The basalts have 87Sr/86Sr ratios of 0.7035."
    triples = extract_chunk_triples(chunk(text))
    ratio_of = [t for t in triples if t.relation == "RATIO_OF"]
    assert [(t.head, t.tail) for t in ratio_of] == [("87Sr/86Sr", "Sr")]
    assert ("87Sr/86Sr", "HAS_VALUE", "0.7035") in {(t.head, t.relation, t.tail) for t in triples}


def test_negation_and_reference_sections_are_skipped() -> None:
    assert ("Th/U", "INDICATES", "metamorphism") not in facts("Th/U ratios do not indicate metamorphism.")
    assert extract_chunk_triples(chunk(ZHU, section="References")) == []


# --- LLM extractor ----------------------------------------------------------------------------------


def completion(content: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 0,
        "model": "test-model",
        "choices": [
            {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content}}
        ],
        "usage": {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20},
    }


def make_llm(content: str | None, seen: list[dict[str, Any]], status: int = 200) -> Any:
    from geo_rag_runtime.llm import LLMClient
    from geo_rag_runtime.settings import Settings

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(json.loads(request.content))
        if status != 200:
            return httpx.Response(status, json={"error": {"message": "bad"}})
        return httpx.Response(200, json=completion(content or ""))

    settings = Settings(llm_model="test-model", openai_base_url="http://llm.invalid/v1", llm_retries=0)
    return LLMClient(settings, http_client=httpx.Client(transport=httpx.MockTransport(handler)))


def test_llm_extractor_validates_against_vocabulary() -> None:
    evidence = "Zircon U–Pb dating results indicate the Silurian age of the Mukhar formation."
    rows = [
        {
            "head": "Zircons",
            "head_type": "Mineral",
            "relation": "DATED_BY",
            "tail": "U-Pb",
            "tail_type": "GeochronometerSystem",
            "evidence": evidence,
        },
        {
            "head": "εNd(t)",
            "head_type": "IsotopeRatio",
            "relation": "has_value",
            "tail": "1.3–2.1",
            "tail_type": "Measurement",
            "evidence": "made-up evidence",
        },
        {
            "head": "zircon",
            "head_type": "Mineral",
            "relation": "LOVES",
            "tail": "Hf",
            "tail_type": "Element",
            "evidence": evidence,
        },  # unknown relation
        {
            "head": "unobtainium",
            "head_type": "Mineral",
            "relation": "CONTAINS",
            "tail": "Hf",
            "tail_type": "Element",
            "evidence": evidence,
        },  # not in the vocabulary
        {
            "head": "Hf",
            "head_type": "Element",
            "relation": "CONTAINS",
            "tail": "zircon",
            "tail_type": "Mineral",
            "evidence": evidence,
        },  # violates the type constraint
        {
            "head": "zircon",
            "head_type": "Gemstone",
            "relation": "CONTAINS",
            "tail": "Hf",
            "tail_type": "Element",
            "evidence": evidence,
        },  # unknown type
    ]
    seen: list[dict[str, Any]] = []
    llm = make_llm(json.dumps({"triples": rows}), seen)
    extractor = LLMTripleExtractor(llm)
    c = chunk(ZHU)
    triples = extractor.extract_chunk(c)
    got = {(t.head, t.relation, t.tail): t for t in triples}
    assert set(got) == {("zircon", "DATED_BY", "U–Pb"), ("εNd", "HAS_VALUE", "1.3–2.1")}
    dated = got[("zircon", "DATED_BY", "U–Pb")]
    assert dated.sentence == evidence and dated.attributes["evidence_verified"] is True
    assert dated.extractor == "llm:test-model" and dated.chunk_id == c.chunk_id
    assert got[("εNd", "HAS_VALUE", "1.3–2.1")].attributes["evidence_verified"] is False
    assert extractor.dropped == 4
    request = seen[0]
    assert request["response_format"]["json_schema"]["schema"] == TRIPLE_JSON_SCHEMA
    assert request["max_tokens"] == 1500 and "DATED_BY" in request["messages"][0]["content"]


def test_extract_with_llm_adds_structural_and_falls_back_on_failure() -> None:
    ok = make_llm(json.dumps({"triples": []}), [])
    triples = extract_triples_with([chunk(ZHU)], llm=ok)
    assert triples and all(t.attributes.get("rule") == "vocabulary" for t in triples)

    broken = make_llm(None, [], status=500)
    fallback = extract_triples_with([chunk(ZHU)], llm=broken)
    assert {t.extractor for t in fallback} == {RULES_EXTRACTOR}
    assert len(fallback) == len(extract_triples([chunk(ZHU)]))


def test_without_llm_the_rules_run() -> None:
    assert extract_triples_with([chunk(KELLER)]) == extract_triples([chunk(KELLER)])


@pytest.mark.parametrize("relation", sorted(RELATIONS))
def test_schema_lists_every_relation(relation: str) -> None:
    enum = TRIPLE_JSON_SCHEMA["properties"]["triples"]["items"]["properties"]["relation"]["enum"]
    assert relation in enum
