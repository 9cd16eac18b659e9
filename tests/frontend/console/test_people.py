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
