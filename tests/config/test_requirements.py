"""Requirements for their use: requirements.txt is what Concord runs on (the image installs it alone), exactly
pinned; the test and development tools are in requirements-dev.txt, which includes it."""

import ast
import re
import sys
from importlib.metadata import packages_distributions
from pathlib import Path

from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[2]
APP_PACKAGES = ["core", "annotation", "demo", "curation", "frontend", "config"]
FIRST_PARTY = {*APP_PACKAGES, "tests", "bench"}
DEV_TOOLS = {"playwright", "moto", "schemathesis", "hypothesis", "ruff", "factory-boy", "faker", "mypy", "django-stubs"}
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)(\[[a-z0-9,_-]+\])?==[0-9][^\s;]*(\s+#.*)?$")


def pinned(name: str) -> dict[str, str]:
    """Canonical package name → its line, for every requirement line of ``name``; other lines are refused."""
    found = {}
    for line in (ROOT / name).read_text().splitlines():
        if not line or line.startswith("#") or line == "-r requirements.txt":
            continue
        match = PIN.match(line)
        assert match, f"{name}: not an exact pin: {line!r}"
        found[canonicalize_name(match.group(1))] = line
    return found


def imported_modules(folder: Path) -> set[str]:
    """Top-level names of the modules imported anywhere under ``folder`` (absolute imports only)."""
    names = set()
    for path in folder.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names.add(node.module.split(".")[0])
    return names


def test_every_requirement_is_an_exact_pin_and_the_dev_file_includes_the_runtime_one():
    runtime, dev = pinned("requirements.txt"), pinned("requirements-dev.txt")
    assert "-r requirements.txt" in (ROOT / "requirements-dev.txt").read_text().splitlines()
    assert not set(runtime) & set(dev), "a package is pinned in both files"


def test_the_image_installs_no_test_or_development_tool():
    runtime, dev = pinned("requirements.txt"), pinned("requirements-dev.txt")
    assert DEV_TOOLS.isdisjoint(runtime)
    assert DEV_TOOLS <= set(dev)
    assert {"pytest", "pytest-django"} <= set(runtime), "the image runs a smoke suite"
    assert "requirements-dev" not in (ROOT / "Dockerfile").read_text()


def test_every_module_the_application_imports_comes_from_requirements_txt():
    runtime = pinned("requirements.txt")
    providers = packages_distributions()
    imported = set().union(*(imported_modules(ROOT / package) for package in APP_PACKAGES))
    third_party = imported - FIRST_PARTY - set(sys.stdlib_module_names)
    missing = {
        module: providers.get(module) for module in third_party
        if not any(canonicalize_name(dist) in runtime for dist in providers.get(module, []))
    }
    assert missing == {}, "imported by the application but not pinned in requirements.txt"
