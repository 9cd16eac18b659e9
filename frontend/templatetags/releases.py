"""Template filters of the releases pages."""

from django import template

register = template.Library()


@register.filter
def percent(value) -> str:
    """0.7053 → '70.5%'; None → '—'."""
    if value is None or value == "":
        return "—"
    return f"{100 * float(value):.1f}%"
