"""Evaluation stage: dataset loading (``dataset``), metrics (``metrics``), the HybridRAG vs
BaselineRAG runner (``runner``), tables and plots (``report``), and their assets (``assets``)."""
