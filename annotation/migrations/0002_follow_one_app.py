from django.db import migrations

# The models that lived under the labels ``catalogue``, ``workqueue`` and ``core`` before they became one app.
RETURNED = {
    "catalogue": ["campaign", "media", "pair", "prompt", "ratingschema", "response", "sourcedataset"],
    "workqueue": ["annotation", "annotationrevision", "assignment", "assignmentevent"],
    "core": ["job"],
}
# Job.task_name holds the Celery task the reaper sends again; the tasks took names that match their modules.
TASK_NAMES = {
    "annotation.import_pairs": "annotation.importers.import_pairs",
    "annotation.media_renditions_prepare": "annotation.catalogue.media_renditions_prepare",
    "annotation.assignments_expire": "annotation.workqueue.assignments_expire",
    "curation.jobs_reap": "annotation.jobs.reap",
}


def follow(apps, schema_editor):
    """Content types (what permissions and the admin's log point at) and recorded task names follow the move."""
    alias = schema_editor.connection.alias
    content_type = apps.get_model("contenttypes", "ContentType").objects.using(alias)
    for label, models in RETURNED.items():
        for model in models:
            if content_type.filter(app_label="annotation", model=model).exists():
                # Made by an earlier migrate's post_migrate under the new label: the old one is the one pointed at.
                content_type.filter(app_label="annotation", model=model).delete()
            content_type.filter(app_label=label, model=model).update(app_label="annotation")
    job = apps.get_model("annotation", "Job").objects.using(alias)
    for old, new in TASK_NAMES.items():
        job.filter(task_name=old).update(task_name=new)


def back(apps, schema_editor):
    alias = schema_editor.connection.alias
    content_type = apps.get_model("contenttypes", "ContentType").objects.using(alias)
    for label, models in RETURNED.items():
        content_type.filter(app_label="annotation", model__in=models).update(app_label=label)
    job = apps.get_model("annotation", "Job").objects.using(alias)
    for old, new in TASK_NAMES.items():
        job.filter(task_name=new).update(task_name=old)


class Migration(migrations.Migration):
    """Data only: what pointed at the models by their old labels and task names points at them by the new ones."""

    dependencies = [
        ("annotation", "0001_squashed"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [migrations.RunPython(follow, back)]
