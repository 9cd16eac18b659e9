"""The ensemble-judge pre-filter's pure computation: vote rules and per-judge figures."""

JOB_KIND = "prefilter"
