"""Full-text search over prompts: an immutable SQL function of a prompt's content and a GIN index on it (PostgreSQL).

``concord_prompt_text(content)`` is the ``simple``-configuration tsvector (no stemming: prompts come in
many languages) of every ``text`` value of the content blocks. The console's pair browser searches with
``concord_prompt_text(content) @@ websearch_to_tsquery('simple', q)``, which this index answers. On
SQLite (the embedded default) nothing is created and the browser falls back to a substring match.
"""

from django.db import migrations

FUNCTION = """
CREATE OR REPLACE FUNCTION concord_prompt_text(content jsonb) RETURNS tsvector
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$ SELECT to_tsvector('simple'::regconfig, coalesce(jsonb_path_query_array(content, '$[*].text')::text, '')) $$
"""


def create(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    table = apps.get_model("annotation", "Prompt")._meta.db_table
    schema_editor.execute(FUNCTION)
    schema_editor.execute(f'CREATE INDEX IF NOT EXISTS prompt_text_search_idx ON "{table}" USING gin (concord_prompt_text(content))')


def drop(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute("DROP INDEX IF EXISTS prompt_text_search_idx")
    schema_editor.execute("DROP FUNCTION IF EXISTS concord_prompt_text(jsonb)")


class Migration(migrations.Migration):

    dependencies = [("annotation", "0008_assignment_bounded_lookups")]

    operations = [migrations.RunPython(create, drop, elidable=False)]
