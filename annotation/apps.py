from django.apps import AppConfig


class AnnotationConfig(AppConfig):
    """Everything up to an annotation: accounts, the catalogue, the importers, the work queue and the jobs."""

    name = "annotation"
    verbose_name = "Annotation"
