"""Dagster-free pipeline helpers: one plain function per stage."""
