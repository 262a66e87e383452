"""Graph stage: triple extraction (``extraction``, plain) and the knowledge-graph assets (``assets``)."""
