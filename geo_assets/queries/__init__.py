"""Query-classifier stage: synthetic labelled queries and classifier training (plain helpers), and
their assets (``assets``). The hand-written test split lives in ``data/seed_queries.csv``."""
