"""Read queries of accounts."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from django.db.models import QuerySet

    from annotation.accounts.models import User


def accounts_list(*, limit: int = 1000) -> QuerySet[User]:
    """Accounts by username, with what the people page shows."""
    from django.contrib.auth import get_user_model

    return get_user_model().objects.order_by("username").only("username", "email", "role", "password", "last_login")[:limit]
