"""The services and selectors (the files mypy checks, from pyproject.toml) annotate every public function fully.

mypy alone cannot say this: it checks the bodies of annotated functions, and with its strict flags it would also
demand annotations on every private helper.
"""

import ast
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def checked_files() -> list[Path]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    found = []
    for entry in config["tool"]["mypy"]["files"]:
        path = ROOT / entry
        found.extend(sorted(path.rglob("*.py")) if path.is_dir() else [path])
    return found


def unannotated(source: str) -> list[str]:
    """``name: what is missing`` for each public top-level function of ``source`` that lacks an annotation."""
    missing = []
    for node in ast.parse(source).body:
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) or node.name.startswith("_"):
            continue
        args = node.args
        gaps = [a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs] if a.annotation is None]
        gaps += [f"*{a.arg}" for a in (args.vararg, args.kwarg) if a is not None and a.annotation is None]
        if node.returns is None:
            gaps.append("return")
        if gaps:
            missing.append(f"{node.name}: {', '.join(gaps)}")
    return missing


def test_every_public_service_and_selector_function_is_fully_annotated():
    files = checked_files()
    assert any(path.name == "assignments.py" for path in files)
    gaps = {str(path.relative_to(ROOT)): unannotated(path.read_text()) for path in files}
    assert {path: names for path, names in gaps.items() if names} == {}


def test_a_missing_parameter_or_return_annotation_is_named():
    source = "def pair_get(*, pair_id: int, user):\n    pass\n\ndef _helper(x):\n    pass\n"
    assert unannotated(source) == ["pair_get: user, return"]
