"""Each app's migration history is one line: no merge migrations, no two leaves, no two children of one parent."""

from django.db.migrations.loader import MigrationLoader

APPS = ("annotation", "core", "curation")


def test_every_app_has_one_linear_history():
    loader = MigrationLoader(None, ignore_no_migrations=True)
    graph = loader.graph
    for app in APPS:
        nodes = sorted(key for key in graph.nodes if key[0] == app)
        assert nodes, app
        parents = {key: [p for p in graph.node_map[key].parents if p.key[0] == app] for key in nodes}
        children = {key: [c for c in graph.node_map[key].children if c.key[0] == app] for key in nodes}
        assert [key for key, found in parents.items() if len(found) > 1] == [], f"{app} has a merge migration"
        assert [key for key, found in children.items() if len(found) > 1] == [], f"{app}'s history branches"
        assert len(graph.leaf_nodes(app)) == 1, f"{app} has more than one leaf"
        assert [key for key, found in parents.items() if not found] == [min(nodes)], f"{app} has two roots"


def test_each_app_starts_from_one_squashed_migration_standing_for_todays_main():
    """A database that applied the migrations of main before the move records the squashed ones as applied."""
    loader = MigrationLoader(None, ignore_no_migrations=True)
    first = {app: loader.graph.root_nodes(app)[0] for app in APPS}
    assert first == {app: (app, "0001_squashed") for app in APPS}
    replaces = {app: set(loader.disk_migrations[first[app]].replaces) for app in APPS}
    assert ("annotation", "0016_split_apps") in replaces["annotation"]
    assert {("catalogue", "0002_pair_browse_priority_idx"), ("workqueue", "0001_initial"),
            ("core", "0001_initial")} <= replaces["annotation"]
    assert ("curation", "0007_consensus_disputed_idx") in replaces["curation"]
