"""Agreement statistics as plain functions over numpy arrays; no Django import anywhere in this package.

The ORM feeds these functions (see ``curation.services.agreement``); they never reach into it.
"""
