"""The LLM answer, grounded in narrow steps and cited in code.

A 1.5B model on two CPU cores reads ~10–25 tokens/s and names the wrong passage in its own [Vn]
markers about as often as the right one (docs/architecture.md#measured-pitfalls). So it is given
narrow tasks and its citations are never trusted:

1. **Evidence**: the merged context is cut into sentences (the extractive generator's candidates:
   prose only, facts by their source sentence) and scored for relevance; the best
   ``evidence_sentences`` that fit ``evidence_token_budget`` become the numbered evidence. When even
   the best scores below the not-found threshold the answer is "Not found in the corpus." without
   asking the model.
2. **Select** (``SELECT_EVIDENCE``, JSON schema): the model lists the numbers of the sentences that
   answer the question, or says none does → the extractive answer (its "none" was wrong far more
   often than right; abstention is the entity check's job, ``query/abstention.py``).
3. **Write** (``WRITE_ANSWER``, same prompt prefix so llama.cpp reuses its KV cache): a short answer
   from the chosen sentences only.
4. **Attribute** (code): each answer sentence is matched to the evidence sentence that supports it —
   its numbers must all occur in that evidence and enough of its content words (or its embedding)
   must match. The sentences the model chose are tried first, then every listed one: the model reads
   the whole listing and often writes from a sentence it did not choose (on 30 questions of the
   17-paper set, 5 of its 35 answer sentences were supported by chosen evidence, 19 by the listing,
   with the same bar). A supported sentence gets that evidence's citation markers ([V0], [G2] …); one
   that nothing supports is dropped and counted in the notes. If nothing survives, the extractive
   answer stands in (``generator="extractive"``, with a note saying why).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from geo_rag_runtime.errors import GeoRagError, ServiceError
from geo_rag_runtime.models import QueryType
from geo_rag_runtime.prompts import SELECT_EVIDENCE, WRITE_ANSWER
from geo_rag_runtime.query.context import ContextBundle
from geo_rag_runtime.query.generation import NOT_FOUND, Candidate, ExtractiveGenerator, Generation, cite
from geo_rag_runtime.query.relevance import RelevanceScorer
from geo_rag_runtime.query.selector import SelectorModel
from geo_rag_runtime.stores.protocols import ChatModel

__all__ = [
    "GroundedGenerator",
    "Attribution",
    "attribute_answer",
    "attribute_sentences",
    "content_words",
    "split_answer",
    "strip_markers",
]

_NUMBER = re.compile(r"(?<![\w.])[-−+]?\d+(?:[.,]\d+)*")
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9(\[“\"δεΔ])")
# a full stop after these ends no sentence ("(Fig. 3c)", "Eq. 5", "et al. 2013")
_ABBREVIATION = re.compile(
    r"(?:\b(?:Fig|Figs|Eq|Eqs|Tab|ca|cf|al|approx|vs|No|Ref|Refs|Sect)|\be\.g|\bi\.e)\.$"
)
_MARKERS = re.compile(r"\s*\[(?:[VGE]?\d+(?:\s*[,;]\s*[VGE]?\d+)*)\]")
_STOP = frozenset(
    [
        "the",
        "a",
        "an",
        "of",
        "in",
        "on",
        "at",
        "to",
        "for",
        "from",
        "by",
        "with",
        "and",
        "or",
        "as",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "that",
        "this",
        "these",
        "those",
        "it",
        "its",
        "their",
        "which",
        "who",
        "whom",
        "what",
        "when",
        "where",
        "why",
        "how",
        "than",
        "then",
        "there",
        "into",
        "onto",
        "about",
        "also",
        "can",
        "may",
        "not",
        "no",
        "do",
        "does",
        "did",
        "has",
        "have",
        "had",
        "between",
        "during",
        "after",
        "before",
        "over",
        "under",
        "both",
        "such",
    ]
)
SUPPORT_OVERLAP = 0.6  # share of an answer sentence's content words found in its evidence
SUPPORT_COSINE = 0.8  # or: embedding cosine to the evidence sentence


@dataclass
class Attribution:
    """One answer sentence and the evidence that supports it (None: unsupported; then ``overlap`` and
    ``cosine`` are the closest any number-consistent evidence came, shown in the answer's notes)."""

    sentence: str
    evidence: int | None
    overlap: float
    cosine: float


def content_words(text: str) -> set[str]:
    """Case-folded words of two or more letters that are not stop words."""
    return {w.casefold() for w in _WORD.findall(text) if w.casefold() not in _STOP and len(w) > 1}


def _numbers(text: str) -> set[str]:
    return {n.replace("−", "-").replace(",", "").lstrip("+") for n in _NUMBER.findall(text)}


def strip_markers(text: str) -> str:
    """The text without citation markers ([V0], [G2], [3], [V1, V2] …)."""
    return _MARKERS.sub("", text).strip()


_VERDICT = re.compile(r"^(?:yes|no)\s*[,;:.!–—-]\s*(?=\S)", re.IGNORECASE)


def split_answer(text: str) -> list[str]:
    """The model's answer as sentences, with any markers it wrote removed (they are not trusted) and
    without a leading "Yes," or "No,": attribution checks words and numbers, so a verdict would ride
    on any supported clause ("Yes, one hundred seven zircon grains were large enough" asked whether
    any grains were inherited); the clause stays, the unverifiable verdict goes."""
    clean = strip_markers(" ".join(text.split()))
    out: list[str] = []
    for piece in (s.strip() for s in _SENTENCE_END.split(clean)):
        if not piece:
            continue
        if out and _ABBREVIATION.search(out[-1]):
            out[-1] = f"{out[-1]} {piece}"
        else:
            out.append(piece)
    return [_without_verdict(sentence) for sentence in out]


def _without_verdict(sentence: str) -> str:
    rest = _VERDICT.sub("", sentence, count=1)
    return rest[:1].upper() + rest[1:] if rest != sentence else sentence


def attribute_sentences(
    sentences: Sequence[str],
    evidence: Sequence[str],
    cosine: Callable[[Sequence[str], Sequence[str]], list[list[float]]] | None = None,
) -> list[Attribution]:
    """Match each sentence to its best-supporting evidence sentence (see the module docstring)."""
    sims = cosine(sentences, evidence) if cosine is not None and sentences and evidence else None
    out = []
    for i, sentence in enumerate(sentences):
        words, numbers = content_words(sentence), _numbers(sentence)
        best: tuple[float, float, int, float] | None = None  # (support, cosine, -index, overlap)
        closest = (0.0, 0.0)  # best (overlap, cosine) of any number-consistent evidence, for the notes
        for j, source in enumerate(evidence):
            if not numbers <= _numbers(source):
                continue  # a number the evidence does not state is never supported
            overlap = len(words & content_words(source)) / len(words) if words else 0.0
            sim = sims[i][j] if sims is not None else 0.0
            closest = max(closest, (overlap, sim))
            if overlap >= SUPPORT_OVERLAP or sim >= SUPPORT_COSINE:
                score = (max(overlap, sim), sim, -j, overlap)
                if best is None or score > best:
                    best = score
        if best is None:
            out.append(Attribution(sentence, None, round(closest[0], 3), round(closest[1], 3)))
        else:
            _, sim, minus_j, overlap = best
            out.append(Attribution(sentence, -minus_j, round(overlap, 3), round(sim, 3)))
    return out


def attribute_answer(
    sentences: Sequence[str],
    listed: Sequence[str],
    chosen: Sequence[int],
    cosine: Callable[[Sequence[str], Sequence[str]], list[list[float]]] | None = None,
) -> list[Attribution]:
    """Each answer sentence matched to a listed evidence sentence (``evidence``: its index in
    ``listed``): the ``chosen`` ones first, then any listed one (module docstring, step 4)."""
    first = attribute_sentences(sentences, [listed[i] for i in chosen], cosine)
    out = [a if a.evidence is None else replace(a, evidence=chosen[a.evidence]) for a in first]
    missing = [i for i, a in enumerate(out) if a.evidence is None]
    if missing and len(chosen) < len(listed):
        again = attribute_sentences([out[i].sentence for i in missing], listed, cosine)
        for i, attribution in zip(missing, again, strict=True):
            out[i] = attribution if attribution.evidence is not None else out[i]
    return out


class GroundedGenerator:
    """Select evidence, write from it, attribute in code (module docstring)."""

    def __init__(
        self,
        llm: ChatModel,
        scorer: RelevanceScorer,
        *,
        evidence_sentences: int = 10,
        evidence_token_budget: int = 450,
        max_tokens: int = 160,
        max_sentences: int = 3,
        on_text: Callable[[str], None] | None = None,
        selector: SelectorModel | None = None,
    ) -> None:
        self.llm = llm
        self.scorer = scorer
        self.extractive = ExtractiveGenerator(scorer, selector=selector)
        self.evidence_sentences = evidence_sentences
        self.evidence_token_budget = evidence_token_budget
        self.max_tokens = max_tokens
        self.max_sentences = max_sentences
        self.on_text = on_text

    @property
    def name(self) -> str:
        return str(self.llm.name)

    def generate(self, question: str, context: ContextBundle, category: QueryType) -> Generation:
        """ServiceError when the model fails (the pipeline then answers extractively)."""
        if context.empty:
            return Generation(NOT_FOUND, self.name, notes=["nothing was retrieved: the model was not asked"])
        candidates = self.extractive.scored_candidates(question, context)
        if not candidates:
            return Generation(NOT_FOUND, self.name, notes=["the context holds no answerable sentence"])
        ranked = sorted(candidates, key=lambda c: (-c.rank, c.item, c.position))
        best = max(c.score for c in candidates)
        if best < self.extractive.not_found_threshold:
            return Generation(
                NOT_FOUND,
                self.name,
                notes=[
                    f"no retrieved sentence bears on the question (best relevance {best:.2f}): the model was not asked"
                ],
            )
        evidence: list[Candidate] = []
        words = 0
        for candidate in ranked:
            length = len(candidate.text.split())
            if evidence and (
                len(evidence) >= self.evidence_sentences
                or (words + length) * 1.4 > self.evidence_token_budget
            ):
                break
            evidence.append(candidate)
            words += length
        listing = "\n".join(f"[{i + 1}] {c.text}" for i, c in enumerate(evidence))
        prompts = [SELECT_EVIDENCE.id]
        chosen = self._select(question, listing, len(evidence))
        if not chosen:
            # The 1.5B model's "none answers" is not trusted either: on questions whose entities the
            # context names, it said so for 4 of 44 answerable questions and 0 of 20 unanswerable ones
            # (17-paper sets), so the quoted answer stands in and the notes say why.
            why = "the model found no evidence sentence that answers the question: answered extractively"
            return self._quoted(question, context, category, [why], prompts)
        prompts.append(WRITE_ANSWER.id)
        system, user = WRITE_ANSWER.render(
            evidence=listing,
            question=question,
            max_sentences=self.max_sentences,
            chosen=", ".join(str(i + 1) for i in chosen),
        )
        text = self._write(system, user)
        if not text.strip():
            raise ServiceError("the LLM returned an empty answer")
        sentences = split_answer(text)
        attributions = attribute_answer(sentences, [c.text for c in evidence], chosen, self._cosines)
        kept = [a for a in attributions if a.evidence is not None]
        notes = []
        dropped = len(attributions) - len(kept)
        if dropped:
            notes.append(f"dropped {dropped} of {len(attributions)} answer sentence(s) no evidence supports")
            notes += [
                f"unsupported (overlap {a.overlap:.2f}, cosine {a.cosine:.2f}): {a.sentence}"
                for a in attributions
                if a.evidence is None
            ]
        if not kept:
            # Mostly a number the evidence does not give ("1.5 ppm" where it says 1.26). Quoting the
            # sentences the model chose lost to the extractive answer on the hand-written sets
            # (docs/experiments.md#the-local-llm-as-writer), so that answer stands in, as after a
            # "none" verdict.
            notes.append("no sentence of the model's answer was supported: answered extractively")
            return self._quoted(question, context, category, notes, prompts)
        parts = [(a.sentence, evidence[a.evidence].markers) for a in kept if a.evidence is not None]
        answer = " ".join(cite(sentence, markers) for sentence, markers in parts)
        markers = list(dict.fromkeys(m for _, ms in parts for m in ms))
        notes.append(f"{len(kept)}/{len(attributions)} answer sentences supported by cited evidence")
        return Generation(answer, self.name, markers, notes, prompts)

    def _quoted(
        self, question: str, context: ContextBundle, category: QueryType, notes: list[str], prompts: list[str]
    ) -> Generation:
        """The extractive answer standing in for the model's, with ``notes`` saying why first."""
        quoted = self.extractive.generate(question, context, category)
        return Generation(quoted.answer, quoted.generator, quoted.markers, notes + quoted.notes, prompts)

    def _select(self, question: str, listing: str, n: int) -> list[int]:
        schema = {
            "type": "object",
            "properties": {
                "answerable": {"type": "boolean"},
                "evidence": {"type": "array", "items": {"type": "integer"}, "maxItems": n},
            },
            "required": ["answerable", "evidence"],
        }
        system, user = SELECT_EVIDENCE.render(evidence=listing, question=question)
        value = self.llm.complete_json(system, user, json_schema=schema, max_tokens=40)
        if not isinstance(value.get("answerable"), bool) or not isinstance(value.get("evidence"), list):
            raise ServiceError("evidence selection lacks 'answerable' and 'evidence'")
        if not value["answerable"]:
            return []
        return [i - 1 for i in dict.fromkeys(value["evidence"]) if isinstance(i, int) and 1 <= i <= n]

    def _write(self, system: str, user: str) -> str:
        if self.on_text is None:
            return self.llm.complete(system, user, max_tokens=self.max_tokens)
        pieces = []
        for piece in self.llm.stream(system, user, max_tokens=self.max_tokens):
            pieces.append(piece)
            self.on_text(piece)
        return "".join(pieces)

    def _cosines(self, sentences: Sequence[str], evidence: Sequence[str]) -> list[list[float]]:
        try:
            left = self.scorer.cache.embed(list(sentences))
            right = self.scorer.cache.embed(list(evidence))
        except GeoRagError:
            return [[0.0] * len(evidence) for _ in sentences]
        sims: list[list[float]] = (left @ right.T).tolist()
        return sims
