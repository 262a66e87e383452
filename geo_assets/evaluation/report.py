"""Tables and plots of an evaluation run: per query type × system × metric, HybridRAG beside BaselineRAG.

``aggregate`` turns the per-question table into means per query type (and over all questions, query
type ``"all"``): ``mean`` over the values whose status is ``ok``, ``n`` = how many, ``n_total`` = all
rows; a cell with no ``ok`` value keeps mean NaN and says why in ``status``/``reason``.
``markdown_table`` renders it for the terminal and the Dagster UI; ``plot_groups`` draws one PNG per
metric group with matplotlib's Agg canvas (no pyplot state, safe in any process).
"""

import base64
import math
from collections import Counter
from pathlib import Path

import pandas as pd

from geo_assets.evaluation.metrics import METRIC_BY_NAME, METRICS, OK
from geo_rag_runtime.models import QUERY_TYPES

__all__ = ["ALL", "GROUPS", "aggregate", "image_markdown", "markdown_table", "plot_groups"]

ALL = "all"
SYSTEM_ORDER = ("HybridRAG", "BaselineRAG")
GROUPS = ("retrieval", "response")
_COLORS = {"HybridRAG": "#1f77b4", "BaselineRAG": "#ff7f0e"}


def _type_order(types: list[str]) -> list[str]:
    known = [t for t in QUERY_TYPES if t in types]
    return known + sorted(t for t in types if t not in QUERY_TYPES and t != ALL) + [ALL]


def _cell(rows: pd.DataFrame) -> dict:
    ok = rows[rows["status"] == OK]
    n = len(ok)
    bad = rows[rows["status"] != OK]
    counts = Counter(zip(bad["status"], bad["reason"], strict=True))
    reason = "; ".join(f"{c} {s}: {r}" if r else f"{c} {s}" for (s, r), c in counts.most_common(3))
    status = OK if n else (counts.most_common(1)[0][0][0] if counts else "undefined")
    return {
        "mean": float(ok["value"].astype(float).mean()) if n else math.nan,
        "n": n,
        "n_total": len(rows),
        "status": status,
        "reason": reason,
    }


def aggregate(per_question: pd.DataFrame) -> pd.DataFrame:
    """query_type × system × metric: mean of the ok values, n, n_total, status, reason."""
    out = []
    types = _type_order(sorted(set(per_question["query_type"])))
    systems = [s for s in SYSTEM_ORDER if s in set(per_question["system"])] + sorted(
        set(per_question["system"]) - set(SYSTEM_ORDER)
    )
    metrics = [m.name for m in METRICS if m.name in set(per_question["metric"])]
    for query_type in types:
        scope = per_question if query_type == ALL else per_question[per_question["query_type"] == query_type]
        for system in systems:
            for metric in metrics:
                rows = scope[(scope["system"] == system) & (scope["metric"] == metric)]
                if rows.empty:
                    continue
                spec = METRIC_BY_NAME[metric]
                out.append(
                    {
                        "query_type": query_type,
                        "system": system,
                        "metric": metric,
                        "group": spec.group,
                        "higher_is_better": spec.higher_is_better,
                        **_cell(rows),
                    }
                )
    return pd.DataFrame(out)


def _fmt(value: float) -> str:
    return "–" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:.3f}"


def markdown_table(per_type: pd.DataFrame) -> str:
    """One row per metric, one column per query type: 'HybridRAG / BaselineRAG' means."""
    types = _type_order(sorted(set(per_type["query_type"])))
    lookup = {(r.query_type, r.system, r.metric): r for r in per_type.itertuples(index=False)}
    header = "| metric | " + " | ".join(f"{t} (H / B)" for t in types) + " |"
    lines = [header, "|" + "---|" * (len(types) + 1)]
    skipped: dict[str, list[str]] = {}
    for spec in METRICS:
        cells = [
            (lookup.get((t, "HybridRAG", spec.name)), lookup.get((t, "BaselineRAG", spec.name)))
            for t in types
        ]
        if all((h is None or h.n == 0) and (b is None or b.n == 0) for h, b in cells):
            row = lookup.get((ALL, "HybridRAG", spec.name)) or lookup.get((ALL, "BaselineRAG", spec.name))
            if row is not None:
                why = row.reason.split("; ")[0].split(": ", 1)[-1] or row.status
                skipped.setdefault(why, []).append(spec.name)
            continue
        label = spec.name + ("" if spec.higher_is_better else " ↓")
        values = [f"{_fmt(h.mean if h else math.nan)} / {_fmt(b.mean if b else math.nan)}" for h, b in cells]
        lines.append(f"| {label} | " + " | ".join(values) + " |")
    notes = ["", "H = HybridRAG, B = BaselineRAG; mean over questions with a value; ↓ lower is better."]
    for why, names in skipped.items():
        notes.append(f"Not computed ({why}): {', '.join(names)}.")
    return "\n".join(lines + notes)


def _questions_per_type(per_type: pd.DataFrame) -> dict[str, int]:
    """Questions per query type: the largest n_total of any (system, metric) cell of the type."""
    if per_type.empty:
        return {}
    return {str(k): int(v) for k, v in per_type.groupby("query_type")["n_total"].max().items()}


def _tick(query_type: str, counts: dict[str, int]) -> str:
    return query_type.replace("_", "\n") + f"\n(n={counts.get(query_type, 0)})"


def plot_groups(per_type: pd.DataFrame, folder: str | Path) -> dict[str, Path]:
    """One bar chart per metric group; returns {group: png path} (groups with no value are skipped)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    types = _type_order(sorted(set(per_type["query_type"])))
    out: dict[str, Path] = {}
    counts = _questions_per_type(per_type)
    for group in GROUPS:
        rows = per_type[per_type["group"] == group]
        metrics = [
            m.name for m in METRICS if m.group == group and (rows[rows["metric"] == m.name]["n"] > 0).any()
        ]
        missing = [m.name for m in METRICS if m.group == group and m.name not in metrics]
        if not metrics:
            continue
        ncols = min(3, len(metrics))
        nrows = math.ceil(len(metrics) / ncols)
        figure = Figure(figsize=(5.2 * ncols, 3.4 * nrows + 0.8), layout="constrained")
        FigureCanvasAgg(figure)
        axes = figure.subplots(nrows, ncols, squeeze=False)
        width = 0.38
        for index, metric in enumerate(metrics):
            ax = axes[index // ncols][index % ncols]
            for offset, system in ((-width / 2, "HybridRAG"), (width / 2, "BaselineRAG")):
                values = []
                for query_type in types:
                    cell = rows[
                        (rows["metric"] == metric)
                        & (rows["system"] == system)
                        & (rows["query_type"] == query_type)
                    ]
                    values.append(float(cell["mean"].iloc[0]) if len(cell) and cell["n"].iloc[0] > 0 else 0.0)
                bars = ax.bar(
                    [i + offset for i in range(len(types))],
                    values,
                    width,
                    label=system,
                    color=_COLORS[system],
                )
                ax.bar_label(bars, fmt="%.2f", fontsize=6, padding=1)
            spec = METRIC_BY_NAME[metric]
            ax.set_title(metric + ("" if spec.higher_is_better else " (lower is better)"), fontsize=10)
            ax.set_xticks(range(len(types)))
            ax.set_xticklabels([_tick(t, counts) for t in types], fontsize=7)
            ax.set_ylim(0, 1.05)
            ax.grid(axis="y", alpha=0.3)
        for index in range(len(metrics), nrows * ncols):
            axes[index // ncols][index % ncols].set_visible(False)
        handles, labels = axes[0][0].get_legend_handles_labels()
        figure.legend(handles, labels, loc="outside upper right", fontsize=8, ncols=2)
        title = f"{group} metrics: HybridRAG vs BaselineRAG per query type"
        if missing:
            title += "\nnot computed: " + ", ".join(missing)
        figure.suptitle(title, fontsize=10)
        path = folder / f"{group}.png"
        figure.savefig(path, dpi=80)
        out[group] = path
    return out


def image_markdown(path: str | Path, alt: str = "") -> str:
    """Markdown with the PNG embedded as a data URI (rendered by Dagster's markdown metadata)."""
    data = base64.b64encode(Path(path).read_bytes()).decode("ascii")
    return f"![{alt or Path(path).stem}](data:image/png;base64,{data})"
