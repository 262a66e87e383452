"""``geo-rag retire | unretire | purge``: retirement on purpose, its undo, and the final deletion.

The sensor retires only a few papers at a time and never from a folder it cannot read
(``geo_assets.ingest.retire``); these commands are how a person retires more at once, brings papers
back, and finally deletes what stayed retired past ``GEO_RAG_RETIRE_KEEP_DAYS``. Each holds the
home's writer lock; ``purge`` also deletes the papers' Dagster partitions (it runs in the Dagster
process for that).
"""

import sys
from typing import Any, TextIO

import dagster as dg

from geo_assets.ingest import registry, retire
from geo_assets.partitions import PAPERS
from geo_rag_runtime.home_lock import home_lock
from geo_rag_runtime.stores import publication

__all__ = ["purge_command", "retire_command", "unretire_command"]


def _context(out: TextIO | None, err: TextIO | None) -> tuple[Any, TextIO, TextIO]:
    from geo_rag_runtime.settings import get_settings

    return get_settings(), out or sys.stdout, err or sys.stderr


def _key_for(store: Any, name: str) -> str | None:
    """The partition key a partition key, paper id or PDF file name stands for."""
    if store.source_path(name) is not None:
        return name
    doc = store.get_paper(name) or store.find_paper_by_source(name)
    key = doc.get("partition_key") if doc else None
    return str(key) if key else None


def retire_command(
    names: list[str], *, confirm: bool, out: TextIO | None = None, err: TextIO | None = None
) -> int:
    """Without names: the papers whose PDF left the watched folder; with names: those papers.
    Lists them, and retires them only with ``confirm`` (any number at once)."""
    from geo_assets.resources import default_resources

    settings, out, err = _context(out, err)
    with (
        home_lock(settings.home_dir, lambda line: print(line, file=err, flush=True), what="geo-rag retire"),
        default_resources()["documents"].open() as store,
    ):
        orphans: list[str] = []
        if names:
            keys = {name: _key_for(store, name) for name in names}
            unknown = [name for name, key in keys.items() if key is None]
            if unknown:
                print(f"error: no ingested paper is named {', '.join(unknown)}", file=err)
                return 2
            wanted = [str(key) for key in dict.fromkeys(keys.values())]
            reason = "geo-rag retire"
        else:
            plan = retire.plan_retirement(settings, store)
            if plan.problem is not None:
                print(f"error: {plan.problem}: nothing is retired while it is so", file=err)
                return 2
            wanted, orphans, reason = (
                plan.missing,
                plan.orphans,
                f"its PDF left {plan.folder} (geo-rag retire)",
            )
            print(plan.describe(), file=out)
        retired = publication.retired_papers(settings.home_dir)
        already = {record.get("partition_key") for record in retired.values()}
        wanted = [key for key in wanted if key not in already]
        if not confirm:
            for key in wanted:
                print(f"would retire: {key}", file=out)
            print(
                f"{len(wanted)} paper(s) would be retired (hidden from questions, kept until `geo-rag "
                "purge`); run again with --confirm to retire them",
                file=out,
            )
            return 0
        instance = dg.DagsterInstance.get() if orphans else None
        for key in orphans:  # registered files that never became a paper: nothing to keep
            registry.unregister(store, key)
            if instance is not None and instance.has_dynamic_partition(PAPERS, key):
                instance.delete_dynamic_partition(PAPERS, key)
        done = [key for key in wanted if retire.retire_paper(settings, store, key, reason) is not None]
        for key in done:
            print(f"retired: {key}", file=out)
        print(
            f"retired {len(done)} paper(s): hidden from questions and exports, kept in every store; "
            f"`geo-rag unretire NAME` brings one back, `geo-rag purge` deletes those retired more than "
            f"{settings.retire_keep_days:g} days ago",
            file=out,
        )
    return 0


def unretire_command(
    names: list[str], *, everything: bool = False, out: TextIO | None = None, err: TextIO | None = None
) -> int:
    """Bring retired papers back (by paper id, partition key or PDF file name; ``everything``: all)."""
    settings, out, err = _context(out, err)
    with home_lock(
        settings.home_dir, lambda line: print(line, file=err, flush=True), what="geo-rag unretire"
    ):
        retired = publication.retired_papers(settings.home_dir)
        if everything:
            records = list(retired.values())
        else:
            found = {name: retire.find_retired(settings, name) for name in names}
            unknown = [name for name, record in found.items() if record is None]
            if unknown:
                print(f"error: not retired: {', '.join(unknown)}", file=err)
                return 2
            records = [record for record in found.values() if record is not None]
        for record in records:
            if retire.unretire_paper(settings, record["paper_id"]):
                print(f"unretired: {record.get('partition_key') or record['paper_id']}", file=out)
        print(f"{len(records)} paper(s) answer questions again", file=out)
    return 0


def purge_command(*, everything: bool = False, out: TextIO | None = None, err: TextIO | None = None) -> int:
    """Delete the papers retired more than ``GEO_RAG_RETIRE_KEEP_DAYS`` ago (``everything``: all
    retired papers) from every store, with their partitions."""
    from geo_assets.resources import default_resources

    settings, out, err = _context(out, err)
    with (
        home_lock(settings.home_dir, lambda line: print(line, file=err, flush=True), what="geo-rag purge"),
        default_resources()["documents"].open() as store,
    ):
        chosen = retire.purgeable(settings, everything=everything)
        instance = dg.DagsterInstance.get() if chosen else None
        for record in chosen:
            removed = retire.purge_paper(settings, store, record["paper_id"])
            key = record.get("partition_key", "")
            if (
                instance is not None
                and key
                and store.source_path(key) is None
                and instance.has_dynamic_partition(PAPERS, key)
            ):
                instance.delete_dynamic_partition(PAPERS, key)
            chunks = removed.get("documents", {}).get("chunks", 0)
            print(
                f"purged: {key or record['paper_id']} (retired {record['since']}, {chunks} chunks)", file=out
            )
        kept = len(publication.retired_papers(settings.home_dir))
        print(
            f"purged {len(chosen)} retired paper(s)"
            + (
                f"; {kept} retired less than {settings.retire_keep_days:g} days ago are kept "
                "(--all purges them too)"
                if kept
                else ""
            ),
            file=out,
        )
    return 0
