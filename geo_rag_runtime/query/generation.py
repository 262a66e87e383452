"""Answer generation from the merged context: an LLM when configured, extraction otherwise.

Both generators read the same :class:`~geo_rag_runtime.query.context.ContextBundle` and cite its items with
markers ``[V0]`` (the first passage) and ``[G1]`` (the second graph fact or reported value): the
``marker`` of an item of ``Answer.contexts``; the markers are parsed back into citations, so every
answer names the chunks it rests on.

* :class:`LLMGenerator` asks the configured chat model (temperature 0, fixed seed, in the client) for
  an answer grounded in the numbered items, with markers after each claim, and for the exact sentence
  ``Not found in the corpus.`` when the context does not contain the answer. Markers that name no
  item are removed from the text and reported in a note.
* :class:`ExtractiveGenerator` (name ``"extractive"``) needs no model: it splits the context into
  sentences, scores each for relevance to the question (MiniLM cosine, entity and keyword overlap:
  :class:`~geo_rag_runtime.query.relevance.RelevanceScorer`), and returns the 3–5 best non-redundant
  sentences (at most about 120 words) with their markers, ordered by score, then by source order.
  (Preferring sentences of different passages for implicit-reasoning questions was measured and
  dropped: with the learned ranker it changed answer evidence recall by +0.003 on the corpus set and
  +0.005 on the dev set, docs/experiments.md.) When even the best sentence scores below
  ``not_found_threshold`` the context does not bear on the question and the answer is
  ``Not found in the corpus.``: nothing is invented.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from geo_rag_runtime.errors import ServiceError
from geo_rag_runtime.models import QueryType
from geo_rag_runtime.prompts import ANSWER, ANSWER_MULTI_HOP
from geo_rag_runtime.query.context import ContextBundle, near_duplicate, shingles
from geo_rag_runtime.query.relevance import RelevanceScorer
from geo_rag_runtime.query.selector import SelectorInput, SelectorModel, candidate_features
from geo_rag_runtime.stores.protocols import ChatModel

__all__ = [
    "NOT_FOUND",
    "Generation",
    "Generator",
    "ExtractiveGenerator",
    "LLMGenerator",
    "candidate_sentences",
    "is_prose",
    "opening_first",
    "passage_refs",
    "parse_markers",
    "render_context",
]

NOT_FOUND = "Not found in the corpus."
_MARKER_GROUP = re.compile(r"\[\s*([VG]\d+(?:\s*[,;]\s*[VG]\d+)*)\s*\]")
_MARKER = re.compile(r"[VG]\d+")
_NOT_FOUND_PREFIX = re.compile(r"^\W*not found in the corpus", re.IGNORECASE)
_SPACE = re.compile(r"\s+")
_WORDS = re.compile(r"\S+")
_LETTER = re.compile(r"[^\W\d_]", re.UNICODE)
# a sentence that leans on the one before it ("However despite this shortcoming, the model …",
# "It also serves …"): quoted first, the answer would open with a reference to nothing
_LEANS_BACK = re.compile(
    r"^(?:however|but|yet|thus|hence|therefore|consequently|moreover|furthermore|also|in addition|"
    r"in contrast|by contrast|despite this|this|these|those|that|such|it|its|they|their|"
    r"the latter|the former|the (?:first|second|third|last|other) (?:of (?:these|them|those)|one)|"
    r"the same|similarly|likewise|instead|both of these)\b",
    re.IGNORECASE,
)
# reference entries ("(2018) A stochastic ...", "Keller, C.B., ... (2018)"), figure/table labels
_NOT_PROSE = re.compile(
    r"^\s*(?:\(\d{4}[a-z]?\)|(?:Fig(?:ure)?|Table|Tab)\.?\s*S?\d+[a-z]?\b[.:|]?|doi:|https?://)",
    re.IGNORECASE,
)


@dataclass
class Generation:
    """An answer, who produced it, the context items it cites (in order of first use) and notes."""

    answer: str
    generator: str
    markers: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    prompts: list[str] = field(default_factory=list)  # ids of the prompt templates sent to a model


class Generator(Protocol):
    @property
    def name(self) -> str: ...

    def generate(self, question: str, context: ContextBundle, category: QueryType) -> Generation: ...


def parse_markers(text: str) -> list[str]:
    """Citation markers in ``text`` (``[V0]``, ``[G1]``, ``[V0, G2]``) in order of first use."""
    found: list[str] = []
    for group in _MARKER_GROUP.finditer(text):
        for marker in _MARKER.findall(group.group(1)):
            if marker not in found:
                found.append(marker)
    return found


def render_context(context: ContextBundle) -> str:
    """The numbered context as the LLM sees it: one block per item, marker first."""
    blocks = []
    for i, chunk in enumerate(context.chunks):
        where = ", ".join(x for x in (chunk.source_file, chunk.section) if x)
        blocks.append(f"[V{i}] ({where})\n{_SPACE.sub(' ', chunk.text).strip()}")
    for i, fact in enumerate(context.facts):
        blocks.append(f"[G{i}] {fact.text}")
    return "\n\n".join(blocks)


# --------------------------------------------------------------------------- LLM


class LLMGenerator:
    """Grounded answers from the configured chat model; markers parsed back into citations."""

    def __init__(self, llm: ChatModel, *, max_tokens: int = 512) -> None:
        self.llm = llm
        self.max_tokens = max_tokens

    @property
    def name(self) -> str:
        return str(self.llm.name)

    def generate(self, question: str, context: ContextBundle, category: QueryType) -> Generation:
        """One completion; ServiceError (or its retryable subclass) when the model fails."""
        if context.empty:
            return Generation(NOT_FOUND, self.name, notes=["the context is empty: the model was not asked"])
        prompt = ANSWER_MULTI_HOP if category == "implicit_reasoning" else ANSWER
        system, user = prompt.render(context=render_context(context), question=question)
        text = self.llm.complete(system, user, max_tokens=self.max_tokens).strip()
        if not text:
            raise ServiceError("the LLM returned an empty answer")
        if _NOT_FOUND_PREFIX.match(text):
            return Generation(NOT_FOUND, self.name, prompts=[prompt.id])
        markers = parse_markers(text)
        valid = [m for m in markers if context.item(m) is not None]
        notes = []
        invalid = [m for m in markers if m not in valid]
        if invalid:
            text = _drop_markers(text, set(invalid))
            notes.append(f"removed citation markers that name no context item: {', '.join(invalid)}")
        if not valid:
            notes.append("the LLM answer cites no context item")
        return Generation(text, self.name, valid, notes, [prompt.id])


def _drop_markers(text: str, invalid: set[str]) -> str:
    def keep(group: re.Match[str]) -> str:
        markers = [m for m in _MARKER.findall(group.group(1)) if m not in invalid]
        return f"[{', '.join(markers)}]" if markers else ""

    return _SPACE.sub(" ", _MARKER_GROUP.sub(keep, text)).replace(" .", ".").strip()


# --------------------------------------------------------------------------- extractive


@dataclass
class Candidate:
    """A sentence of the context that could be quoted or given to the model as evidence."""

    marker: str
    item: int  # position of the item in the bundle (chunks first, then facts)
    position: int  # sentence position within the item
    text: str
    score: float = 0.0  # relevance to the question (query.relevance): decides "bears on it at all"
    rank: float = 0.0  # how likely it answers the question: the selector's probability, else ``score``
    vector: np.ndarray | None = None
    also: list[str] = field(default_factory=list)  # facts stated by this very sentence

    @property
    def markers(self) -> list[str]:
        return [self.marker, *self.also]


class ExtractiveGenerator:
    """The no-LLM answer: the most relevant context sentences, cited (see module docstring)."""

    name = "extractive"

    def __init__(
        self,
        scorer: RelevanceScorer,
        *,
        selector: SelectorModel | None = None,
        max_sentences: int = 5,
        min_sentences: int = 3,
        max_words: int = 120,
        not_found_threshold: float = 0.3,
        relative_floor: float = 0.6,
        redundancy_cosine: float = 0.9,
    ) -> None:
        self.scorer = scorer
        self.selector = selector
        self.max_sentences = max_sentences
        self.min_sentences = min_sentences
        self.max_words = max_words
        self.not_found_threshold = not_found_threshold
        self.relative_floor = relative_floor
        self.redundancy_cosine = redundancy_cosine

    def candidates(self, context: ContextBundle) -> list[Candidate]:
        """Answer-worthy sentences of the context: prose, not table rows, headers or fragments.

        A fact extracted from a sentence that a passage of the context also holds is no candidate
        of its own: the passage's sentence carries both markers (``[V0][G2]``).
        """
        out: list[Candidate] = []
        for i, chunk in enumerate(context.chunks):
            for position, sentence in candidate_sentences(chunk.text):
                out.append(Candidate(f"V{i}", i, position, sentence))
        by_text = {_fold(c.text): c for c in out}
        for j, fact in enumerate(context.facts):
            sentence = _fact_sentence(fact)
            if not sentence:
                continue
            same = by_text.get(_fold(sentence))
            if same is None:
                key = _fold(sentence)
                same = next((c for t, c in by_text.items() if key in t or (len(t) > 40 and t in key)), None)
            if same is not None:
                same.also.append(f"G{j}")
            else:
                out.append(Candidate(f"G{j}", len(context.chunks) + j, 0, sentence))
        return out

    def scored_candidates(self, question: str, context: ContextBundle) -> list[Candidate]:
        """The context's answer-worthy sentences, each scored for relevance to the question (also the
        grounded generator's evidence pool)."""
        candidates = self.candidates(context)
        if not candidates:
            return candidates
        self.scorer.prefill(passage_refs([*context.chunks, *context.facts]))
        relevance = self.scorer.for_question(question)
        scores = relevance.score([c.text for c in candidates])
        for candidate, score in zip(candidates, scores, strict=True):
            candidate.score = candidate.rank = score.total
        if self.selector is not None:
            facts = len(context.chunks)
            inputs = [SelectorInput(c.text, c.item, c.position, c.item >= facts) for c in candidates]
            ranks = self.selector.score(candidate_features(relevance, inputs, scores))
            for candidate, rank in zip(candidates, ranks, strict=True):
                candidate.rank = float(rank)
        return candidates

    def generate(self, question: str, context: ContextBundle, category: QueryType) -> Generation:
        if context.empty:
            return Generation(NOT_FOUND, self.name, notes=["nothing was retrieved"])
        candidates = self.scored_candidates(question, context)
        if not candidates:
            return Generation(NOT_FOUND, self.name, notes=["the context holds no answerable sentence"])
        best = max(c.score for c in candidates)
        if best < self.not_found_threshold:
            return Generation(
                NOT_FOUND,
                self.name,
                notes=[
                    f"no retrieved sentence bears on the question (best relevance {best:.2f} < "
                    f"{self.not_found_threshold:.2f})"
                ],
            )
        chosen = self._select(candidates)
        chosen.sort(key=lambda c: (-round(c.rank, 2), c.item, c.position))
        chosen = opening_first(chosen)
        answer = " ".join(cite(c.text, c.markers) for c in chosen)
        return Generation(answer, self.name, list(dict.fromkeys(m for c in chosen for m in c.markers)))

    def _select(self, candidates: list[Candidate]) -> list[Candidate]:
        """The best-ranked sentences that bear on the question, non-redundant, within the word limit."""
        relevant = [c for c in candidates if c.score >= self.not_found_threshold]
        best = max(c.rank for c in relevant)
        # a relevance score has no scale of its own, so a sentence far below the best is left out; the
        # selector's probabilities rank, and the answer is filled by rank up to the word limit (with
        # the 0.6 floor too, the packaged ranker's answers lost 0.038 evidence recall on the corpus set)
        floor = self.relative_floor if self.selector is None else 0.0
        pool = [c for c in relevant if c.rank >= floor * best]
        vectors = self.scorer.cache.embed([c.text for c in pool])  # cached by the scoring above
        for candidate, vector in zip(pool, vectors, strict=True):
            candidate.vector = vector
        chosen: list[Candidate] = []
        words = 0
        seen: list[set[tuple[str, ...]]] = []
        pool.sort(key=lambda c: (-c.rank, c.item, c.position))
        for candidate in pool:
            if len(chosen) >= self.max_sentences:
                break
            length = len(_WORDS.findall(candidate.text))
            if chosen and words + length > self.max_words:
                if len(chosen) >= self.min_sentences:
                    break
                continue  # too long to add; a shorter one may still fit
            own = shingles(candidate.text)
            if any(
                float(candidate.vector @ other.vector) >= self.redundancy_cosine  # type: ignore[operator]
                for other in chosen
            ) or any(near_duplicate(own, other) for other in seen):
                continue
            chosen.append(candidate)
            seen.append(own)
            words += length
        return chosen


def candidate_sentences(text: str) -> list[tuple[int, str]]:
    """(position, sentence) of the answer-worthy sentences of a passage, as the generator quotes
    them: split, stripped of spaces and ellipses, whitespace collapsed, prose only. The
    ``sentence_embeddings`` asset embeds these very texts at ingest (``query.sentence_vectors``)."""
    from geo_rag_runtime.text.sentences import split_sentences

    out = []
    for position, (start, end) in enumerate(split_sentences(text)):
        sentence = _SPACE.sub(" ", text[start:end].strip(" …"))
        if is_prose(sentence):
            out.append((position, sentence))
    return out


def passage_refs(items: Sequence[Any]) -> list[tuple[str | None, str | None]]:
    """(paper id, chunk id) of every chunk these context items rest on: a passage, the windows a
    stitched passage joins, the source sentences of a fact (whose stored sentence vectors the
    scoring may use)."""
    refs: list[tuple[str | None, str | None]] = []
    for item in items:
        refs.append((item.paper_id, item.chunk_id))
        for prov in item.provenance:
            refs.append((prov.get("paper_id") or item.paper_id, prov.get("chunk_id")))
    return list(dict.fromkeys(refs))


def opening_first(chosen: list[Candidate]) -> list[Candidate]:
    """The chosen sentences in rank order, except that the answer does not open with a sentence
    that leans on one the reader has not seen ("However despite this shortcoming, …", "The first of
    these segments …"): the best-ranked sentence that stands on its own goes first; and a leaning
    sentence whose antecedent (the sentence before it in its passage) is chosen too follows it
    directly, so "It also serves …" reads after what "it" is. Only the order changes."""
    if not chosen:
        return chosen
    order = list(chosen)
    if _LEANS_BACK.match(order[0].text):
        first = next((c for c in order if not _LEANS_BACK.match(c.text)), None)
        if first is not None:
            order = [first, *(c for c in order if c is not first)]
    for candidate in [c for c in order if _LEANS_BACK.match(c.text)]:
        antecedent = next(
            (c for c in order if c.item == candidate.item and c.position == candidate.position - 1), None
        )
        if antecedent is not None:
            order.remove(candidate)
            order.insert(order.index(antecedent) + 1, candidate)
    return order


def is_prose(sentence: str) -> bool:
    """A sentence worth quoting: not a heading, caption label, reference entry or table row."""
    words = _WORDS.findall(sentence)
    if not 5 <= len(words) <= 90:
        return False
    if not sentence.rstrip("\"'”’»)]").endswith((".", "!", "?")):
        # a heading ("2 The inverse Re–Os isochron") or half a sentence that a layout break or the
        # chunk's end cut off; quoting only whole sentences raised the corpus set's answer evidence
        # recall 0.358 → 0.371 (docs/experiments.md)
        return False
    if _NOT_PROSE.match(sentence):
        return False
    if sentence.rstrip().endswith(":"):
        return False  # it introduces an equation or a list that the text extraction did not keep
    letters = len(_LETTER.findall(sentence))
    return letters >= 0.55 * len(sentence.replace(" ", ""))


def _fact_sentence(fact: Any) -> str:
    """A fact as answer text: the source sentence it was extracted from, else the fact itself."""
    for prov in fact.provenance:
        sentence = prov.get("sentence")
        if isinstance(sentence, str) and is_prose(sentence):
            return _SPACE.sub(" ", sentence).strip()
    return _SPACE.sub(" ", fact.text).strip()


def _fold(text: str) -> str:
    return _SPACE.sub(" ", text).strip().casefold()


def cite(sentence: str, markers: Sequence[str]) -> str:
    """``sentence [V0][G2].`` — the markers go before the final full stop."""
    text = sentence.rstrip()
    cited = "".join(f"[{m}]" for m in markers)
    if text.endswith(".") and not text.endswith("..."):
        return f"{text[:-1]} {cited}."
    return f"{text} {cited}"
