"""Answering a question: one module per step of the pipeline (``pipeline`` runs them top to bottom).

A regular package (it was a namespace package, which import-linter does not see: the import
contracts in pyproject.toml now cover these modules too).
"""
