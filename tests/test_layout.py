"""Where X lives can be read from the folder names: the README's layout is the tree, each room says what it owns
and what it may import, and the imports obey the layers, with no exception list."""

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# Top to bottom: a package may import its own layer's package and the layers below it, never above or beside.
LAYERS = [{"config"}, {"frontend", "demo"}, {"curation"}, {"annotation"}, {"core"}]
# Inside the annotation app, likewise; its top-level modules (models, admin, tasks, apps) and management commands
# compose the rooms and may import any of them.
ANNOTATION_LAYERS = [{"management"}, {"importers"}, {"workqueue", "jobs"}, {"catalogue"}, {"accounts"}]
ROOMS = {name for layer in ANNOTATION_LAYERS for name in layer}


def _layer(layers: list[set[str]], name: str) -> int | None:
    return next((n for n, layer in enumerate(layers) if name in layer), None)


def _room(module: str) -> tuple[str, str | None]:
    parts = module.split(".")
    return (parts[0], parts[1] if parts[0] == "annotation" and len(parts) > 1 and parts[1] in ROOMS else None)


def _imports(path: Path):
    """Every module imported (inside functions too), with its line; imports only for type hints aside."""
    tree = ast.parse(path.read_text())
    type_only = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING":
            type_only.update(id(child) for stmt in node.body for child in ast.walk(stmt))
    for node in ast.walk(tree):
        if id(node) in type_only:
            continue
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.module, node.lineno
            yield from ((f"{node.module}.{alias.name}", node.lineno) for alias in node.names)
        elif isinstance(node, ast.Import):
            yield from ((alias.name, node.lineno) for alias in node.names)


def _wrong(source: tuple[str, str | None], target: tuple[str, str | None]) -> bool:
    low, high = _layer(LAYERS, target[0]), _layer(LAYERS, source[0])
    if low is None:
        return False
    if low < high or (low == high and target[0] != source[0]):
        return True
    if source[0] == target[0] == "annotation" and source[1] and target[1] and source[1] != target[1]:
        return _layer(ANNOTATION_LAYERS, target[1]) <= _layer(ANNOTATION_LAYERS, source[1])
    return False


def test_the_readme_layout_names_every_top_level_package_and_nothing_else():
    readme = (ROOT / "README.md").read_text()
    block = readme.split("## Layout", 1)[1].split("```", 2)[1]
    listed = set(re.findall(r"^([a-z_]+)/", block, re.M))
    packages = {p.name for p in ROOT.iterdir() if p.is_dir() and not p.name.startswith(".") and (
        (p / "__init__.py").exists() or p.name in ("docs", "bench", "tests"))}
    assert listed == packages


def test_every_package_and_room_says_what_it_owns_and_what_it_may_import():
    packages = [ROOT / name for layer in LAYERS for name in layer] + [ROOT / "annotation" / room for room in ROOMS]
    missing = [str(p.relative_to(ROOT)) for p in packages
               if "May import:" not in (ast.get_docstring(ast.parse((p / "__init__.py").read_text())) or "")]
    assert missing == []


def test_imports_point_down_the_layers_only():
    """config → frontend, demo → curation → annotation → core; in annotation importers → workqueue, jobs →
    catalogue → accounts."""
    wrong = []
    for top in [name for layer in LAYERS for name in layer]:
        for path in (ROOT / top).rglob("*.py"):
            if "migrations" in path.parts:
                continue
            source = _room(".".join(path.relative_to(ROOT).with_suffix("").parts))
            wrong += [f"{path.relative_to(ROOT)}:{line} imports {module}" for module, line in _imports(path)
                      if _wrong(source, _room(module))]
    assert wrong == []


def test_the_layer_rule_refuses_an_upward_and_a_sideways_import():
    """The rule itself, so that a check that passes is not a check that cannot fail."""
    assert _wrong(("annotation", "catalogue"), ("annotation", "workqueue"))
    assert _wrong(("annotation", "workqueue"), ("annotation", "jobs"))
    assert _wrong(("core", None), ("annotation", None))
    assert _wrong(("frontend", None), ("demo", None))
    assert not _wrong(("annotation", "importers"), ("annotation", "catalogue"))
    assert not _wrong(("curation", None), ("annotation", "workqueue"))
    assert not _wrong(("annotation", None), ("annotation", "importers"))


def test_no_model_keeps_an_old_table_name():
    """Each table is named after its app's label and model (no ``db_table`` override keeps an old name alive)."""
    from django.apps import apps

    overridden = [m._meta.label for m in apps.get_models() if m._meta.app_label in ("annotation", "core", "curation")
                  and m._meta.db_table != f"{m._meta.app_label}_{m._meta.model_name}"]
    assert overridden == []
