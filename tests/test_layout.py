"""Where X lives can be read from the folder names: the README's layout is the tree, and each app says what it owns
and what it may import, which the imports obey."""

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# Each app and the Concord apps its code may import (inside functions too; type hints aside).
MAY_IMPORT = {
    "core": set(),
    "accounts": {"core"},
    "catalogue": {"core", "accounts", "workqueue", "curation"},
    "workqueue": {"core", "accounts", "catalogue"},
    "curation": {"core", "accounts", "catalogue", "workqueue"},
    "frontend": {"core", "accounts", "catalogue", "workqueue", "curation"},
    "demo": {"core", "accounts", "catalogue", "workqueue", "curation"},
}


def _imported_apps(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    type_only = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING":
            type_only.update(id(child) for stmt in node.body for child in ast.walk(stmt))
    found = set()
    for node in ast.walk(tree):
        if id(node) in type_only:
            continue
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module.split(".")[0])
        elif isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
    return found & set(MAY_IMPORT)


def test_the_readme_layout_names_every_top_level_package_and_nothing_else():
    readme = (ROOT / "README.md").read_text()
    block = readme.split("## Layout", 1)[1].split("```", 2)[1]
    listed = set(re.findall(r"^([a-z_]+)/", block, re.M))
    packages = {p.name for p in ROOT.iterdir() if p.is_dir() and not p.name.startswith(".") and (
        (p / "__init__.py").exists() or p.name in ("docs", "bench", "tests"))}
    assert listed == packages


def test_every_app_says_what_it_owns_and_what_it_may_import():
    for app in MAY_IMPORT:
        doc = ast.get_docstring(ast.parse((ROOT / app / "__init__.py").read_text())) or ""
        assert "May import:" in doc, app


def test_no_app_imports_what_it_may_not():
    wrong = {}
    for app, allowed in MAY_IMPORT.items():
        for path in (ROOT / app).rglob("*.py"):
            if "migrations" in path.parts:
                continue
            extra = _imported_apps(path) - allowed - {app}
            if extra:
                wrong[str(path.relative_to(ROOT))] = sorted(extra)
    assert wrong == {}
