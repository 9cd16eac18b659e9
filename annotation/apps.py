from django.apps import AppConfig


class AnnotationConfig(AppConfig):
    name = "annotation"
    verbose_name = "Annotation"

    def ready(self) -> None:
        from annotation import db_adapters, lookups  # noqa: F401 (lookups registers ``__any``)

        db_adapters.register()
