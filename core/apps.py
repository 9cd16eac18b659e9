from django.apps import AppConfig


class CoreConfig(AppConfig):
    name = "core"
    verbose_name = "Concord core"

    def ready(self) -> None:
        from core import db_adapters, lookups  # noqa: F401 (lookups registers ``__any``)
        from core.api import throttling  # noqa: F401 (registers the check of CONCORD_API_RATES)

        db_adapters.register()
