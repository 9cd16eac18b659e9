"""What the work queue does when an account stops: its person's leases go back to the pool at once."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.db import transaction

from annotation.accounts.services.accounts import user_deactivate
from annotation.workqueue.services.assignments import assignments_release

if TYPE_CHECKING:
    from annotation.accounts.models import User


@dataclass(frozen=True)
class Deactivated:
    user: User
    leases_released: int


@transaction.atomic
def account_deactivate(*, user: User, actor: User | None) -> Deactivated:
    """Deactivate ``user`` (``user_deactivate``: no sign-in, sessions ended) and release their live leases, so the
    pairs they held are claimable by others now rather than when the leases run out."""
    user_deactivate(user=user, actor=actor)
    released = assignments_release(annotator=user, reason="account deactivated")
    return Deactivated(user=user, leases_released=released)
