"""Ingest stage: PDF → TEI → paper JSON → cleaned text → chunks.

``assets`` and ``sensors`` are the Dagster side; every other module is a plain helper they call
(GROBID client, PDF checks, embedded PDF parser, TEI reader, cleaning, chunking, sources registry,
retirement of removed papers).
"""
