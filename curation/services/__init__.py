"""Services of the curation app: the only code that writes its important models, one module per sub-domain."""
