"""Read queries of accounts."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from django.db.models import QuerySet

    from annotation.accounts.models import User


def account_by_any_spelling(*, username: str) -> User | None:
    """The account that ``username`` names under any spelling of it (``username_key``: case, width, compatibility
    forms), if there is one."""
    from django.contrib.auth import get_user_model
    from django.db.models import Q

    from annotation.accounts.usernames import username_key

    key = username_key(username)
    # The database compares ASCII names ignoring case itself; names with any other character (few) are compared
    # here, in Python, under the one key.
    candidates = get_user_model().objects.filter(Q(username__iexact=key) | Q(username__regex=r"[^ -~]")).order_by("pk")
    return next((user for user in candidates if username_key(user.username) == key), None)


def accounts_list(*, limit: int = 1000) -> QuerySet[User]:
    """Accounts by username, with what the people page shows."""
    from django.contrib.auth import get_user_model

    fields = ("username", "email", "role", "password", "last_login", "is_active")
    return get_user_model().objects.order_by("username").only(*fields)[:limit]
