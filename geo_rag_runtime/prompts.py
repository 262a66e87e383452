"""Every prompt GeoRAG sends to an LLM, in one place, as versioned templates.

Why one module: a prompt is part of the method. Changing the wording changes answers, rephrasings,
extracted triples and evaluation numbers, so each template carries a version that is bumped with
any change, answers list the ``name@version`` of every prompt they used (``Answer.prompts``), and
assets that ask an LLM record :data:`PROMPT_SET_VERSION` in their metadata.

Templates are ``str.format`` strings: literal braces (the JSON examples) are doubled. The judged
RAGAS metrics use RAGAS' own prompts (pinned with ``ragas==0.4.3``); they are not ours to version.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

__all__ = [
    "Prompt",
    "ANSWER",
    "ANSWER_MULTI_HOP",
    "SELECT_EVIDENCE",
    "WRITE_ANSWER",
    "REPHRASE",
    "EXPAND",
    "COMPRESS",
    "CHOOSE_SOURCES",
    "EXTRACT_TRIPLES",
    "WRITE_QUERIES",
    "PROMPTS",
    "PROMPT_SET_VERSION",
]


@dataclass(frozen=True)
class Prompt:
    """A system and a user template; ``render(**fields)`` fills both."""

    name: str
    version: int
    system: str
    user: str = "{question}"

    @property
    def id(self) -> str:
        """``name@vN``: what answers and asset metadata record."""
        return f"{self.name}@v{self.version}"

    def render(self, **fields: Any) -> tuple[str, str]:
        """(system, user) with the fields filled in; a missing field raises KeyError."""
        return self.system.format(**fields), self.user.format(**fields)


ANSWER = Prompt(
    "answer",
    1,
    "You are a geochemistry research assistant. Answer the question using ONLY the numbered context "
    "below: text passages [V0], [V1], ... and knowledge-graph facts [G0], [G1], .... Put the marker of "
    "the item that supports a statement right after it, e.g. 'The zircons crystallized over 1 Myr "
    "[V0][G2].' Every statement needs a marker. Do not use outside knowledge and do not guess numbers. "
    "If the context does not contain the answer, reply exactly: Not found in the corpus.",
    "Context:\n{context}\n\nQuestion: {question}\nAnswer:",
)

# Appended to ANSWER's system prompt for implicit-reasoning questions.
ANSWER_MULTI_HOP = Prompt(
    "answer_multi_hop",
    1,
    ANSWER.system
    + " The question needs reasoning over several pieces of evidence: connect the relevant items step by "
    "step (multi-hop) and cite each item you use.",
    ANSWER.user,
)

# The grounded answer is written in two narrow steps that share one prompt prefix (system + evidence +
# question), so llama.cpp reuses the prefix's KV cache for the second call: first choose the evidence
# sentences that answer the question (JSON), then write from those only. Citations are attached in
# code afterwards (query/grounded.py); the model's own markers are never trusted.
_GROUNDED_SYSTEM = (
    "You are a careful geochemistry research assistant. You read numbered evidence sentences taken "
    "from research papers and answer only from them. Keep numbers, units and notation exactly as "
    "written (87Sr/86Sr, εNd, δ18O, wt.%, ppm, Ma, ± 2σ)."
)
_GROUNDED_PREFIX = "Evidence:\n{evidence}\n\nQuestion: {question}\n\n"

SELECT_EVIDENCE = Prompt(
    "select_evidence",
    1,
    _GROUNDED_SYSTEM,
    _GROUNDED_PREFIX
    + "Task: which evidence sentences state the answer to the question? List their numbers, best "
    "first. If no sentence answers it, set answerable to false and list none. Reply with JSON: "
    '{{"answerable": true, "evidence": [2, 5]}}.',
)

WRITE_ANSWER = Prompt(
    "write_answer",
    1,
    _GROUNDED_SYSTEM,
    _GROUNDED_PREFIX
    + "Task: answer the question in at most {max_sentences} short sentences, using only evidence "
    "sentences {chosen}. State only what they say; do not add explanations, sources or markers.",
)

REPHRASE = Prompt(
    "rephrase",
    1,
    "You rewrite geochemistry questions for retrieval. Write 3 different rephrasings of "
    "the question that keep its meaning, using synonyms and the standard notation of "
    'the field (e.g. "Sr isotopes" -> "87Sr/86Sr"). Reply with JSON: '
    '{{"rephrasings": ["...", "...", "..."]}}.',
)

EXPAND = Prompt(
    "expand",
    1,
    "You expand geochemistry questions for keyword search. List up to 8 short keywords "
    "or technical terms (synonyms, related processes, elements, isotope ratios, "
    "minerals) that passages answering the question would contain. Reply with JSON: "
    '{{"keywords": ["...", "..."]}}.',
)

COMPRESS = Prompt(
    "compress",
    1,
    "You compress retrieved passages for a geochemistry question. For each passage, list the "
    "numbers of the sentences that help answer the question; list none for an irrelevant passage. "
    'Reply with JSON: {{"keep": [{{"passage": 0, "sentences": [1, 3]}}, ...]}}.',
    "Question: {question}\n\n{passages}",
)

CHOOSE_SOURCES = Prompt(
    "choose_sources",
    1,
    "You choose evidence for a geochemistry question among text passages [C#] and knowledge-graph "
    "facts [F#]. Pick at most {top_k} passages and any facts that help answer it, best first. "
    'Reply with JSON: {{"chunks": [0, 2], "facts": [1]}}.',
    "Question: {question}\n\n{listing}",
)

EXTRACT_TRIPLES = Prompt(
    "extract_triples",
    1,
    "You extract geochemical facts from research paper text as (head, relation, tail) triples.\n"
    "Use only these relations, each with its allowed head and tail entity types:\n"
    "{relations}\n"
    "Entity types: {entity_types}.\n"
    "Write entities as they are named in geochemistry (87Sr/86Sr, εNd, δ18O, U–Pb, zircon, SiO2); "
    'a Measurement or Age is a value with its unit ("52.3 wt.%", "251.9 ± 0.1 Ma").\n'
    "State only facts the text states; evidence is the sentence that states it, copied exactly.\n"
    'Answer with JSON: {{"triples": [{{"head", "head_type", "relation", "tail", "tail_type", "evidence"}}]}}.',
    "{text}",
)

WRITE_QUERIES = Prompt(
    "write_queries",
    1,
    "You write realistic questions that geochemists ask a literature assistant about rock, "
    "mineral and isotope geochemistry. Answer with JSON only.",
    "Query types:\n{definitions}\n\nWrite {batch_size} different questions of type "
    "'{label}' (batch {batch}). Vary the question words, length and wording; do not "
    "start them all the same way. Use some of these entities: "
    "{entities}.\n"
    'Return {{"queries": [{{"query": "...", "label": "{label}"}}, ...]}}.',
)

PROMPTS: dict[str, Prompt] = {
    p.name: p
    for p in (
        ANSWER,
        ANSWER_MULTI_HOP,
        REPHRASE,
        EXPAND,
        COMPRESS,
        CHOOSE_SOURCES,
        EXTRACT_TRIPLES,
        WRITE_QUERIES,
    )
}


def _set_version() -> str:
    digest = hashlib.sha256()
    for name in sorted(PROMPTS):
        prompt = PROMPTS[name]
        digest.update(f"{prompt.id}\0{prompt.system}\0{prompt.user}\0".encode())
    return digest.hexdigest()[:12]


PROMPT_SET_VERSION = _set_version()
"""Content hash of every template: any wording change gives a new value."""
