"""The session's user is read by annotation.backends.UserBackend: the same answers as Django's ModelBackend."""

import pytest
from django.test import Client

from annotation.backends import UserBackend
from annotation.models import User
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def signed_in(user: User) -> Client:
    client = Client()
    assert client.login(username=user.username, password="pw")
    return client


def test_a_signed_in_session_reads_its_user_with_every_field():
    rater = UserFactory(first_name="Ada", role="curator")
    me = signed_in(rater).get("/api/v1/campaigns/")
    assert me.status_code == 200
    user = User.objects.get(pk=rater.pk)
    loaded = UserBackend().get_user(str(rater.pk))
    assert (loaded.pk, loaded.username, loaded.first_name, loaded.role, loaded.password) == (
        user.pk, user.username, "Ada", "curator", user.password,
    )
    assert loaded.is_curator


def test_a_deactivated_deleted_or_repassworded_user_is_signed_out():
    for change in ("deactivate", "delete", "password"):
        rater = UserFactory()
        client = signed_in(rater)
        assert client.get("/api/v1/campaigns/").status_code == 200
        if change == "deactivate":
            User.objects.filter(pk=rater.pk).update(is_active=False)
        elif change == "delete":
            rater.delete()
        else:
            rater.set_password("another")
            rater.save()
        assert client.get("/api/v1/campaigns/").status_code == 403, change


def test_a_malformed_user_id_is_nobody():

    assert UserBackend().get_user("not-a-number") is None
    assert UserBackend().get_user("999999999") is None
