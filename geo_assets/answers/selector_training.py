"""Training the answer-sentence ranker (``geo_rag_runtime.query.selector``).

No evaluation question is used. Two sources of training questions:

**Written questions** (the packaged ranker, the default): ``data/selector/written_questions_v1.jsonl``,
723 questions written by hand for 369 passages of the 17 CC BY corpus papers, each naming the
sentence(s) of its passage that answer it and those that only partly do. Written in a reader's words
(not the sentence's), they teach what templates cannot: the answering sentence often shares few words
with the question. Measured cross-fitted (trained on the questions of half the papers, scored on the
hand-written evaluation questions about the other half), they beat the home's own template-trained
ranker; docs/experiments.md has the table. ``train_written`` fits on them against a home that holds
those papers (``scripts/train_selector.py --written``).

**Template questions** (``answer_selector=home``) are written from a sentence of the home's own papers
by templates filled with that sentence's own content, and the sentence is the one that answers:

* **values** — a reported value (a measurement row read from running text) asks for its analyte,
  with its sample, material or method when the row has them ("What U–Pb age is reported for sample
  19MAT-169?"); the row's sentence answers.
* **relations** — a sentence naming two geochemical entities asks how they relate, why, or what
  evidence links them, the question form chosen by the sentence's own wording (a causal sentence
  gets a why-question, one that "indicates" or "suggests" an evidence question).
* **topics** — inverse-cloze style: three of the sentence's rarer content words make a terse query.

Each question then goes through the real retrieval (``pipeline.retrieve_context``, hybrid mode)
and the extractive generator's candidate sentences of its context; candidates equal to the source
sentence are positives, the other sentences of the same context — the neighbours a relevance score
confuses with the answer — are negatives. A question whose source sentence did not reach the
context teaches nothing about choosing and is skipped. A logistic regression on the selector's
features (standardised, balanced classes) is the model.
"""

from __future__ import annotations

import json
import math
import random
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from rapidfuzz import fuzz

from geo_rag_runtime.query.generation import ExtractiveGenerator, candidate_sentences, is_prose
from geo_rag_runtime.query.selector import FEATURES, SelectorInput, SelectorModel, candidate_features

__all__ = [
    "MIN_QUESTIONS",
    "TRAINING_VERSION",
    "WRITTEN_QUESTIONS",
    "Example",
    "TrainingQuestion",
    "collect_examples",
    "fit",
    "fold_papers",
    "read_written_questions",
    "train_written",
    "write_questions",
]

TRAINING_VERSION = "selector-training-3"  # 2: candidates are whole sentences; 3: neighbours' cosines
MIN_QUESTIONS = 40  # fewer usable questions than this: the packaged ranker serves the home
WRITTEN_QUESTIONS = Path(__file__).resolve().parents[2] / "data" / "selector" / "written_questions_v1.jsonl"
_KINDS = {"value", "reason", "method", "evidence", "other"}
_SPACE = re.compile(r"\s+")
_WORD = re.compile(r"[^\W\d_][^\W_]{3,}", re.UNICODE)
_CAUSE = re.compile(
    r"\b(?:because|due to|owing to|therefore|thus|hence|caus\w*|result(?:s|ed)? in|leads? to)\b", re.I
)
_EVIDENCE = re.compile(
    r"\b(?:indicat\w*|suggest\w*|demonstrat\w*|consistent with|support\w*|evidence)\b", re.I
)
_AGE_ANALYTES = {"age", "date", "duration"}

_VALUE_TEMPLATES = (
    "What {analyte} is reported{where}?",
    "Which {analyte} value was obtained{where}?",
    "What was the measured {analyte}{where}?",
    "Give the {analyte}{where}.",
)
_AGE_TEMPLATES = ("How old is {subject}?", "What age was determined{where}?", "When did {subject} form?")
_RELATION_TEMPLATES = (
    "How does {a} relate to {b}?",
    "What is the relationship between {a} and {b}?",
    "How is {a} connected with {b}?",
)
_WHY_TEMPLATES = ("Why is {a} linked to {b}?", "What explains the role of {a} for {b}?")
_EVIDENCE_TEMPLATES = ("What evidence links {a} and {b}?", "What does {a} indicate about {b}?")


@dataclass(frozen=True)
class TrainingQuestion:
    """A question written for one sentence, which answers it (with ``also``, other sentences that
    answer it as well; ``partial``: sentences that partly do, neither positive nor negative)."""

    question: str
    sentence: str
    kind: str  # values | relations | topics (templates); value | reason | method | evidence | other (written)
    paper_id: str  # the paper's id (templates) or its file name (written questions)
    also: tuple[str, ...] = ()
    partial: tuple[str, ...] = ()


@dataclass
class Example:
    """One question's candidates: feature rows and which of them is the source sentence."""

    question: TrainingQuestion
    rows: np.ndarray
    labels: np.ndarray


def _fold(text: str) -> str:
    return _SPACE.sub(" ", text).strip().casefold()


def _value_questions(rows: Sequence[Any], rng: random.Random) -> list[TrainingQuestion]:
    out = []
    for row in rows:
        sentence = _SPACE.sub(" ", str(getattr(row, "sentence", "") or "")).strip()
        if row.source_type != "text" or not sentence or not is_prose(sentence):
            continue
        analyte = str(row.analyte)
        sample = str(row.sample or "")
        material = str(row.material or "")
        method = str(row.method or "")
        where = f" for sample {sample}" if sample else (f" for the {material}" if material else "")
        label = (
            f"{method} {analyte}".strip()
            if method and method.casefold() not in analyte.casefold()
            else analyte
        )
        if analyte.casefold() in _AGE_ANALYTES and rng.random() < 0.5:
            subject = f"sample {sample}" if sample else (f"the {material}" if material else "the unit")
            template = rng.choice(_AGE_TEMPLATES)
            text = template.format(subject=subject, where=where)
        else:
            text = rng.choice(_VALUE_TEMPLATES).format(analyte=label, where=where)
        out.append(TrainingQuestion(text, sentence, "values", str(row.paper_id)))
    return out


def _sentences(chunks: Sequence[Any]) -> list[tuple[str, str]]:
    """(sentence, paper id) of every chunk's candidates, exactly as the generator quotes them, so the
    ranker learns on the sentences it will rank (the same 4,735 texts as the copy this replaced, on
    the 17-paper corpus)."""
    return [
        (sentence, str(chunk.paper_id)) for chunk in chunks for _, sentence in candidate_sentences(chunk.text)
    ]


def _relation_questions(
    sentences: Sequence[tuple[str, str]], recognize: Callable[[str], Sequence[Any]], rng: random.Random
) -> list[TrainingQuestion]:
    out = []
    for sentence, paper in sentences:
        names = list(dict.fromkeys(str(e.name) for e in recognize(sentence)))
        if len(names) < 2:
            continue
        a, b = rng.sample(names, 2)
        if _CAUSE.search(sentence):
            template = rng.choice(_WHY_TEMPLATES)
        elif _EVIDENCE.search(sentence):
            template = rng.choice(_EVIDENCE_TEMPLATES)
        else:
            template = rng.choice(_RELATION_TEMPLATES)
        out.append(TrainingQuestion(template.format(a=a, b=b), sentence, "relations", paper))
    return out


def _topic_questions(sentences: Sequence[tuple[str, str]], rng: random.Random) -> list[TrainingQuestion]:
    df: Counter[str] = Counter()
    words_of = []
    for sentence, _ in sentences:
        words = list(dict.fromkeys(w.casefold() for w in _WORD.findall(sentence)))
        words_of.append(words)
        df.update(words)
    out = []
    for (sentence, paper), words in zip(sentences, words_of, strict=True):
        rare = sorted(words, key=lambda w: (df[w], w))[:6]
        if len(rare) < 4:
            continue
        picked = rng.sample(rare, 3)
        out.append(TrainingQuestion(f"What is said about {' '.join(picked)}?", sentence, "topics", paper))
    return out


def write_questions(
    chunks: Sequence[Any],
    measurement_rows: Sequence[Any],
    recognize: Callable[[str], Sequence[Any]],
    *,
    per_kind: int = 150,
    seed: int = 13,
) -> list[TrainingQuestion]:
    """Up to ``per_kind`` questions of each kind, drawn evenly over the papers (seeded)."""
    rng = random.Random(seed)
    sentences = _sentences(chunks)
    pools = {
        "values": _value_questions(measurement_rows, rng),
        "relations": _relation_questions(sentences, recognize, rng),
        "topics": _topic_questions(sentences, rng),
    }
    out: list[TrainingQuestion] = []
    for pool in pools.values():
        by_paper: dict[str, list[TrainingQuestion]] = {}
        for q in pool:
            by_paper.setdefault(q.paper_id, []).append(q)
        for questions in by_paper.values():
            rng.shuffle(questions)
        # round robin over papers so that no paper's many values crowd the others out
        picked: list[TrainingQuestion] = []
        seen: set[str] = set()
        while len(picked) < per_kind and any(by_paper.values()):
            for questions in by_paper.values():
                while questions:
                    q = questions.pop()
                    if _fold(q.sentence) not in seen:
                        seen.add(_fold(q.sentence))
                        picked.append(q)
                        break
                if len(picked) >= per_kind:
                    break
        out.extend(picked)
    return out


def _is_source(candidate: str, sentence: str) -> bool:
    a, b = _fold(candidate), _fold(sentence)
    if a == b:
        return True
    if min(len(a), len(b)) < 0.6 * max(len(a), len(b)):
        return False
    return fuzz.partial_ratio(a, b) >= 95


def read_written_questions(path: Path = WRITTEN_QUESTIONS) -> list[TrainingQuestion]:
    """The hand-written questions of ``path``: one passage a line, with its questions. A malformed
    line is a ValueError that names it (the file is data a person edits)."""
    out: list[TrainingQuestion] = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            passage = json.loads(line)
            sentences = [_SPACE.sub(" ", str(s)).strip() for s in passage["sentences"]]
            paper = str(passage["source_file"])
            for q in passage["questions"]:
                answers = [sentences[int(i)] for i in q["answers"]]
                partial = tuple(sentences[int(i)] for i in q.get("partial", []))
                text = _SPACE.sub(" ", str(q["question"])).strip()
                if not text or not answers or str(q["kind"]) not in _KINDS:
                    raise ValueError("a question, its answers and a known kind are required")
                out.append(
                    TrainingQuestion(text, answers[0], str(q["kind"]), paper, tuple(answers[1:]), partial)
                )
        except (KeyError, IndexError, TypeError, ValueError) as error:
            raise ValueError(f"{path.name} line {number}: {error}") from error
    return out


def fold_papers(path: Path, fold: int) -> list[str]:
    """Fold ``fold`` (0 or 1) of the papers the written questions are about: every other file name,
    sorted — a ranker trained without them is scored on questions about them (cross-fitting)."""
    return sorted({q.paper_id for q in read_written_questions(path)})[fold::2]


def collect_examples(
    questions: Sequence[TrainingQuestion],
    service: Any,
    *,
    log: Callable[[str], None] | None = None,
) -> list[Example]:
    """Retrieve each question's context with the real pipeline; label its candidate sentences."""
    from geo_rag_runtime.query.pipeline import retrieve_context

    examples: list[Example] = []
    for number, q in enumerate(questions, start=1):
        got, tools = retrieve_context(q.question, service.resources, service.settings, mode="hybrid")
        extractive = ExtractiveGenerator(tools.scorer)
        candidates = extractive.candidates(got.bundle)
        if len(candidates) >= 2:
            answers = (q.sentence, *q.also)
            labels = np.array(
                [any(_is_source(c.text, a) for a in answers) for c in candidates], dtype=np.int8
            )
            # a sentence that partly answers is neither taught as the answer nor as a wrong one
            keep = np.array(
                [
                    bool(label) or not any(_is_source(c.text, p) for p in q.partial)
                    for c, label in zip(candidates, labels, strict=True)
                ]
            )
            if 0 < labels.sum() < keep.sum():
                relevance = tools.scorer.for_question(got.question.text)
                scores = relevance.score([c.text for c in candidates])
                facts = len(got.bundle.chunks)
                inputs = [SelectorInput(c.text, c.item, c.position, c.item >= facts) for c in candidates]
                rows = candidate_features(relevance, inputs, scores)  # relative to every candidate
                examples.append(Example(q, rows[keep], labels[keep]))
        if log is not None and (number % 50 == 0 or number == len(questions)):
            log(f"selector training: {number}/{len(questions)} questions, {len(examples)} usable")
    return examples


def fit(examples: Sequence[Example], *, c: float = 1.0, meta: dict[str, Any] | None = None) -> SelectorModel:
    """Logistic regression on standardised features, classes balanced, each question weighted
    equally (a context of 80 candidates must not count four times one of 20)."""
    from sklearn.linear_model import LogisticRegression

    if not examples:
        raise ValueError("no usable training question: is anything ingested?")
    x = np.vstack([e.rows for e in examples]).astype(np.float64)
    y = np.concatenate([e.labels for e in examples]).astype(int)
    weights = np.concatenate([np.full(len(e.labels), 1.0 / len(e.labels)) for e in examples])
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale[scale < 1e-6] = 1.0
    positive = weights[y == 1].sum()
    negative = weights[y == 0].sum()
    weights = np.where(y == 1, weights / positive, weights / negative) * len(y) / 2
    model = LogisticRegression(C=c, max_iter=2000)
    model.fit((x - mean) / scale, y, sample_weight=weights)
    kinds = Counter(e.question.kind for e in examples)
    info = {
        "version": TRAINING_VERSION,
        "questions": len(examples),
        "kinds": dict(sorted(kinds.items())),
        "candidates": int(len(y)),
        "papers": len({e.question.paper_id for e in examples}),
        "train_top1": _top1(examples, model.coef_[0], float(model.intercept_[0]), mean, scale),
        **(meta or {}),
    }
    return SelectorModel(
        np.asarray(model.coef_[0], dtype=np.float32),
        float(model.intercept_[0]),
        mean.astype(np.float32),
        scale.astype(np.float32),
        FEATURES,
        info,
    )


def _top1(
    examples: Sequence[Example], coef: np.ndarray, intercept: float, mean: np.ndarray, scale: np.ndarray
) -> float:
    hits = 0
    for e in examples:
        logits = ((e.rows - mean) / scale) @ coef + intercept
        hits += int(e.labels[int(np.argmax(logits))] == 1)
    return round(hits / len(examples), 4) if examples else math.nan


def _home_examples(
    settings: Any, questions: Sequence[TrainingQuestion], log: Callable[[str], None] | None
) -> list[Example]:
    """The questions' examples from the home's own retrieval; the service opens no ranker (training
    reads the candidates' features, not a ranker's scores)."""
    from geo_rag_runtime.service import RagService

    service = RagService(settings.model_copy(update={"answer_selector": "relevance"}), llm=None)
    try:
        return collect_examples(questions, service, log=log)
    finally:
        service.close()


def train_for_home(
    settings: Any, *, per_kind: int = 150, log: Callable[[str], None] | None = None
) -> SelectorModel:
    """Questions from the home's own chunks and value rows, their contexts retrieved by the home's
    own stores, the ranker fitted on them (the ``answer_selector`` asset and scripts/train_selector.py)."""
    from geo_rag_runtime.stores.opening import open_documents
    from geo_rag_runtime.vocab import recognize

    store = open_documents(settings, read_only=True)
    try:
        papers = [str(p["paper_id"]) for p in store.papers()]
        chunks = [c for paper in papers for c in store.chunks_for_paper(paper)]
        rows = store.find_measurements()
    finally:
        store.close()
    questions = write_questions(chunks, rows, recognize, per_kind=per_kind)
    examples = _home_examples(settings, questions, log)
    meta = {"written_questions": len(questions), "chunks": len(chunks)}
    if not examples:  # nothing to learn from (an empty or tiny home): an untrained model says so
        return SelectorModel(
            np.zeros(len(FEATURES), np.float32),
            0.0,
            np.zeros(len(FEATURES), np.float32),
            np.ones(len(FEATURES), np.float32),
            FEATURES,
            {"version": TRAINING_VERSION, "questions": 0, **meta},
        )
    return fit(examples, meta=meta)


def train_written(
    settings: Any,
    path: Path = WRITTEN_QUESTIONS,
    *,
    leave_out: Sequence[str] = (),
    min_questions: int = MIN_QUESTIONS,
    log: Callable[[str], None] | None = None,
) -> SelectorModel:
    """The ranker fitted on the hand-written questions, their contexts retrieved by the home's stores
    (which must hold the papers they were written for: ``ValueError`` otherwise). ``leave_out``: paper
    file names whose questions are left out, so that the ranker can be scored on questions about
    papers it never trained on (scripts/train_selector.py --fold)."""
    left_out = set(leave_out)
    questions = [q for q in read_written_questions(path) if q.paper_id not in left_out]
    examples = _home_examples(settings, questions, log)
    if len(examples) < min_questions:
        raise ValueError(
            f"only {len(examples)} of {len(questions)} written questions found their answer in this home's "
            "contexts: train on a home that ingested the papers they were written for (the 17 corpus papers)"
        )
    meta = {
        "version": f"{TRAINING_VERSION}+{path.stem}",
        "source": f"{path.name} (hand-written questions)",
        "written_questions": len(questions),
        "left_out": sorted(leave_out),
    }
    return fit(examples, meta=meta)
