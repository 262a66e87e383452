"""Evaluation stage: dataset loading (``dataset``); metrics (``metrics`` re-exports ``metric_specs``,
``retrieval_metrics``, ``ragas_adapters``, ``metric_suite``); the HybridRAG vs BaselineRAG run
(``runner``, with ``answering``, ``identity``, ``run_folder``); tables and plots (``report``); and
their assets (``assets``)."""
