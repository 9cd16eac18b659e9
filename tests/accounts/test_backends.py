"""The session's user is read by annotation.accounts.backends.UserBackend: the same answers as Django's ModelBackend."""

import pytest
from django.test import Client

from annotation.accounts.backends import UserBackend
from annotation.accounts.models import User
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


def test_a_signed_in_request_reads_its_session_and_its_user_in_one_statement():
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from annotation.accounts.models import UserSession

    rater = UserFactory()
    client = signed_in(rater)
    assert UserSession.objects.get().user_id == rater.pk
    with CaptureQueriesContext(connection) as queries:
        assert client.get("/api/v1/campaigns/").status_code == 200
    first, *rest = [query["sql"] for query in queries]
    assert "annotation_usersession" in first and "JOIN annotation_user" in first
    assert not [sql for sql in rest if 'FROM "annotation_user"' in sql or "FROM annotation_user signed_in WHERE" in sql]


def test_the_session_data_decides_who_is_signed_in_not_the_column():
    """The column only saves a read: a row whose column names someone else gets the session's own user."""
    from annotation.accounts.models import UserSession

    rater, other = UserFactory(), UserFactory()
    client = signed_in(rater)
    UserSession.objects.update(user=other)
    assert client.get("/api/v1/me/stats/").status_code == 200
    assert client.get("/").wsgi_request.user.pk == rater.pk


def test_an_expired_session_is_nobody_and_a_deleted_user_takes_their_sessions():
    from datetime import timedelta

    from django.utils import timezone

    from annotation.accounts.models import UserSession

    rater = UserFactory()
    client = signed_in(rater)
    UserSession.objects.update(expire_date=timezone.now() - timedelta(seconds=1))
    assert client.get("/api/v1/campaigns/").status_code == 403
    signed_in(rater)
    assert UserSession.objects.filter(user=rater).exists()
    rater.delete()
    assert not UserSession.objects.exists()


def test_request_user_is_the_user_behind_the_lazy_proxy_or_what_was_set():
    from django.contrib.auth.models import AnonymousUser
    from django.contrib.sessions.middleware import SessionMiddleware
    from django.test import RequestFactory

    from annotation.accounts.sessions import AuthenticationMiddleware, request_user

    rater = UserFactory()
    client = signed_in(rater)
    request = RequestFactory().get("/", HTTP_COOKIE=f"sessionid={client.cookies['sessionid'].value}")
    SessionMiddleware(lambda r: None).process_request(request)
    AuthenticationMiddleware(lambda r: None).process_request(request)
    user = request_user(request)
    assert type(user) is User and user.pk == rater.pk
    assert request.user.pk == rater.pk and request.user._wrapped is user  # the proxy resolved to the same object

    anonymous = RequestFactory().get("/")
    SessionMiddleware(lambda r: None).process_request(anonymous)
    AuthenticationMiddleware(lambda r: None).process_request(anonymous)
    assert isinstance(request_user(anonymous), AnonymousUser)

    set_by_hand = RequestFactory().get("/")
    set_by_hand.user = rater
    assert request_user(set_by_hand) is rater


def test_session_data_is_verified_once_per_process_and_each_load_gets_its_own_copy(monkeypatch):
    from django.core import signing

    from annotation.accounts.sessions import SessionStore

    store = SessionStore()
    store.update({"user": "7", "nested": {"step": 1}})
    text = store.encode(store._session)
    checked = []
    real_loads = signing.loads
    monkeypatch.setattr(signing, "loads", lambda *a, **k: checked.append(a[0]) or real_loads(*a, **k))
    first, second = SessionStore().decode(text), SessionStore().decode(text)
    assert first == second == {"user": "7", "nested": {"step": 1}} and checked == [text]
    first["nested"]["step"] = 2  # a request changing its session changes nobody else's
    assert SessionStore().decode(text)["nested"] == {"step": 1}
    tampered = text[:-2] + ("A" if text[-2] != "A" else "B") + text[-1]
    assert SessionStore().decode(tampered) == {}  # a signature that fails is still refused


def test_a_new_secret_key_forgets_the_session_data_verified_under_the_old_one(settings):
    from annotation.accounts.sessions import SessionStore

    store = SessionStore()
    text = store.encode({"user": "7"})
    assert SessionStore().decode(text) == {"user": "7"}
    settings.SECRET_KEY = "another-secret-key-" + "x" * 40
    assert SessionStore().decode(text) == {}


def test_the_user_model_overrides_no_private_method_of_djangos():
    from annotation.accounts.models import User

    assert not [name for name in vars(User) if name.startswith("_") and not name.startswith("__") and callable(vars(User)[name])]


def test_the_session_auth_hash_is_djangos_for_each_password_and_secret(settings):
    from django.contrib.auth.base_user import AbstractBaseUser

    rater = UserFactory()
    assert rater.get_session_auth_hash() == AbstractBaseUser.get_session_auth_hash(rater)
    before = rater.get_session_auth_hash()
    rater.set_password("another password")
    assert rater.get_session_auth_hash() != before
    assert rater.get_session_auth_hash() == AbstractBaseUser.get_session_auth_hash(rater)
    settings.SECRET_KEY = "yet-another-secret-key-" + "y" * 40
    assert rater.get_session_auth_hash() == AbstractBaseUser.get_session_auth_hash(rater)


def test_a_password_changed_elsewhere_ends_the_session_at_its_next_request():
    rater = UserFactory()
    browser = signed_in(rater)
    assert browser.get("/api/v1/campaigns/").status_code == 200
    changed = User.objects.get(pk=rater.pk)
    changed.set_password("changed in another tab")
    changed.save()
    assert browser.get("/api/v1/campaigns/").status_code == 403
