"""What curators run: the ensemble-judge pre-filter, agreement, consensus, annotator quality, versioned releases,
judge evaluation and the model leaderboard; the curator console's API.

Pure computation (``agreement/``, ``consensus/``, ``prefilter/``, ``judges/parsing``, ``leaderboard/``) is plain
Python over arrays and dataclasses; ``services/`` and ``selectors/`` feed it from the ORM; tasks are thin.

May import: ``core`` and ``annotation`` (its models, services and selectors).
"""
