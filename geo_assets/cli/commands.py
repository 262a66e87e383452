"""Command-line entry points that need Dagster (called by ``geo-rag ingest|status|evaluate|retire|
unretire|purge``).

``geo_rag_runtime.cli`` never imports Dagster; it runs ``python -m geo_assets.cli.commands ...`` so the
materializations land in the same Dagster instance the UI shows (DAGSTER_HOME) with full lineage.
"""

import argparse
import json
import os
import sys
import time
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

import dagster as dg

from geo_assets.cli.runs import failure_messages, recover_dead_runs
from geo_assets.ingest import registry
from geo_assets.partitions import PAPERS
from geo_assets.versions import UNPARTITIONED, latest_versions
from geo_rag_runtime import contract

warnings.filterwarnings("ignore", category=dg.BetaWarning)
warnings.filterwarnings("ignore", category=dg.PreviewWarning)

# Dagster's console logger prints every event at DEBUG; the CLI prints its own summary lines.
QUIET = {"loggers": {"console": {"config": {"log_level": "ERROR"}}}}


def _skipped_duplicates(result: dg.ExecuteInProcessResult) -> list[str]:
    notes = []
    for event in result.all_events:
        if event.event_type_value == "ASSET_OBSERVATION":
            meta = event.event_specific_data.asset_observation.metadata  # type: ignore[union-attr]
            if "duplicate_of" in meta:
                notes.append(str(meta["duplicate_of"].value))
    return notes


def stale_assets(
    instance: dg.DagsterInstance, assets: list[dg.AssetsDefinition], key: str
) -> list[dg.AssetsDefinition]:
    """The per-paper assets of this partition that must run: each one never materialized, made by
    another code version, or older than the TEI (the first asset; a failed later step is not
    skipped), and everything downstream of them (in ``assets`` order). All of them when the TEI
    itself must run.

    Compared with the TEI, not with the asset listed before it: the per-paper graph branches
    (measurements need no knowledge graph), so Dagster may finish them in either order."""
    stale: list[dg.AssetsDefinition] = []
    tei_time: float | None = None
    for position, asset in enumerate(assets):
        for asset_key in asset.keys:
            latest = latest_versions(
                instance, dg.AssetRecordsFilter(asset_key=asset_key, asset_partitions=[key]), limit=1
            ).get(key)
            if (
                latest is None
                or latest.code_version != asset.code_versions_by_key.get(asset_key)
                or (tei_time is not None and latest.timestamp < tei_time)
            ):
                if position == 0:
                    return list(assets)
                stale.append(asset)
                break
            if tei_time is None:
                tei_time = latest.timestamp
    selected = {k for a in stale for k in a.keys}
    for asset in assets:  # assets are listed upstream first: one pass closes the selection
        if asset not in stale and any(dep in selected for dep in asset.dependency_keys):
            stale.append(asset)
            selected |= set(asset.keys)
    return [a for a in assets if a in stale]


def _upstream_keys(targets: list[dg.AssetsDefinition], assets: list[dg.AssetsDefinition]) -> set[dg.AssetKey]:
    """The keys among ``assets`` that ``targets`` read, directly or through one another."""
    by_key = {k: a for a in assets for k in a.keys}
    found: set[dg.AssetKey] = set()
    todo = [dep for t in targets for dep in t.dependency_keys]
    while todo:
        dep = todo.pop()
        if dep in found or dep not in by_key:
            continue
        found.add(dep)
        todo.extend(by_key[dep].dependency_keys)
    return found


def corpus_assets_stale(instance: dg.DagsterInstance, assets: list[dg.AssetsDefinition]) -> bool:
    """True when a corpus-wide asset was never materialized or by another code version: after an
    upgrade that changes only, say, the answer ranker's training, a plain ``geo-rag ingest`` of
    up-to-date papers must still rebuild it."""
    for asset in assets:
        for asset_key in asset.keys:
            latest = latest_versions(instance, asset_key, limit=1).get(UNPARTITIONED)
            if latest is None or latest.code_version != asset.code_versions_by_key.get(asset_key):
                return True
    return False


def up_to_date(
    instance: dg.DagsterInstance, assets: list[dg.AssetsDefinition], key: str, sha256: str, store: Any
) -> bool:
    """True when this partition's paper has these bytes and no per-paper asset is stale
    (:func:`stale_assets`)."""
    if store.paper_sha256_for_partition(key) != sha256:
        return False
    return not stale_assets(instance, assets, key)


def ingest(
    paths: list[str],
    *,
    progress: bool | None = None,
    corpus_assets: bool = True,
    force: bool = False,
    out: TextIO | None = None,
    err: TextIO | None = None,
) -> int:
    """Register the PDFs, then materialize every per-paper asset for each one, one run per paper
    (one bad paper fails only its own run), then the corpus-wide assets. Returns the exit code.

    Summary lines go to ``out`` and failures to ``err`` (default: stdout/stderr at call time)."""
    out = out or sys.stdout
    err = err or sys.stderr
    from geo_rag_runtime.settings import get_settings

    settings = get_settings()
    targets = [Path(p) for p in paths] or [settings.papers]
    missing = [str(p) for p in targets if not p.exists()]
    if missing:
        print(f"error: no such file or folder: {', '.join(missing)}", file=err)
        return 2
    pdfs = registry.scan_pdfs(targets)
    if not pdfs:
        print(f"error: no PDF files found in {', '.join(map(str, targets))}", file=err)
        return 2
    from geo_rag_runtime.home_lock import home_lock

    with home_lock(settings.home_dir, lambda line: print(line, file=out, flush=True)):
        instance = dg.DagsterInstance.get()
        for line in recover_dead_runs(instance):
            print(line, file=out)
        return _ingest_locked(instance, settings, pdfs, progress, corpus_assets, force, out, err)


def _ingest_locked(
    instance: dg.DagsterInstance,
    settings: Any,
    pdfs: list[Path],
    progress: bool | None,
    corpus_assets: bool,
    force: bool,
    out: TextIO,
    err: TextIO,
) -> int:
    """The ingest itself, while this process holds the home's ingest lock."""
    from geo_assets.definitions import CORPUS_ASSETS, PER_PAPER_ASSETS, SOURCE_ASSETS
    from geo_assets.resources import default_resources

    resources = default_resources()
    with resources["documents"].open() as store:
        keys = [registry.register(store, pdf) for pdf in pdfs]
        for line in _unretire_named(settings, store, keys):
            print(line, file=out)
    known = set(instance.get_dynamic_partitions(PAPERS))
    new_keys = [k for k in dict.fromkeys(keys) if k not in known]
    if new_keys:
        instance.add_dynamic_partitions(PAPERS, new_keys)

    def run(selection: list[dg.AssetsDefinition], partition_key: str | None = None) -> Any:
        """One in-process Dagster run in the project's instance (lineage shows in the UI)."""
        return dg.materialize(
            [*SOURCE_ASSETS, *PER_PAPER_ASSETS, *CORPUS_ASSETS],
            selection=selection,
            partition_key=partition_key,
            instance=instance,
            resources=resources,
            raise_on_error=False,
            run_config=QUIET,
            tags={"georag/reason": "cli-ingest"},
        )

    from tqdm import tqdm

    show = sys.stderr.isatty() if progress is None else progress
    failures: list[str] = []
    duplicates: list[str] = []
    timings: dict[str, float] = {}
    unique = list(dict.fromkeys(zip(keys, pdfs, strict=True)))
    current: list[tuple[str, Path]] = []
    selections: dict[str, list[dg.AssetsDefinition]] = {}  # what each paper runs: its stale assets
    with resources["documents"].open() as store:
        for key, pdf in unique:
            if force or store.paper_sha256_for_partition(key) != contract.file_sha256(pdf):
                selections[key] = PER_PAPER_ASSETS
            elif stale := stale_assets(instance, PER_PAPER_ASSETS, key):
                selections[key] = stale  # e.g. a new or changed asset: only it and what follows it
            else:
                continue
            current.append((key, pdf))
    for key, _ in sorted(set(unique) - set(current)):
        print(f"up to date: {key}", file=out)
    bar = tqdm([k for k, _ in current], desc="ingest", unit="paper", disable=not show, file=sys.stderr)
    for key in bar:
        bar.set_postfix_str(key[:40])
        started = time.perf_counter()
        result = run(selections[key], partition_key=key)
        timings[key] = round(time.perf_counter() - started, 1)
        if not result.success:
            failures.extend(failure_messages(result) or [f"{key}: failed (see the Dagster UI)"])
        duplicates.extend(f"{key}: duplicate of {d}; skipped" for d in _skipped_duplicates(result))
    bar.close()
    failed_papers = len({f.split(":")[0] for f in failures})
    _export_embedder(settings, out, err)
    from geo_rag_runtime.router.model import default_artifact_dir

    # the corpus assets follow any newly ingested paper, and are rebuilt when the router is missing
    classifier_missing = not (default_artifact_dir(settings) / "manifest.json").is_file()
    # ... but not when the papers ran only assets the corpus assets do not read (sentence vectors)
    feeding = _upstream_keys(CORPUS_ASSETS, PER_PAPER_ASSETS)
    corpus_inputs_ran = any(k in feeding for key, _ in current for a in selections[key] for k in a.keys)
    if (
        corpus_assets
        and CORPUS_ASSETS
        and (
            (len(timings) > failed_papers and corpus_inputs_ran)
            or classifier_missing
            or corpus_assets_stale(instance, CORPUS_ASSETS)
        )
    ):
        started = time.perf_counter()
        result = run(CORPUS_ASSETS)
        timings["(corpus assets)"] = round(time.perf_counter() - started, 1)
        if not result.success:
            failures.extend(failure_messages(result) or ["corpus assets failed (see the Dagster UI)"])
    for line in duplicates:
        print(f"skipped: {line}", file=out)
    with resources["documents"].open(read_only=True) as store:
        for line in low_coverage(store, [k for k, _ in current]):
            print(f"warning: {line}", file=out)
    for key, seconds in timings.items():
        print(f"{key}: {seconds}s", file=out)
    for line in failures:
        print(f"FAILED {line}", file=err)
    ran = len(timings) - (1 if "(corpus assets)" in timings else 0)
    print(
        f"ingested {ran - failed_papers} of {ran} paper(s) run; {len(unique) - len(current)} already up to date"
        + (f"; {len(failures)} failure(s)" if failures else ""),
        file=out,
    )
    return 1 if failures else 0


def low_coverage(store: Any, keys: Sequence[str]) -> list[str]:
    """One line per paper whose text coverage is below the warning line, with what was lost."""
    from geo_rag_runtime.contract import COVERAGE_WARN_BELOW

    out = []
    for key in keys:
        paper = store.find_paper_by_partition(key) or {}
        coverage = paper.get("coverage")
        if coverage is not None and coverage < COVERAGE_WARN_BELOW:
            out.append(
                f"{key}: text coverage {coverage:.2f} (below {COVERAGE_WARN_BELOW}): {paper.get('coverage_note', '')}"
            )
    return out


def _unretire_named(settings: Any, store: Any, keys: list[str]) -> list[str]:
    """Naming a retired paper's PDF to ``geo-rag ingest`` brings the paper back: same bytes, same
    paper, whose data never left the stores (changed bytes are ingested as usual, and the new
    version is published)."""
    from geo_assets.ingest import retire

    lines = []
    for key in dict.fromkeys(keys):
        record = retire.find_retired(settings, key)
        path = registry.lookup(store, key)
        if record is None or path is None or record.get("partition_key") != key:
            continue
        paper = store.get_paper(record["paper_id"]) or {}
        if paper.get("sha256") == contract.file_sha256(path) and retire.unretire_paper(
            settings, record["paper_id"]
        ):
            lines.append(f"unretired: {key} (retired {record.get('since', '?')}: {record.get('reason', '')})")
    return lines


def _export_embedder(settings: Any, out: TextIO, err: TextIO) -> None:
    """Export the local MiniLM to ONNX once per home, checked against torch, so that questions load
    the model in a fraction of a second (geo_rag_runtime.embeddings.OnnxEmbedder). Not an asset: it derives
    from the packaged weights, not from the papers. A failed export only costs speed: questions keep
    the torch model, and the next ingest tries again."""
    if not settings.local_embeddings or settings.embedding_runtime == "torch":
        return
    from geo_assets.ingest.onnx_export import export_onnx
    from geo_rag_runtime.embeddings import export_folder, load_verified, local_model_path

    # an export made before it carried the tokenizer is made again, so that serving installs can use it
    carries_tokenizer = (export_folder(settings) / "tokenizer.json").is_file()
    if carries_tokenizer and load_verified(settings, local_model_path()) is not None:
        return
    try:
        manifest = export_onnx(settings)
    except Exception as exc:  # torch/onnx export errors have many types; speed is all that is lost
        print(
            f"warning: ONNX export of the embedding model failed ({type(exc).__name__}: {exc}); "
            "questions use the torch model",
            file=err,
        )
        return
    if manifest["verified"]:
        print(
            f"embedding model exported to ONNX (max |Δ| vs torch {manifest['max_abs_diff']:.1e}, "
            f"{manifest['seconds']}s)",
            file=out,
        )
    else:
        print(
            f"warning: the ONNX export of the embedding model differs from torch by "
            f"{manifest['max_abs_diff']:.1e} (windows equal: {manifest['same_windows']}); "
            "questions use the torch model",
            file=err,
        )


def asset_versions() -> dict[str, Any]:
    """Latest materialization per asset (and per partition): code and data versions, time."""
    from geo_assets.definitions import build_definitions

    defs = build_definitions()
    instance = dg.DagsterInstance.get()
    out: dict[str, Any] = {}
    for key in sorted(defs.resolve_asset_graph().get_all_asset_keys(), key=lambda k: k.to_user_string()):
        latest = {
            partition: {
                "data_version": version.data_version,
                "code_version": version.code_version,
                "timestamp": version.timestamp,
            }
            for partition, version in latest_versions(instance, key, limit=200).items()
        }
        if latest:
            out[key.to_user_string()] = latest
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m geo_assets.cli.commands")
    sub = parser.add_subparsers(dest="command", required=True)
    p_ingest = sub.add_parser("ingest")
    p_ingest.add_argument("paths", nargs="*")
    p_ingest.add_argument("--no-progress", action="store_true")
    p_ingest.add_argument("--force", action="store_true")
    sub.add_parser("versions")
    p_eval = sub.add_parser("evaluate")
    p_eval.add_argument("--dataset")
    p_eval.add_argument("--out")
    p_retire = sub.add_parser("retire")
    p_retire.add_argument("names", nargs="*")
    p_retire.add_argument("--confirm", action="store_true")
    p_unretire = sub.add_parser("unretire")
    p_unretire.add_argument("names", nargs="*")
    p_unretire.add_argument("--all", action="store_true", dest="everything")
    p_purge = sub.add_parser("purge")
    p_purge.add_argument("--all", action="store_true", dest="everything")
    args = parser.parse_args(argv)
    os.environ.setdefault("DAGSTER_DISABLE_TELEMETRY", "1")
    if args.command == "ingest":
        return ingest(args.paths, progress=False if args.no_progress else None, force=args.force)
    if args.command == "versions":
        print(json.dumps(asset_versions()))
        return 0
    if args.command == "evaluate":
        from geo_assets.cli.evaluate import evaluate

        return evaluate(dataset=args.dataset, out=args.out)
    from geo_assets.cli import retirement

    if args.command == "retire":
        return retirement.retire_command(args.names, confirm=args.confirm)
    if args.command == "unretire":
        return retirement.unretire_command(args.names, everything=args.everything)
    if args.command == "purge":
        return retirement.purge_command(everything=args.everything)
    return 2


if __name__ == "__main__":
    sys.exit(main())
