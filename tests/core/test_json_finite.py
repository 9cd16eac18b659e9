"""JSON numbers that are not finite (which Python's json reads and PostgreSQL's jsonb refuses) are refused by name and
place; every finite number, and the largest float, still parses."""

import re

import pytest

from core.text_checks import HostileInput, check_json_value, json_loads


@pytest.mark.parametrize(("text", "message"), [
    ('{"a": 1e999}', "a is not a finite number (infinity)"),
    ('{"a": -1e999}', "a is not a finite number (minus infinity)"),
    ('{"a": NaN}', "a is not a finite number (NaN)"),
    ('{"a": Infinity}', "a is not a finite number (infinity)"),
    ('{"a": {"b": [0, -Infinity]}}', "a.b[1] is not a finite number (minus infinity)"),
    ("1e400", "the JSON body is not a finite number (infinity)"),
    ("1" * 400 + ".0", "the JSON body is not a finite number (infinity)"),
])
def test_a_number_that_is_not_finite_is_refused_naming_its_place(text, message):
    with pytest.raises(HostileInput, match=f"^{re.escape(message)}, which is not accepted\\.$"):
        json_loads(text)


def test_finite_numbers_parse_as_json_loads_reads_them():
    assert json_loads('{"a": 1.7976931348623157e308, "b": -0.0, "c": 1e-400, "d": 12, "e": [0.5]}') == {
        "a": 1.7976931348623157e308, "b": -0.0, "c": 0.0, "d": 12, "e": [0.5]}


def test_a_value_parsed_elsewhere_is_checked_for_numbers_that_are_not_finite():
    with pytest.raises(HostileInput, match=r"^prompt\.metadata\.x is not a finite number \(NaN\)"):
        check_json_value({"prompt": {"metadata": {"x": float("nan")}}}, where="the record")
