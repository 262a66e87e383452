"""What the judge is asked in one run: which questions (a stratified sample) and which metrics.

A judged metric costs several long prompts per answer; the local 1.5B model on 2 CPU cores needed
about 190 s per judged value over five passages (measured, issue 13), so by default it scores
:data:`LOCAL_JUDGE_SAMPLE_PER_TYPE` questions of each type with :data:`LOCAL_JUDGE_METRICS`, while a
configured endpoint judges the whole set with every metric. The sample is stratified by query type and
stable: questions are ordered by the SHA-256 of their id, so the same questions are judged in every
run of a dataset (and their judge calls come from the disk cache), without favouring the first ones
the dataset's authors wrote.
"""

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from geo_assets.evaluation.dataset import EvalQuestion
from geo_assets.evaluation.metric_specs import LOCAL_JUDGE_METRICS, LOCAL_JUDGE_SAMPLE_PER_TYPE
from geo_assets.evaluation.ragas_adapters import JudgeTarget


@dataclass(frozen=True)
class JudgePlan:
    """``questions``/``metrics`` None = all; ``per_type`` 0 = all."""

    per_type: int
    questions: frozenset[str] | None
    metrics: frozenset[str] | None

    def describe(self) -> str:
        sample = "all questions" if self.questions is None else f"{self.per_type} per query type"
        metrics = "all judge metrics" if self.metrics is None else ", ".join(sorted(self.metrics))
        return f"{sample}; {metrics}"


def judge_plan(settings: Any, questions: Sequence[EvalQuestion], target: JudgeTarget | None) -> JudgePlan:
    """The sample and metrics of the settings, else the defaults for this judge (module docstring)."""
    local = target is not None and target.local
    per_type = settings.judge_sample_per_type
    if per_type is None:
        per_type = LOCAL_JUDGE_SAMPLE_PER_TYPE if local else 0
    names = settings.judge_metrics
    if names is None and local:
        names = list(LOCAL_JUDGE_METRICS)
    return JudgePlan(per_type, stratified_sample(questions, per_type), frozenset(names) if names else None)


def stratified_sample(questions: Sequence[EvalQuestion], per_type: int) -> frozenset[str] | None:
    """Ids of ``per_type`` questions of each query type (None when ``per_type`` is 0: all of them)."""
    if per_type <= 0:
        return None
    chosen: dict[str, list[str]] = {}
    for q in sorted(questions, key=lambda q: hashlib.sha256(q.id.encode()).hexdigest()):
        picked = chosen.setdefault(q.query_type, [])
        if len(picked) < per_type:
            picked.append(q.id)
    return frozenset(i for ids in chosen.values() for i in ids)
