"""People: e-mail addresses are one account's each, whatever their capitalisation; deactivating an account signs
its person out everywhere, gives their open pairs back to the queue and stops them signing in until reactivated."""

import pytest
from django.test import Client
from django.urls import reverse

from annotation.accounts.models import Role, User, UserSession
from annotation.accounts.services.accounts import user_create
from annotation.workqueue.models import Assignment, AssignmentEvent
from annotation.workqueue.services.assignments import assignment_claim
from core.errors import ApplicationError
from tests.factories import CuratorFactory, UserFactory
from tests.workqueue.assignment_helpers import ab_tie_campaign

pytestmark = pytest.mark.django_db


def test_an_e_mail_address_another_account_has_is_refused_in_any_capitalisation(client):
    UserFactory(username="ann", email="Ann@Example.org")
    with pytest.raises(ApplicationError) as refused:
        user_create(username="ann2", email="ann@example.ORG")
    assert refused.value.code == "email_taken" and refused.value.status_code == 409
    assert refused.value.message == ("the e-mail address ann@example.ORG is already ann's (as Ann@Example.org); "
                                     "each account needs its own")
    client.force_login(CuratorFactory())
    page = client.post(reverse("console-people"), {"username": "ann3", "email": "ANN@example.org", "mode": "invite"})
    assert page.status_code == 409 and "is already ann&#x27;s" in page.content.decode()
    assert list(User.objects.filter(email__iexact="ann@example.org").values_list("username", flat=True)) == ["ann"]
    api = client.post(reverse("api-user-create"), {"username": "ann4", "email": "ann@EXAMPLE.org"},
                      content_type="application/json")
    assert api.status_code == 409 and api.json()["code"] == "email_taken"
    assert user_create(username="bea", email="bea@example.org").email == "bea@example.org"
    assert user_create(username="cy").email == "" and user_create(username="dee").email == "", "no address: no clash"


def _signed_in(username: str) -> Client:
    client = Client()
    assert client.login(username=username, password="pw")
    return client


def test_deactivating_ends_the_sessions_releases_the_leases_and_stops_sign_in_until_reactivated():
    campaign, (ann, other, _), (held,) = ab_tie_campaign(pairs=1, overlap=1)
    lease = assignment_claim(campaign=campaign, annotator=ann)
    assert lease.pair_id == held.pk and assignment_claim(campaign=campaign, annotator=other) is None
    ann_browser = _signed_in(ann.username)
    assert ann_browser.get(reverse("workspace-campaigns")).status_code == 200
    curator = Client()
    curator.force_login(CuratorFactory(username="cora"))

    done = curator.post(reverse("console-person-action", args=[ann.pk, "deactivate"]), follow=True)
    assert done.status_code == 200
    assert f"{ann.username} is deactivated: signed out everywhere, cannot sign in, 1 open pair(s) given back" \
        in done.content.decode()
    ann.refresh_from_db()
    assert not ann.is_active and not UserSession.objects.filter(user=ann).exists()
    assert ann_browser.get(reverse("workspace-campaigns")).status_code == 302, "the open session is gone"
    lease.refresh_from_db()
    assert lease.status == Assignment.Status.EXPIRED
    event = AssignmentEvent.objects.get(assignment=lease, kind=AssignmentEvent.Kind.EXPIRE)
    assert event.detail["released"] == "account deactivated"
    held.refresh_from_db()
    assert held.active_claims == 0
    assert assignment_claim(campaign=campaign, annotator=other).pair_id == held.pk, "the slot is someone else's now"
    assert not Client().login(username=ann.username, password="pw")
    refused = Client().post(reverse("login"), {"username": ann.username, "password": "pw"})
    assert refused.status_code == 200 and "_auth_user_id" not in refused.wsgi_request.session
    assert "deactivated" in curator.get(reverse("console-people")).content.decode()

    curator.post(reverse("console-person-action", args=[ann.pk, "reactivate"]))
    ann.refresh_from_db()
    assert ann.is_active
    assert _signed_in(ann.username).get(reverse("workspace-campaigns")).status_code == 200


def test_curators_deactivate_annotators_only_and_nobody_their_own_account():
    curator_user, other_curator = CuratorFactory(), CuratorFactory()
    curator = Client()
    curator.force_login(curator_user)
    for target in (other_curator, curator_user):
        curator.post(reverse("console-person-action", args=[target.pk, "deactivate"]))
        target.refresh_from_db()
        assert target.is_active
    admin_user = UserFactory(role=Role.ADMIN)
    admin = Client()
    admin.force_login(admin_user)
    page = admin.post(reverse("console-person-action", args=[admin_user.pk, "deactivate"]), follow=True)
    assert "you cannot deactivate your own account" in page.content.decode()
    admin.post(reverse("console-person-action", args=[other_curator.pk, "deactivate"]))
    other_curator.refresh_from_db()
    assert not other_curator.is_active


def test_the_database_holds_one_account_per_e_mail_address_and_a_race_past_the_check_is_still_email_taken(monkeypatch):
    """Two sign-ups with the same address at once both pass the service's check; the database's
    ``user_email_unique_ci`` refuses the second, and the person sees ``email_taken``, not a server error."""
    from django.db import IntegrityError, transaction

    from annotation.accounts.services import accounts

    UserFactory(username="ann", email="Ann@Example.org")
    with pytest.raises(IntegrityError), transaction.atomic():
        User.objects.create(username="ann-dup", email="ANN@example.org")
    assert User.objects.create(username="no-mail-1").email == User.objects.create(username="no-mail-2").email == ""

    real, calls = accounts.email_check_unused, []

    def late(**kw):
        """The check before the insert passes (the other request had not committed yet); later ones are real."""
        calls.append(kw)
        return None if len(calls) == 1 else real(**kw)

    monkeypatch.setattr(accounts, "email_check_unused", late)
    with pytest.raises(ApplicationError) as refused:
        user_create(username="racer", email="ann@example.org")
    assert refused.value.code == "email_taken" and refused.value.status_code == 409 and len(calls) == 2
    assert not User.objects.filter(username="racer").exists()


def test_the_api_and_the_command_deactivate_and_reactivate_with_the_pages_rules(capsys):
    from django.core.management import call_command

    campaign, (ann, other, _), (held,) = ab_tie_campaign(pairs=1, overlap=1)
    lease = assignment_claim(campaign=campaign, annotator=ann)
    curator = Client()
    curator_user = CuratorFactory(username="cora")
    curator.force_login(curator_user)
    url = reverse("api-user-active", args=[ann.username])
    done = curator.post(url, {"active": False}, content_type="application/json")
    assert done.status_code == 200 and done.json() == {"username": ann.username, "active": False, "leases_released": 1}
    lease.refresh_from_db()
    ann.refresh_from_db()
    assert lease.status == Assignment.Status.EXPIRED and not ann.is_active
    again = curator.post(url, {"active": True}, content_type="application/json")
    assert again.json() == {"username": ann.username, "active": True, "leases_released": 0}
    own = curator.post(reverse("api-user-active", args=["cora"]), {"active": False}, content_type="application/json")
    assert own.status_code == 403 and own.json()["code"] == "own_account"
    boss = CuratorFactory(username="boss")
    peer = curator.post(reverse("api-user-active", args=[boss.username]), {"active": False},
                        content_type="application/json")
    assert peer.status_code == 403 and peer.json()["code"] == "admin_only"
    assert curator.post(url, {"active": "maybe"}, content_type="application/json").status_code == 400
    annotator = Client()
    annotator.force_login(other)
    assert annotator.post(url, {"active": False}, content_type="application/json").status_code == 403

    call_command("deactivate_user", ann.username, "--json")
    assert '"active": false' in capsys.readouterr().out
    ann.refresh_from_db()
    assert not ann.is_active
    call_command("deactivate_user", ann.username, "--reactivate")
    ann.refresh_from_db()
    assert ann.is_active
