"""Cells written to CSV files curators open in spreadsheets."""


def csv_safe(value):
    """Neutralise spreadsheet formulas in text cells (CSV injection): a leading = + - @ gets a quote."""
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + value
    return value
