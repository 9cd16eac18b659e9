from django.apps import AppConfig


class WorkqueueConfig(AppConfig):
    name = "workqueue"
    verbose_name = "Work queue"
