"""Graph stage: triple extraction (``extraction``: rules, structural facts, co-occurrence, LLM; plain
helpers) and the knowledge-graph assets (``assets``)."""
