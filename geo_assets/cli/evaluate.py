"""``geo-rag evaluate``: materialize ``evaluation_dataset`` and ``evaluation_results`` through Dagster.

The run lands in the same Dagster instance the UI shows (DAGSTER_HOME, set by ``geo-rag``), with the
dataset and the output folder passed as run config. Prints the per-type table and the run folder;
returns 0, or non-zero with the failure on stderr.
"""

import sys
from pathlib import Path

import dagster as dg


def _evaluation_assets() -> tuple[list, list]:
    """(all assets to load, the two to materialize): the code location's assets plus ours."""
    from geo_assets.definitions import CORPUS_ASSETS, PER_PAPER_ASSETS, SOURCE_ASSETS
    from geo_assets.evaluation.assets import evaluation_dataset, evaluation_results

    assets = [*SOURCE_ASSETS, *PER_PAPER_ASSETS, *CORPUS_ASSETS]
    known = {key for a in assets for key in (a.keys if hasattr(a, "keys") else [getattr(a, "key", None)])}
    for asset in (evaluation_dataset, evaluation_results):
        if asset.key not in known:  # not wired into the definitions (yet)
            assets.append(asset)
    return assets, [evaluation_dataset, evaluation_results]


def evaluate(
    dataset: str | None = None,
    out: str | None = None,
    *,
    instance: dg.DagsterInstance | None = None,
    max_questions: int | None = None,
) -> int:
    from geo_assets.cli.runs import failure_messages
    from geo_assets.resources import default_resources
    from geo_rag_runtime.settings import get_settings

    if dataset is not None:
        from geo_assets.evaluation.dataset import DATASETS, resolve_dataset

        path = resolve_dataset(dataset)
        if not path.is_file():
            print(
                f"error: evaluation dataset not found: {dataset} (or use one of {', '.join(DATASETS)})",
                file=sys.stderr,
            )
            return 2
        dataset = str(path.resolve())
    out_dir = str(Path(out).resolve()) if out else str(get_settings().path("evaluation"))
    assets, selection = _evaluation_assets()
    results_config: dict = {"out": out_dir}
    if max_questions is not None:
        results_config["max_questions"] = max_questions
    run_config = {
        # progress lines (INFO) without Dagster's per-event DEBUG chatter
        "loggers": {"console": {"config": {"log_level": "INFO"}}},
        "ops": {
            "evaluation_dataset": {"config": {"dataset": dataset}},
            "evaluation_results": {"config": results_config},
        },
    }
    result = dg.materialize(
        assets,
        selection=selection,
        instance=instance or dg.DagsterInstance.get(),
        resources=default_resources(),
        run_config=run_config,
        raise_on_error=False,
        tags={"georag/reason": "cli-evaluate"},
    )
    if not result.success:
        for line in failure_messages(result) or ["evaluation failed (see the Dagster UI)"]:
            print(f"FAILED {line}", file=sys.stderr)
        return 1
    materializations = result.asset_materializations_for_node("evaluation_results")
    if not materializations:
        print("FAILED evaluation_results produced no materialization", file=sys.stderr)
        return 1
    meta = materializations[-1].metadata
    print(meta["per_type"].value)
    print()
    failed = int(str(meta["answers_failed"].value))
    if failed:
        print(f"warning: {failed} answer(s) failed; their metrics are reported with status 'error'")
    fallbacks = meta["fallbacks"].value if "fallbacks" in meta else {}
    if isinstance(fallbacks, dict) and fallbacks:
        listed = "; ".join(
            f"{system}: " + ", ".join(f"{strategy} ×{n}" for strategy, n in found.items())
            for system, found in fallbacks.items()
        )
        print(
            f"warning: answers fell back to dense similarity because their strategy raised ({listed}); "
            "their scores measure the fallback (answers.jsonl notes name the errors)"
        )
    print(
        f"run {meta['run_id'].value} (judge: {meta['judge'].value}, dataset {meta['dataset_version'].value})"
    )
    print(f"output folder: {meta['output_folder'].value}")
    return 0
