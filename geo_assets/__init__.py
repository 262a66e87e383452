"""GeoRAG's Dagster code location: assets, resources, partitions, sensors, schedules, checks."""
