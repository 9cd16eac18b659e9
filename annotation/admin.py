"""The admin of every sub-domain, registered when Django's admin discovers this module."""

from annotation.accounts import admin as accounts_admin  # noqa: F401
from annotation.catalogue import admin as catalogue_admin  # noqa: F401
from annotation.workqueue import admin as workqueue_admin  # noqa: F401
