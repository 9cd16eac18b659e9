"""Log-in throttling, upload limits and production settings."""

import base64
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from django.contrib.auth.hashers import MD5PasswordHasher
from django.contrib.auth.signals import user_login_failed
from django.core.cache import cache, caches
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client, RequestFactory
from django.urls import reverse

from annotation.accounts.models import LoginFailure
from annotation.accounts.services.login_throttle import login_attempt_finish, login_attempt_start, login_lock_status
from core.web.uploads import RequestTooLarge
from tests.conftest import port_open, require
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(autouse=True)
def clean_cache():
    cache.clear()
    yield
    cache.clear()


def forget_failures():
    """Start the counts afresh: the cache and the failures the database keeps for it."""
    cache.clear()
    LoginFailure.objects.all().delete()


def fail_login(client, username="mallory-target", password="wrong", address="10.0.0.1"):
    return client.post(reverse("login"), {"username": username, "password": password}, REMOTE_ADDR=address)


def test_five_failed_logins_lock_the_username_from_that_address_with_a_429_page(client):
    UserFactory(username="mallory-target")
    statuses = [fail_login(client).status_code for _ in range(5)]
    assert statuses == [200, 200, 200, 200, 429]
    locked = client.post(reverse("login"), {"username": "mallory-target", "password": "pw"}, REMOTE_ADDR="10.0.0.1")
    assert locked.status_code == 429
    assert "Too many failed log-ins" in locked.content.decode() and "15 minutes" in locked.content.decode()
    assert 800 < int(locked["Retry-After"]) <= 900
    assert "_auth_user_id" not in client.session


def test_the_lock_holds_the_account_only_and_never_another_account_at_that_address(client):
    UserFactory(username="mallory-target")
    UserFactory(username="someone-else")
    for _ in range(5):
        fail_login(client)
    other_address = client.post(reverse("login"), {"username": "mallory-target", "password": "pw"}, REMOTE_ADDR="10.0.0.2")
    assert other_address.status_code == 429
    other_user = client.post(reverse("login"), {"username": "someone-else", "password": "pw"}, REMOTE_ADDR="10.0.0.1")
    assert other_user.status_code == 302


def test_a_successful_login_clears_earlier_failures(client):
    UserFactory(username="mallory-target")
    for _ in range(4):
        fail_login(client)
    variant = client.post(reverse("login"), {"username": "Mallory-Target ", "password": "x"}, REMOTE_ADDR="10.0.0.1")
    assert variant.status_code == 429
    forget_failures()
    for _ in range(4):
        fail_login(client)
    right = client.post(reverse("login"), {"username": "mallory-target", "password": "pw"}, REMOTE_ADDR="10.0.0.1")
    assert right.status_code == 302
    client.logout()
    assert [fail_login(client).status_code for _ in range(4)] == [200, 200, 200, 200]


def test_a_successful_login_clears_the_accounts_failures_from_other_addresses_too(client):
    UserFactory(username="mallory-target")
    for i in range(4):
        fail_login(client, address=f"10.7.0.{i}")
    right = client.post(reverse("login"), {"username": "mallory-target", "password": "pw"}, REMOTE_ADDR="10.7.1.1")
    assert right.status_code == 302
    client.logout()
    assert [fail_login(client, address="10.7.2.2").status_code for _ in range(5)] == [200, 200, 200, 200, 429]


def test_one_address_guessing_many_usernames_is_locked_too(client, settings):
    settings.CONCORD_LOGIN_FAILURES_PER_ADDRESS = 3
    assert [fail_login(client, username=f"user{i}").status_code for i in range(3)] == [200, 200, 429]
    assert fail_login(client, username="fresh-name").status_code == 429


def test_http_basic_auth_shares_the_lock(client):
    UserFactory(username="mallory-target")

    def basic(password):
        token = base64.b64encode(f"mallory-target:{password}".encode()).decode()
        return client.get(reverse("api-campaign-list"), HTTP_AUTHORIZATION=f"Basic {token}", REMOTE_ADDR="10.0.0.9")

    assert [basic("wrong").status_code for _ in range(5)] == [403, 403, 403, 403, 403]
    refused = basic("pw")
    assert refused.status_code == 429
    assert refused.json()["code"] == "throttled"


def test_failures_are_shared_through_redis_between_processes(settings):
    require(port_open("127.0.0.1", 6379), "Redis on 127.0.0.1:6379")
    settings.CACHES = {
        "default": {"BACKEND": "core.cache.RedisCache", "LOCATION": "redis://127.0.0.1:6379/8"}
    }
    caches["default"].clear()
    for _ in range(5):
        assert not login_attempt_start(username="shared", address="10.1.1.1").locked
        login_attempt_finish(username="shared", address="10.1.1.1", outcome="failure")
    script = (
        "import django; django.setup();"
        "from annotation.accounts.services.login_throttle import login_lock_status;"
        "print(login_lock_status(username='shared', address='10.1.1.1').locked)"
    )
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings.test", "CACHE_URL": "redis://127.0.0.1:6379/8"}
    other_process = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert other_process.stdout.strip().endswith("True"), other_process.stderr
    assert login_lock_status(username="another", address="10.1.1.1").locked is False
    caches["default"].clear()


def test_a_body_declared_larger_than_the_limit_is_refused_with_413_before_it_is_read(client, settings):
    settings.CONCORD_MAX_UPLOAD_BYTES = 1000
    client.force_login(UserFactory(username="uploader"))
    response = client.generic("POST", "/api/v1/campaigns/", b"x" * 10, content_type="application/octet-stream",
                              CONTENT_LENGTH="5000")
    assert response.status_code == 413
    assert response.json() == {"code": "upload_too_large", "message": "The upload is larger than the limit of 1,000 bytes.",
                               "extra": {"limit": 1000, "size": 5000}}
    page = client.generic("POST", "/login/", b"x", CONTENT_LENGTH="5000")
    assert page.status_code == 413 and "Upload too large" in page.content.decode()


def test_a_multipart_upload_without_a_usable_length_stops_at_the_limit(settings):
    settings.CONCORD_MAX_UPLOAD_BYTES = 1000
    request = RequestFactory().post("/upload/", {"file": SimpleUploadedFile("pairs.jsonl", b"{}\n" * 2000)})
    with pytest.raises(RequestTooLarge):
        request.FILES  # noqa: B018 - parsing the body is what is under test
    small = RequestFactory().post("/upload/", {"file": SimpleUploadedFile("pairs.jsonl", b"{}\n" * 10)})
    assert small.FILES["file"].read() == b"{}\n" * 10


def test_production_settings_pass_the_deploy_check_with_secure_cookies():
    env = {
        **os.environ, "DJANGO_SETTINGS_MODULE": "config.settings.production",
        "DJANGO_SECRET_KEY": "k" * 20 + "Q7v!x9#Lm2$pR8@w" * 3, "CONCORD_RATER_ID_SECRET": "r" * 10 + "Zt5#qW8!" * 6,
        "DJANGO_ALLOWED_HOSTS": "concord.example.org", "DATABASE_URL": "sqlite:////tmp/concord-deploy-check.sqlite3",
    }
    check = subprocess.run([sys.executable, "manage.py", "check", "--deploy", "--tag", "security", "--fail-level", "WARNING"],
                           cwd=ROOT, env=env,
                           capture_output=True, text=True, timeout=120)
    assert check.returncode == 0, check.stdout + check.stderr
    script = (
        "import django; django.setup(); from django.conf import settings as s;"
        "print(s.SESSION_COOKIE_SECURE, s.CSRF_COOKIE_SECURE, s.SESSION_COOKIE_HTTPONLY, s.SESSION_COOKIE_NAME,"
        " s.SESSION_COOKIE_SAMESITE, s.SECURE_SSL_REDIRECT, s.DEBUG)"
    )
    shown = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert shown.stdout.split() == ["True", "True", "True", "__Host-sessionid", "Lax", "True", "False"], shown.stderr


PROXY = "172.20.0.5"


def login_via_proxy(client, username, password, forwarded_for):
    return client.post(reverse("login"), {"username": username, "password": password},
                       REMOTE_ADDR=PROXY, HTTP_X_FORWARDED_FOR=forwarded_for)


def test_a_correct_password_from_a_busy_proxy_address_logs_in_after_40_failures_on_other_accounts(client, settings):
    """Behind one reverse proxy (or one NAT) everybody shares an address: failures on other accounts, even from that
    same client address, never lock out somebody who knows their password."""
    settings.CONCORD_TRUSTED_PROXIES = ["172.20.0.0/16"]
    UserFactory(username="curator-carol")
    for i in range(40):
        assert login_via_proxy(client, f"victim{i % 8}", "wrong", "203.0.113.7").status_code in (200, 429)
    right = login_via_proxy(client, "curator-carol", "pw", "203.0.113.7")
    assert right.status_code == 302 and "_auth_user_id" in client.session
    client.logout()
    # The same 40 failures without a trusted proxy: the proxy's own address is the client, still not locked.
    settings.CONCORD_TRUSTED_PROXIES = []
    forget_failures()
    for i in range(40):
        login_via_proxy(client, f"victim{i % 8}", "wrong", "203.0.113.7")
    assert login_via_proxy(client, "curator-carol", "pw", "198.51.100.1").status_code == 302


def test_the_address_ceiling_still_stops_one_address_guessing_many_accounts(client, settings):
    settings.CONCORD_LOGIN_FAILURES_PER_ADDRESS = 12
    statuses = [fail_login(client, username=f"user{i}").status_code for i in range(13)]
    assert statuses[:11] == [200] * 11 and statuses[11:] == [429, 429]
    assert fail_login(client, username="user-fresh", address="10.0.0.2").status_code == 200


def test_an_account_is_locked_from_everywhere_after_five_failures_from_any_addresses(client):
    UserFactory(username="mallory-target")
    statuses = [fail_login(client, address=f"10.9.0.{i}").status_code for i in range(5)]
    assert statuses == [200] * 4 + [429]
    assert fail_login(client, password="pw", address="10.9.9.9").status_code == 429
    assert client.post(reverse("login"), {"username": "someone", "password": "x"}, REMOTE_ADDR="10.9.9.9").status_code == 200


def test_x_forwarded_for_names_the_client_only_when_a_trusted_proxy_sent_it(client, settings):
    """A client that forges X-Forwarded-For gets a fresh address for every guess only if its peer is trusted: the
    forged part left of what the trusted proxy appended is never believed."""
    # Only the (account, address) limit is looked at here, so the account-wide one is set out of the way.
    settings.CONCORD_LOGIN_FAILURES_PER_ACCOUNT = 100
    UserFactory(username="mallory-target")
    settings.CONCORD_TRUSTED_PROXIES = []
    forged = [client.post(reverse("login"), {"username": "mallory-target", "password": "x"}, REMOTE_ADDR="10.0.0.1",
                          HTTP_X_FORWARDED_FOR=f"192.0.2.{i}").status_code for i in range(5)]
    assert forged == [200, 200, 200, 200, 429]
    forget_failures()
    settings.CONCORD_TRUSTED_PROXIES = ["172.20.0.5", "10.10.0.0/24"]
    chain = [login_via_proxy(client, "mallory-target", "x", f"192.0.2.{i}, 198.51.100.9, 10.10.0.3").status_code
             for i in range(5)]
    assert chain == [200, 200, 200, 200, 429]
    assert login_via_proxy(client, "mallory-target", "x", "198.51.100.10").status_code == 200


def test_client_address_reads_the_chain_of_trusted_proxies_from_the_right(settings):
    from core.web.proxies import client_address

    settings.CONCORD_TRUSTED_PROXIES = ["10.0.0.0/8", "::1"]
    factory = RequestFactory()

    def address(peer, forwarded=None):
        extra = {"HTTP_X_FORWARDED_FOR": forwarded} if forwarded is not None else {}
        return client_address(factory.get("/", REMOTE_ADDR=peer, **extra))

    assert address("10.1.1.1", "1.2.3.4, 5.6.7.8, 10.2.2.2") == "5.6.7.8"
    assert address("::1", "2001:db8::7") == "2001:db8::7"
    assert address("10.1.1.1", "") == "10.1.1.1"
    assert address("10.1.1.1", "not-an-address, 10.3.3.3") == "10.3.3.3"
    assert address("10.1.1.1", "10.4.4.4, 10.3.3.3") == "10.4.4.4"
    assert address("192.0.2.1", "5.6.7.8") == "192.0.2.1"


class SlowMD5PasswordHasher(MD5PasswordHasher):
    """A password check that takes a while, so parallel attempts are all in flight at once."""

    algorithm = "slow_md5"

    def verify(self, password, encoded):
        time.sleep(0.2)
        return super().verify(password, encoded)


@pytest.mark.django_db(transaction=True)
def test_parallel_attempts_never_check_more_passwords_than_the_limit(settings, redis_url):
    """24 wrong passwords sent at once for one account from one address: at most 5 are checked, the rest get 429."""
    settings.CACHES = {"default": {"BACKEND": "core.cache.RedisCache", "LOCATION": redis_url}}
    settings.PASSWORD_HASHERS = [f"{__name__}.SlowMD5PasswordHasher"]
    caches["default"].clear()
    UserFactory(username="mallory-target")
    checks = []
    user_login_failed.connect(receiver := lambda **kwargs: checks.append(1), weak=False)
    try:
        with ThreadPoolExecutor(max_workers=24) as pool:
            statuses = list(pool.map(lambda _: fail_login(Client()).status_code, range(24)))
    finally:
        user_login_failed.disconnect(receiver)
        caches["default"].clear()
    assert len(checks) <= 5
    assert statuses.count(429) >= 19 and set(statuses) <= {200, 429}


def test_a_trusted_proxy_entry_that_is_no_address_is_a_configuration_error_naming_the_setting(settings):
    from django.core.exceptions import ImproperlyConfigured

    from core.web.proxies import client_address

    settings.CONCORD_TRUSTED_PROXIES = ["10.0.0.0/8", "proxy.internal"]
    with pytest.raises(ImproperlyConfigured, match="CONCORD_TRUSTED_PROXIES: 'proxy.internal' does not appear to be"):
        client_address(RequestFactory().get("/", REMOTE_ADDR="10.0.0.1"))
