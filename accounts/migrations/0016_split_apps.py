from django.db import migrations

# What moved where; the models left behind (User, Invitation, UserSession) keep this label.
MOVED = {
    "catalogue": ["campaign", "media", "pair", "prompt", "ratingschema", "response", "sourcedataset"],
    "workqueue": ["annotation", "annotationrevision", "assignment", "assignmentevent"],
    "core": ["cacheentry", "job"],
}


def content_types_follow(apps, schema_editor):
    """Content types (and so permissions and the admin's log) follow their models to the new labels."""
    content_type = apps.get_model("contenttypes", "ContentType")
    for label, models in MOVED.items():
        content_type.objects.using(schema_editor.connection.alias).filter(
            app_label="annotation", model__in=models
        ).update(app_label=label)


def content_types_return(apps, schema_editor):
    content_type = apps.get_model("contenttypes", "ContentType")
    for label, models in MOVED.items():
        content_type.objects.using(schema_editor.connection.alias).filter(app_label=label, model__in=models).update(
            app_label="annotation"
        )


class Migration(migrations.Migration):
    """The models that moved to ``catalogue``, ``workqueue`` and ``core`` leave this label's state.

    State only: their tables stay as they are, now read through the new apps' models. Their content types move
    with them, so permissions granted on them and the admin's history keep pointing at the same models.
    """

    dependencies = [
        ("annotation", "0015_merge_media_played"),
        ("catalogue", "0001_initial"),
        ("contenttypes", "0002_remove_content_type_name"),
        ("core", "0001_initial"),
        ("curation", "0005_follow_split_apps"),
        ("workqueue", "0001_initial"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.RemoveField(
                    model_name='annotation',
                    name='annotator',
                ),
                migrations.RemoveField(
                    model_name='annotation',
                    name='assignment',
                ),
                migrations.RemoveField(
                    model_name='annotation',
                    name='pair',
                ),
                migrations.RemoveField(
                    model_name='annotationrevision',
                    name='assignment',
                ),
                migrations.RemoveField(
                    model_name='assignment',
                    name='annotator',
                ),
                migrations.RemoveField(
                    model_name='assignment',
                    name='campaign',
                ),
                migrations.RemoveField(
                    model_name='assignment',
                    name='pair',
                ),
                migrations.RemoveField(
                    model_name='assignmentevent',
                    name='assignment',
                ),
                migrations.RemoveField(
                    model_name='assignmentevent',
                    name='annotator',
                ),
                migrations.RemoveField(
                    model_name='assignmentevent',
                    name='campaign',
                ),
                migrations.DeleteModel(
                    name='CacheEntry',
                ),
                migrations.RemoveField(
                    model_name='campaign',
                    name='members',
                ),
                migrations.RemoveField(
                    model_name='campaign',
                    name='rating_schema',
                ),
                migrations.RemoveField(
                    model_name='campaign',
                    name='sources',
                ),
                migrations.RemoveField(
                    model_name='prompt',
                    name='campaign',
                ),
                migrations.RemoveField(
                    model_name='job',
                    name='campaign',
                ),
                migrations.RemoveField(
                    model_name='pair',
                    name='campaign',
                ),
                migrations.RemoveField(
                    model_name='job',
                    name='created_by',
                ),
                migrations.RemoveField(
                    model_name='pair',
                    name='media',
                ),
                migrations.RemoveField(
                    model_name='pair',
                    name='prompt',
                ),
                migrations.RemoveField(
                    model_name='pair',
                    name='response_a',
                ),
                migrations.RemoveField(
                    model_name='pair',
                    name='response_b',
                ),
                migrations.RemoveField(
                    model_name='response',
                    name='prompt',
                ),
                migrations.DeleteModel(
                    name='Annotation',
                ),
                migrations.DeleteModel(
                    name='AnnotationRevision',
                ),
                migrations.DeleteModel(
                    name='Assignment',
                ),
                migrations.DeleteModel(
                    name='AssignmentEvent',
                ),
                migrations.DeleteModel(
                    name='RatingSchema',
                ),
                migrations.DeleteModel(
                    name='SourceDataset',
                ),
                migrations.DeleteModel(
                    name='Campaign',
                ),
                migrations.DeleteModel(
                    name='Job',
                ),
                migrations.DeleteModel(
                    name='Media',
                ),
                migrations.DeleteModel(
                    name='Pair',
                ),
                migrations.DeleteModel(
                    name='Prompt',
                ),
                migrations.DeleteModel(
                    name='Response',
                ),
            ],
            database_operations=[migrations.RunPython(content_types_follow, content_types_return)],
        ),
    ]
