from django.apps import AppConfig


class AccountsConfig(AppConfig):
    """The accounts app keeps the label the project's first app had, ``annotation``.

    ``AUTH_USER_MODEL`` is ``annotation.User`` on every existing database, and Django cannot move a user model to
    another label once tables point at it (the admin's and every app's migrations depend on it by label). So the
    label stays, with the migrations that created every table before the split (``accounts/migrations``); the
    models that moved out (``catalogue``, ``workqueue``, ``core``) left this label's state in ``0016_split_apps``.
    """

    name = "accounts"
    label = "annotation"
    verbose_name = "Accounts"
