"""Read queries of the curation app, one module per sub-domain."""
