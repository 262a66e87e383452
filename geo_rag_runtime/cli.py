"""``geo-rag``: the one console script (every command and flag: docs/user-guide.md#command-reference).

ingest/evaluate/retire/unretire/purge and asset versions need Dagster: they run ``python -m geo_assets.cli.commands`` in a
child process, so this package never imports Dagster and `ask` starts fast.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from geo_rag_runtime import contract
from geo_rag_runtime.dagster_env import OFFLINE_FLAGS, dagster_environment
from geo_rag_runtime.settings import Settings, get_settings
from geo_rag_runtime.stores import publication
from geo_rag_runtime.stores.opening import store_counts

if TYPE_CHECKING:
    from geo_rag_runtime.models import Answer


def _run_dagster_command(
    settings: Settings, *args: str, capture: bool = False
) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "geo_assets.cli.commands", *args]
    return subprocess.run(
        cmd, env=dagster_environment(settings), text=True, capture_output=capture, check=False
    )


def cmd_ingest(args: argparse.Namespace, settings: Settings) -> int:
    extra = (["--no-progress"] if args.no_progress else []) + (["--force"] if args.force else [])
    return _run_dagster_command(settings, "ingest", *extra, *args.paths).returncode


def cmd_retire(args: argparse.Namespace, settings: Settings) -> int:
    """``geo-rag retire [NAME ...] [--confirm]``: retire on purpose (hide; kept until purged)."""
    return _run_dagster_command(
        settings, "retire", *(["--confirm"] if args.confirm else []), *args.names
    ).returncode


def cmd_unretire(args: argparse.Namespace, settings: Settings) -> int:
    """``geo-rag unretire NAME ... | --all``: retired papers answer questions again."""
    if not args.names and not args.all:
        print(
            "error: name the papers to bring back (paper id, partition key or file name), or --all",
            file=sys.stderr,
        )
        return 2
    return _run_dagster_command(
        settings, "unretire", *(["--all"] if args.all else []), *args.names
    ).returncode


def cmd_purge(args: argparse.Namespace, settings: Settings) -> int:
    """``geo-rag purge [--all]``: delete papers retired longer than GEO_RAG_RETIRE_KEEP_DAYS."""
    return _run_dagster_command(settings, "purge", *(["--all"] if args.all else [])).returncode


def cmd_status(args: argparse.Namespace, settings: Settings) -> int:
    report: dict[str, Any] = {
        "home": str(settings.home_dir),
        "papers_folder": str(settings.papers),
        "stores": store_counts(settings),
        # papers an ingest is rewriting, or whose rebuild failed: questions leave them out
        "building": publication.building_papers(settings.home_dir),
        # papers hidden because their PDF left the folder (or `geo-rag retire`): kept until purged
        "retired": publication.retired_papers(settings.home_dir),
    }
    proc = _run_dagster_command(settings, "versions", capture=True)
    try:
        report["assets"] = (
            json.loads(proc.stdout.strip().splitlines()[-1])
            if proc.returncode == 0
            else {"error": proc.stderr.strip()[-500:]}
        )
    except (json.JSONDecodeError, IndexError):
        report["assets"] = {"error": "could not read asset versions"}
    if args.json:
        print(json.dumps(report, indent=2, default=str))
        return 0
    print(f"GeoRAG home: {report['home']}")
    print(f"papers folder: {report['papers_folder']}")
    for name, value in report["stores"].items():
        if name == "text_coverage" and "error" not in value:
            low = value["below_warning"]
            print(
                f"text coverage: median {value['median']} over {value['papers_measured']} paper(s); "
                f"{len(low)} below the warning line"
            )
            for item in low:
                print(f"  low coverage {item['coverage']:.2f}: {item['paper']}: {item['note']}")
            continue
        print(f"{name}: " + ", ".join(f"{k}={v}" for k, v in value.items()))
    for paper_id, record in report["building"].items():
        print(
            f"building (hidden from questions until its ingest completes): {paper_id} since "
            f"{record.get('since', '?')}, run {record.get('run_id', '?')[:8]}"
        )
    for paper_id, record in sorted(report["retired"].items(), key=lambda kv: kv[1].get("since", "")):
        print(
            f"retired (hidden; `geo-rag unretire` brings it back, `geo-rag purge` deletes it after "
            f"{settings.retire_keep_days:g} days): {record.get('partition_key') or paper_id} since "
            f"{record.get('since', '?')} ({record.get('reason', '')})"
        )
    print("assets (materialized partitions, latest data version):")
    assets = report["assets"]
    if "error" in assets:
        print(f"  error: {assets['error']}")
    for asset, parts in assets.items() if "error" not in assets else []:
        newest = max(parts.values(), key=lambda p: p["timestamp"])
        scope = "unpartitioned" if set(parts) == {"-"} else f"{len(parts)} partition(s)"
        print(f"  {asset}: {scope}, code {newest['code_version']}, data {newest['data_version']}")
    return 0


def cmd_ask(args: argparse.Namespace, settings: Settings) -> int:
    from geo_rag_runtime.errors import GeoRagError
    from geo_rag_runtime.service import RagService

    if args.generator:
        settings = settings.model_copy(update={"generator": args.generator})
    drafting = not args.json and sys.stderr.isatty()

    def show_draft(piece: str) -> None:  # the model's draft as it streams; the cited answer follows
        sys.stderr.write(piece)
        sys.stderr.flush()

    try:
        service = RagService(settings)
        answer = service.ask(
            args.question, mode=args.mode, top_k=args.top_k, on_text=show_draft if drafting else None
        )
        if drafting and answer.generator != "extractive":
            sys.stderr.write("\n\n")
    except GeoRagError as exc:
        if args.json:
            print(json.dumps({"error": type(exc).__name__, "message": str(exc)}))
        else:
            print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.json:
        from geo_rag_runtime.models import answer_json

        print(answer_json(answer))  # the HTTP answer's serializer: the same object
    else:
        print(format_answer(answer))
    return 0


def cmd_serve(args: argparse.Namespace, settings: Settings) -> int:
    import uvicorn

    from geo_rag_runtime.server import create_app

    uvicorn.run(create_app(settings), host=args.host, port=args.port, log_level="info")
    return 0


def cmd_evaluate(args: argparse.Namespace, settings: Settings) -> int:
    extra: list[str] = []
    if args.dataset:  # a named set (dev, corpus, corpus_heldout) or a file
        extra += [
            "--dataset",
            args.dataset if args.dataset in contract.EVALUATION_SETS else os.path.abspath(args.dataset),
        ]
    if args.out:
        extra += ["--out", os.path.abspath(args.out)]
    return _run_dagster_command(settings, "evaluate", *extra).returncode


def format_answer(answer: Answer) -> str:
    """The human-readable form of an answer for ``geo-rag ask`` (``--json`` prints the contract)."""
    lines = [answer.answer, ""]
    lines.append(
        f"category: {answer.category}   strategy: {answer.strategy}   generator: {answer.generator}"
        f"   mode: {answer.mode}"
    )
    passages = [c for c in answer.contexts if c.kind == "passage"]
    values = [c for c in answer.contexts if c.kind == "value"]
    facts = [c for c in answer.contexts if c.kind == "fact"]
    if passages:
        lines += ["", "sources:"]
        cited = {c.chunk_id for c in answer.citations}
        for passage in passages:
            mark = "*" if passage.chunk_id in cited else " "
            where = passage.source_file or "?"
            if passage.page_start is not None:
                start, end = passage.page_start, passage.page_end or passage.page_start
                where += f", p. {start}" if start == end else f", pp. {start}–{end}"
            if passage.section:
                where += f", {passage.section}"
            lines.append(f" {mark}[{passage.marker}] {where}  (score {passage.score:.3f})")
    if answer.citations:
        lines += ["", "cited:"]
        # citations are per chunk (--json keeps them all); a reader needs each paper and page once
        cited_pages = (
            f"  {c.source_file}{f', {c.pages}' if c.pages else ''}  ({c.title})" for c in answer.citations
        )
        lines += list(dict.fromkeys(cited_pages))
    if values:
        lines += ["", "reported values (geo-rag measurements has them all):"]
        for value in values:
            source = value.provenance[0] if value.provenance else None
            page = f", p. {source.page_start}" if source and source.page_start is not None else ""
            where = (source.source_file if source else None) or "?"
            lines.append(f"  [{value.marker}] {value.text}  ({where}{page})")
    if facts:
        lines += ["", "graph facts:"]
        lines += [f"  [{fact.marker}] {fact.text}" for fact in facts]
    if answer.notes:
        lines += ["", "notes:"]
        lines += [f"  - {note}" for note in answer.notes]
    timings = "  ".join(f"{k} {v:.0f}" for k, v in answer.timings_ms.items())
    lines += ["", f"timings (ms): {timings}"]
    return "\n".join(lines)


def cmd_measurements(args: argparse.Namespace, settings: Settings) -> int:
    """``geo-rag measurements``: the reported values of the ingested papers as data."""
    from geo_rag_runtime import measurements
    from geo_rag_runtime.errors import GeoRagError

    try:
        rows = measurements.find(
            settings,
            analyte=args.analyte,
            paper=args.paper,
            minimum=args.min,
            maximum=args.max,
            limit=args.limit,
            sample=args.sample,
            rock_unit=args.rock_unit,
        )
    except GeoRagError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    output = measurements.render(rows, args.format)
    if not args.out:
        if isinstance(output, bytes):
            print("error: --format parquet needs --out FILE", file=sys.stderr)
            return 2
        print(output)
        return 0
    if isinstance(output, bytes):
        Path(args.out).write_bytes(output)
    else:
        Path(args.out).write_text(output, encoding="utf-8")
    print(f"{len(rows)} value(s) written to {args.out}")
    return 0


def cmd_llm(args: argparse.Namespace, settings: Settings) -> int:
    """``geo-rag llm pull|start|serve|stop|status``: the local model and its one shared server."""
    from geo_rag_runtime import local_llm
    from geo_rag_runtime.errors import GeoRagError

    try:
        if args.action == "pull":
            print(f"model ready: {local_llm.pull(settings)}")
        elif args.action == "start":
            state = local_llm.start(settings, host=args.host, port=args.port)
            print(f"local LLM server running: {state.base_url} (pid {state.pid}, model {state.model})")
        elif args.action == "serve":  # foreground, for a container or a service manager
            path = local_llm.pull(settings)
            command = local_llm.server_command(
                settings, path, args.host, args.port or settings.local_llm_port
            )
            os.environ["OMP_WAIT_POLICY"] = "PASSIVE"
            os.execv(command[0], command)
        elif args.action == "stop":
            stopped = local_llm.stop(settings, say=lambda line: print(line, file=sys.stderr))
            print("stopped" if stopped else "no local LLM server was running")
        else:
            print(json.dumps(local_llm.status(settings), indent=2))
    except GeoRagError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


def cmd_backup(args: argparse.Namespace, settings: Settings) -> int:
    """``geo-rag backup ARCHIVE``: documents, vectors, measurement rows, TEI and models, portable."""
    from geo_rag_runtime.backup import backup
    from geo_rag_runtime.errors import GeoRagError

    try:
        manifest = backup(settings, Path(args.archive), say=lambda line: print(line, file=sys.stderr))
    except GeoRagError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    counts = ", ".join(f"{value} {key}" for key, value in manifest["counts"].items())
    print(f"wrote {args.archive}: {counts}")
    return 0


def cmd_restore(args: argparse.Namespace, settings: Settings) -> int:
    """``geo-rag restore ARCHIVE``: into this home's stores, which must be empty."""
    from geo_rag_runtime.backup import restore
    from geo_rag_runtime.errors import GeoRagError

    try:
        counts = restore(settings, Path(args.archive), say=lambda line: print(line, file=sys.stderr))
    except GeoRagError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"restored into {settings.home_dir}: " + ", ".join(f"{v} {k}" for k, v in counts.items()))
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="geo-rag", description="HybridRAG over geochemistry papers.")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser(
        "ingest", help="materialize the asset graph for PDFs or folders (default: papers folder)"
    )
    p.add_argument("paths", nargs="*", help="PDF files or folders")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--force", action="store_true", help="re-run papers that are already up to date")
    p.set_defaults(func=cmd_ingest)
    p = sub.add_parser("ask", help="answer a question from the materialized stores")
    p.add_argument("question")
    p.add_argument("--mode", choices=["hybrid", "baseline"], default="hybrid")
    p.add_argument("--top-k", type=int, default=None, dest="top_k")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument(
        "--generator",
        choices=["auto", "grounded", "llm", "extractive"],
        default=None,
        help="who writes the answer (default GEO_RAG_GENERATOR; auto = extractive, the measured best)",
    )
    p.set_defaults(func=cmd_ask)
    p = sub.add_parser("serve", help="HTTP API: POST /ask, GET /measurements, GET /health")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8000)
    p.set_defaults(func=cmd_serve)
    p = sub.add_parser("evaluate", help="HybridRAG vs BaselineRAG with RAGAS metrics")
    p.add_argument(
        "--dataset",
        help="'dev' (default: 78 questions over data/papers), 'corpus' (186 over the 17 shared-corpus "
        "papers), 'corpus_heldout' (50 more over them, 30 unanswerable), 'corpus_values' (40 asking for "
        "a number, 20 unanswerable), 'corpus_v2' (70 for final reports, 14 unanswerable, 14 on two papers), "
        "'corpus_v3' (64 for final reports, 10 unanswerable, 10 on two papers), 'corpus_v4' (20 pairs: "
        "answerable in other words / near miss) or a JSONL file",
    )
    p.add_argument("--out", help="output folder for tables and plots")
    p.set_defaults(func=cmd_evaluate)
    p = sub.add_parser("llm", help="the local LLM: pull (assemble the model), start/stop its server, status")
    p.add_argument("action", choices=["pull", "start", "serve", "stop", "status"])
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=None, help="default GEO_RAG_LOCAL_LLM_PORT (8765)")
    p.set_defaults(func=cmd_llm)
    p = sub.add_parser("measurements", help="reported values (analyte, value, unit, citation) as data")
    p.add_argument("--analyte", help="e.g. 87Sr/86Sr, SiO2, εNd, age")
    p.add_argument("--paper", help="paper id or PDF file name")
    p.add_argument("--min", type=float, help="rows whose value is at least this (a range: its low end)")
    p.add_argument(
        "--max", type=float, help="rows whose value is at most this (a range: its low end, not its high end)"
    )
    p.add_argument("--sample", help="rows of this sample, as any printing of it (19mat169 = 19MAT-169)")
    p.add_argument("--rock-unit", help="rows whose rock unit holds this text, case aside (e.g. mukhar)")
    p.add_argument("--limit", type=int, default=0, help="at most this many rows (0: all)")
    p.add_argument("--format", choices=["table", "csv", "parquet", "json"], default="table")
    p.add_argument("--out", help="write to this file (needed for parquet)")
    p.set_defaults(func=cmd_measurements)
    p = sub.add_parser("backup", help="export the knowledge base to one portable archive (.tar.gz)")
    p.add_argument("archive", help="the archive to write, e.g. georag-2026-12-03.tar.gz")
    p.set_defaults(func=cmd_backup)
    p = sub.add_parser("restore", help="restore a backup into this (empty) home's stores")
    p.add_argument("archive", help="an archive written by geo-rag backup")
    p.set_defaults(func=cmd_restore)
    p = sub.add_parser(
        "retire", help="retire papers on purpose: hidden from questions, kept until `geo-rag purge`"
    )
    p.add_argument(
        "names",
        nargs="*",
        help="paper ids, partition keys or PDF file names (default: every paper "
        "whose PDF left the papers folder)",
    )
    p.add_argument("--confirm", action="store_true", help="retire them (without it: only list them)")
    p.set_defaults(func=cmd_retire)
    p = sub.add_parser("unretire", help="bring retired papers back (their data never left the stores)")
    p.add_argument("names", nargs="*", help="paper ids, partition keys or PDF file names")
    p.add_argument("--all", action="store_true", help="every retired paper")
    p.set_defaults(func=cmd_unretire)
    p = sub.add_parser("purge", help="delete papers retired more than GEO_RAG_RETIRE_KEEP_DAYS ago")
    p.add_argument("--all", action="store_true", help="every retired paper, however recent")
    p.set_defaults(func=cmd_purge)
    p = sub.add_parser("status", help="counts per store and versions of materialized assets")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_status)
    return parser


def main(argv: list[str] | None = None) -> int:
    for key, value in OFFLINE_FLAGS.items():
        os.environ.setdefault(key, value)
    args = build_parser().parse_args(argv)
    settings = get_settings()
    return int(args.func(args, settings))


if __name__ == "__main__":
    sys.exit(main())
