"""HybridRAG − BaselineRAG with uncertainty: paired bootstrap intervals, and abstention quality.

Both systems answer the same questions, so the comparison is paired: per query type and metric, the
differences of the two systems' values on each question that has an ``ok`` value for both are
resampled (questions drawn with replacement, :data:`RESAMPLES` times, fixed seed so a rerun gives the
same interval) and the 2.5/97.5 percentiles of the resampled mean differences give the 95 % interval.
An interval that excludes 0 says the difference is more than question-sampling noise; with ~20
questions per type most do not, and the tables say so instead of hiding it.

Abstention: on unanswerable questions, recall = share answered "Not found"; precision = share of all
"Not found" answers that were for unanswerable questions; false abstention = share of answerable
questions answered "Not found".
"""

import math

import numpy as np
import pandas as pd

from geo_assets.evaluation.metric_specs import METRIC_BY_NAME, METRICS, OK
from geo_rag_runtime.models import QUERY_TYPES

__all__ = [
    "RESAMPLES",
    "abstention_markdown",
    "abstention_summary",
    "differences_markdown",
    "paired_differences",
]

RESAMPLES = 2000
SEED = 20260101
ALL = "all"


def paired_differences(
    per_question: pd.DataFrame, *, treatment: str = "HybridRAG", control: str = "BaselineRAG"
) -> pd.DataFrame:
    """query_type × metric: n paired questions, both means, mean difference, 95 % bootstrap interval."""
    ok = per_question[per_question["status"] == OK]
    wide = ok.pivot_table(index=["query_type", "question_id", "metric"], columns="system", values="value")
    if treatment not in wide or control not in wide:
        return pd.DataFrame()
    wide = wide[[treatment, control]].dropna().reset_index()
    rng = np.random.default_rng(SEED)
    out = []
    types = [t for t in QUERY_TYPES if t in set(wide["query_type"])] + [ALL]
    for metric in [m.name for m in METRICS if m.name in set(wide["metric"])]:
        rows = wide[wide["metric"] == metric]
        for query_type in types:
            scope = rows if query_type == ALL else rows[rows["query_type"] == query_type]
            if scope.empty:
                continue
            t = scope[treatment].to_numpy(float)
            c = scope[control].to_numpy(float)
            d = t - c
            draws = rng.integers(0, len(d), size=(RESAMPLES, len(d)))
            means = d[draws].mean(axis=1)
            low, high = np.percentile(means, [2.5, 97.5])
            out.append(
                {
                    "query_type": query_type,
                    "metric": metric,
                    "higher_is_better": METRIC_BY_NAME[metric].higher_is_better,
                    "n": len(d),
                    treatment: float(t.mean()),
                    control: float(c.mean()),
                    "difference": float(d.mean()),
                    "ci_low": float(low),
                    "ci_high": float(high),
                }
            )
    return pd.DataFrame(out)


def abstention_summary(per_question: pd.DataFrame) -> pd.DataFrame:
    """Per system: unanswerable / answerable questions, abstention recall and precision, false abstention."""
    out = []
    for system in sorted(set(per_question["system"])):
        rows = per_question[(per_question["system"] == system) & (per_question["status"] == OK)]
        right = rows[rows["metric"] == "abstention"]["value"].astype(float)
        wrong = rows[rows["metric"] == "false_abstention"]["value"].astype(float)
        abstained = right.sum() + wrong.sum()
        out.append(
            {
                "system": system,
                "unanswerable": len(right),
                "answerable": len(wrong),
                "abstention_recall": float(right.mean()) if len(right) else math.nan,
                "abstention_precision": float(right.sum() / abstained) if abstained else math.nan,
                "false_abstention": float(wrong.mean()) if len(wrong) else math.nan,
            }
        )
    return pd.DataFrame(out)


def differences_markdown(differences: pd.DataFrame, metrics: tuple[str, ...] | None = None) -> str:
    """One row per metric, one column per type: 'Δ [low, high]' (HybridRAG − BaselineRAG)."""
    if differences.empty:
        return "No paired values: nothing to compare."
    types = [t for t in [*QUERY_TYPES, ALL] if t in set(differences["query_type"])]
    lookup = {(r.query_type, r.metric): r for r in differences.itertuples(index=False)}
    names = [m for m in (metrics or tuple(dict.fromkeys(differences["metric"])))]
    lines = [
        "| HybridRAG − BaselineRAG | " + " | ".join(types) + " |",
        "|" + "---|" * (len(types) + 1),
    ]
    for name in names:
        cells = []
        for t in types:
            r = lookup.get((t, name))
            cells.append(
                "–" if r is None else f"{r.difference:+.3f} [{r.ci_low:+.3f}, {r.ci_high:+.3f}] (n={r.n})"
            )
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    lines.append("")
    lines.append(f"Mean paired difference, 95 % paired bootstrap interval ({RESAMPLES} resamples).")
    return "\n".join(lines)


def abstention_markdown(summary: pd.DataFrame) -> str:
    """The abstention summary as a markdown table."""
    columns = list(summary.columns)
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    for row in summary.itertuples(index=False):
        cells = [f"{v:.3f}" if isinstance(v, float) else str(v) for v in row]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)
