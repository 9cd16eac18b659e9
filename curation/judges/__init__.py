"""AI judges: one module per backend, and the registry that builds a configured judge."""
