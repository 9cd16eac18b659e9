"""Every ``pattern`` attribute in the templates is a regular expression Chromium accepts.

Chromium compiles a pattern as ``^(?:pattern)$`` with the ``v`` flag, where an unescaped ``-`` at the edge of a
character class is a syntax error: the browser logs it and stops checking that field, so the form posts anything."""

import html
import re
from pathlib import Path

import pytest

from tests.browser import chromium

pytestmark = [pytest.mark.browser]

TEMPLATES = Path(__file__).resolve().parents[2] / "frontend" / "templates"
PATTERN = re.compile(r'\spattern="([^"]*)"')


def template_patterns() -> list[tuple[str, str]]:
    """(template:line, pattern as the browser reads it) for every pattern attribute under frontend/templates."""
    found = []
    for template in sorted(TEMPLATES.rglob("*.html")):
        for number, line in enumerate(template.read_text().splitlines(), start=1):
            found += [(f"{template.relative_to(TEMPLATES)}:{number}", html.unescape(value))
                      for value in PATTERN.findall(line)]
    return found


def test_every_template_pattern_compiles_with_the_v_flag_as_chromium_compiles_it():
    """A pattern Chromium would refuse (logging "not a valid regular expression") fails here, named by its line."""
    patterns = template_patterns()
    assert len(patterns) >= 6, "the scan finds the slug, name and version patterns of the console and import forms"
    with chromium() as browser:
        page = browser.new_page()
        errors = page.evaluate(
            """patterns => patterns.flatMap(([where, pattern]) => {
                try { new RegExp(`^(?:${pattern})$`, "v"); return []; }
                catch (error) { return [`${where}: ${pattern}: ${error.message}`]; }
            })""", patterns)
    assert errors == []


def test_the_slug_patterns_still_take_a_hyphenated_slug_and_refuse_a_space():
    """Escaping the hyphen keeps its meaning: the browser accepts "t2i-sunsets" and refuses "t2i sunsets"."""
    forms = ("frontend/console/campaign_form.html", "frontend/console/judges.html", "frontend/imports/upload.html")
    slug_patterns = [pattern for where, pattern in template_patterns() if where.startswith(forms)]
    assert len(slug_patterns) == 4
    with chromium() as browser:
        page = browser.new_page()
        verdicts = page.evaluate(
            """patterns => patterns.map(pattern => {
                const input = document.createElement("input");
                input.pattern = pattern;
                const valid = value => { input.value = value; return input.checkValidity(); };
                return [valid("t2i-sunsets"), valid("t2i sunsets")];
            })""", slug_patterns)
    assert verdicts == [[True, False]] * len(slug_patterns)
