"""The error pages are Concord's, with its navigation (the API's error shape under /api/); the API's documentation
sends a signed-out browser to sign in and loads nothing from elsewhere; a refused request is one line in the log."""

import logging
import re

import pytest
from django.core.exceptions import PermissionDenied
from django.test import Client
from django.urls import reverse

from frontend.views import apidocs, errors
from tests.factories import CuratorFactory, UserFactory

pytestmark = pytest.mark.django_db

NAV = 'nav aria-label="Main"'


def assert_error_page(answer, status: int):
    assert answer.status_code == status, answer.content[:300]
    assert answer["Content-Type"].startswith("text/html")
    page = answer.content.decode()
    assert f'data-status="{status}"' in page and 'class="topbar"' in page and "frontend/concord.css" in page
    assert "Traceback" not in page and "URLconf" not in page
    return page


def test_an_unknown_page_is_the_404_page_with_the_signed_in_navigation(client):
    client.force_login(CuratorFactory(username="cora"))
    page = assert_error_page(client.get("/no/such/page/"), 404)
    assert NAV in page and reverse("console-people") in page and "cora" in page


def test_an_unknown_api_url_answers_in_the_api_error_shape(client):
    answer = client.get("/api/v1/assignments/not-a-number/")
    assert answer.status_code == 404 and answer.json() == {"code": "not_found", "message": "No such resource."}


def test_a_page_a_signed_in_annotator_may_not_open_is_the_403_page_with_navigation(client):
    client.force_login(UserFactory(username="ann"))
    page = assert_error_page(client.get(reverse("console-home")), 403)
    assert NAV in page and reverse("workspace-campaigns") in page and "You are signed in as ann" in page


def test_the_400_and_500_pages_need_neither_the_request_nor_the_database(rf, django_assert_num_queries):
    request = rf.get("/console/")
    with django_assert_num_queries(0):
        bad, broken = errors.bad_request(request), errors.server_error(request)
    assert_error_page(bad, 400)
    assert "Something went wrong" in assert_error_page(broken, 500)
    assert errors.server_error(rf.get("/api/v1/me/stats/")).status_code == 500


class Broken:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        raise RuntimeError("a bug")


def test_an_error_outside_a_view_is_the_styled_500_page(settings):
    settings.MIDDLEWARE = [*settings.MIDDLEWARE, "tests.frontend.test_error_pages.Broken"]
    assert "Something went wrong" in assert_error_page(Client(raise_request_exception=False).get("/"), 500)
    answer = Client(raise_request_exception=False).get("/api/v1/me/stats/")
    assert answer.status_code == 500 and answer.json()["code"] == "server_error"


def test_with_debug_on_a_404_is_still_the_styled_page_not_the_url_list(settings):
    settings.DEBUG = True
    client = Client()
    client.force_login(UserFactory())
    assert NAV in assert_error_page(client.get("/no/such/page/"), 404)
    # A view's own Http404 (a campaign that does not exist) too.
    curator = Client()
    curator.force_login(CuratorFactory())
    assert_error_page(curator.get("/console/campaigns/no-such-campaign/"), 404)


def test_concord_debug_404_brings_django_s_debug_page_back(settings):
    settings.DEBUG, settings.CONCORD_DEBUG_404 = True, True
    answer = Client().get("/no/such/page/")
    assert answer.status_code == 404 and "URLconf" in answer.content.decode()


@pytest.mark.parametrize("path", ["/api/docs/", "/api/redoc/", "/api/docs/?script="])
def test_the_api_docs_send_a_signed_out_browser_to_sign_in_and_back(client, path):
    answer = client.get(path)
    assert answer.status_code == 302
    assert answer["Location"].startswith(reverse("login") + "?next=/api/")


def test_the_api_docs_open_once_signed_in_and_the_schema_stays_an_api(client):
    assert client.get(reverse("api-schema")).status_code == 403
    client.force_login(UserFactory())
    for name in ("api-docs", "api-redoc", "api-schema"):
        assert client.get(reverse(name)).status_code == 200, name


def test_the_docs_pages_and_their_scripts_name_no_other_origin(client):
    client.force_login(UserFactory())
    swagger = client.get(reverse("api-docs")).content.decode() + client.get(reverse("api-docs") + "?script=").content.decode()
    redoc = client.get(reverse("api-redoc")).content.decode()
    assert not re.findall(r"(?:src|href)=\"https?://", swagger + redoc)
    assert reverse("api-redoc-bundle") in redoc
    assert '"validatorUrl": null' in swagger, "no validator badge from validator.swagger.io"
    bundle = client.get(reverse("api-redoc-bundle"))
    body = b"".join(bundle.streaming_content) if bundle.streaming else bundle.content
    assert bundle.status_code == 200 and bundle["Content-Type"].startswith("text/javascript")
    assert apidocs.REDOC_LOGO_CDN.encode() not in body and b"cdn.redoc.ly" not in body
    assert b"frontend/api-docs/docs-mark.svg" in body and len(body) > 500_000
    assert client.get(reverse("api-redoc-bundle"), HTTP_IF_NONE_MATCH=bundle["ETag"]).status_code == 304


def test_a_403_is_logged_on_one_line_and_a_500_keeps_its_traceback(client, caplog, settings):
    client.force_login(UserFactory())
    with caplog.at_level(logging.WARNING, logger="django.request"):
        client.get(reverse("console-home"))
    (record,) = [r for r in caplog.records if r.name == "django.request"]
    assert record.status_code == 403 and record.exc_info is None and record.exc_text is None
    assert record.getMessage().startswith("Forbidden (Permission denied): /console/")
    assert "\n" not in caplog.text.strip()

    caplog.clear()
    settings.MIDDLEWARE = [*settings.MIDDLEWARE, "tests.frontend.test_error_pages.Broken"]
    with caplog.at_level(logging.ERROR, logger="django.request"):
        Client(raise_request_exception=False).get("/")
    (record,) = [r for r in caplog.records if r.name == "django.request"]
    assert record.status_code == 500 and record.exc_info is not None and "Traceback" in caplog.text


def test_the_filter_keeps_the_message_of_a_refusal_and_drops_its_traceback():
    from core.web.errors import ClientErrorsOnOneLine

    try:
        raise PermissionDenied("only curators")
    except PermissionDenied as exc:
        record = logging.LogRecord("django.security.Whatever", logging.ERROR, __file__, 1, "refused %s", ("/x",),
                                   (type(exc), exc, exc.__traceback__))
    record.status_code = 400
    assert ClientErrorsOnOneLine().filter(record)
    assert record.getMessage() == "refused /x (PermissionDenied: only curators)" and record.exc_info is None
