"""The failed-log-in throttle names an account as Django does (every Unicode spelling of it is one account), and its
counts outlive the cache: a Redis restarted empty, or one back after counting in the database, forgets nothing."""

import unicodedata

import pytest
from django.contrib.auth.signals import user_login_failed
from django.core.cache import cache
from django.urls import reverse

from annotation.accounts.models import LoginFailure
from annotation.accounts.selectors import account_by_any_spelling
from annotation.accounts.services.accounts import user_create
from annotation.accounts.usernames import username_key
from core.errors import ApplicationError
from tests.factories import UserFactory

NAME = "officer1"


def _styled(style: str, text: str) -> str:
    """``text`` in one of Unicode's mathematical alphabets (their letters and digits, as Unicode names them)."""
    out = []
    for char in text:
        kind = "DIGIT" if char.isdigit() else "CAPITAL" if char.isupper() else "SMALL"
        digit = unicodedata.name(char).split()[-1] if char.isdigit() else char.upper()
        out.append(unicodedata.lookup(f"MATHEMATICAL {style} {kind} {digit}"))
    return "".join(out)


def _fullwidth(text: str) -> str:
    return "".join(chr(ord(char) + 0xFEE0) for char in text)


# Thirty spellings of "officer1" that the sign-in form (NFKC) or a case-insensitive match turns into it.
SPELLINGS = [
    "OFFICER1", "Officer1", "oFfIcEr1", "OFFicer1",                                    # case
    "officer１", _fullwidth("officer1"), _fullwidth("OFFICER1"), _fullwidth("office") + "r1",  # fullwidth
    _styled("BOLD", "officer1"), _styled("BOLD", "OFFICER1"), _styled("ITALIC", "officer") + "1",
    _styled("BOLD ITALIC", "officer") + "1", "o" + _styled("SCRIPT", "f") * 2 + "icer1",
    _styled("FRAKTUR", "officer") + "1", _styled("DOUBLE-STRUCK", "officer1"), _styled("SANS-SERIF", "officer1"),
    _styled("SANS-SERIF BOLD", "officer1"), _styled("MONOSPACE", "officer1"),             # mathematical alphabets
    "o\ufb03cer1", "o\ufb00icer1", "of\ufb01cer1", "O\ufb03CER1",                          # ligatures ffi, ff, fi
    "officer\u2460", "officer\u00b9", "officer\u2081", "off\u2170cer1", "\u2134fficer1",   # circled, super-, subscript,
    "\u1d52fficer1", "offic\u212fr1", "office\u02b31",                                    # roman numeral, letterlike, modifiers
]


def test_thirty_spellings_of_one_username_are_one_account_under_the_throttles_key():
    assert len(set(SPELLINGS)) == 30 and NAME not in SPELLINGS
    assert {username_key(spelling) for spelling in SPELLINGS} == {NAME}
    assert username_key(" Straße ") == username_key("STRASSE") == "strasse"
    assert username_key("officer2") != username_key(NAME)


@pytest.fixture
def locmem_cache():
    cache.clear()
    yield cache
    cache.clear()


def _log_in(client, username, password, address="10.20.0.1"):
    return client.post(reverse("login"), {"username": username, "password": password}, REMOTE_ADDR=address)


@pytest.fixture
def password_checks():
    """How many wrong passwords were checked against an account."""
    checks = []

    def receiver(**kwargs):
        checks.append(kwargs["credentials"]["username"])

    user_login_failed.connect(receiver, weak=False)
    yield checks
    user_login_failed.disconnect(receiver)


@pytest.mark.django_db
def test_after_five_failures_every_spelling_of_the_name_is_refused_even_with_the_right_password(
    client, locmem_cache, password_checks
):
    """The report: five failures for victim1, then victim１ (fullwidth digit) and the right password signed in, and
    30 spellings × 4 guesses were 120 more password checks. Now every spelling is the locked account."""
    UserFactory(username=NAME)
    assert [_log_in(client, NAME, "wrong").status_code for _ in range(5)] == [200, 200, 200, 200, 429]
    statuses = {spelling: [_log_in(client, spelling, guess).status_code for guess in ("a", "b", "c", "d", "pw")]
                for spelling in SPELLINGS}
    assert {spelling: codes for spelling, codes in statuses.items() if codes != [429] * 5} == {}
    assert "_auth_user_id" not in client.session
    assert len(password_checks) == 5
    # From another address too: the account-wide count holds every spelling.
    assert _log_in(client, _fullwidth(NAME), "pw", address="10.20.9.9").status_code == 429


@pytest.mark.django_db
def test_failures_under_different_spellings_add_up_to_one_lock(client, locmem_cache):
    UserFactory(username=NAME)
    statuses = [_log_in(client, spelling, "wrong").status_code for spelling in SPELLINGS[4:9]]
    assert statuses == [200, 200, 200, 200, 429]
    assert _log_in(client, NAME, "pw").status_code == 429


@pytest.mark.django_db
def test_the_count_outlives_a_cleared_cache(client, locmem_cache):
    """The cache emptied (as a Redis restarted empty): the failures of the window are read back from the database."""
    UserFactory(username=NAME)
    for _ in range(4):
        _log_in(client, NAME, "wrong")
    locmem_cache.clear()
    assert _log_in(client, NAME, "wrong").status_code == 429, "the fifth failure still locks"
    locmem_cache.clear()
    locked = _log_in(client, NAME, "pw")
    assert locked.status_code == 429 and 800 < int(locked["Retry-After"]) <= 900
    assert "_auth_user_id" not in client.session


@pytest.mark.django_db
def test_a_success_forgets_the_accounts_stored_failures_and_old_ones_drop_out_of_the_window(client, locmem_cache,
                                                                                          settings):
    UserFactory(username=NAME)
    for _ in range(4):
        _log_in(client, NAME, "wrong")
    assert _log_in(client, NAME, "pw").status_code == 302
    client.logout()
    locmem_cache.clear()
    assert [_log_in(client, NAME, "wrong").status_code for _ in range(5)] == [200, 200, 200, 200, 429]
    LoginFailure.objects.update(failed_at="2000-01-01T00:00:00Z")
    locmem_cache.clear()
    assert _log_in(client, NAME, "pw").status_code == 302, "failures older than the window no longer count"


@pytest.fixture
def redis_cache(settings, private_redis):
    settings.CACHES = {"default": {"BACKEND": "core.cache.RedisCache", "LOCATION": private_redis.url(),
                                   "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 2}}}
    return private_redis


@pytest.mark.django_db
def test_the_lock_holds_through_a_redis_restarted_empty(client, redis_cache):
    import redis

    UserFactory(username=NAME)
    assert [_log_in(client, NAME, "wrong").status_code for _ in range(5)] == [200, 200, 200, 200, 429]
    redis_cache.stop()
    redis_cache.start()
    assert redis.Redis.from_url(redis_cache.url()).dbsize() == 0
    assert _log_in(client, "officer１", "pw").status_code == 429
    assert "_auth_user_id" not in client.session


@pytest.mark.django_db
def test_failures_counted_while_redis_was_down_still_count_when_it_returns_empty(client, redis_cache, monkeypatch):
    from core import cache as cache_module

    monkeypatch.setattr(cache_module, "RETRY_REDIS_SECONDS", 0.0)
    UserFactory(username=NAME)
    redis_cache.stop()
    assert [_log_in(client, NAME, "wrong").status_code for _ in range(3)] == [200, 200, 200]
    redis_cache.start()
    assert [_log_in(client, SPELLINGS[5], "wrong").status_code for _ in range(2)] == [200, 429]
    assert _log_in(client, NAME, "pw").status_code == 429


@pytest.mark.django_db
def test_a_new_account_is_stored_as_the_sign_in_form_sends_it_and_no_other_spelling_can_take_the_name():
    created = user_create(username=_fullwidth("nina7"), password="pw", check_strength=False)
    assert created.username == "nina7"
    UserFactory(username=NAME)
    for spelling in SPELLINGS:
        with pytest.raises(ApplicationError) as refused:
            user_create(username=spelling, password=None)
        assert refused.value.code == "user_exists" and refused.value.status_code == 409
        typed = unicodedata.normalize("NFKC", spelling)
        assert refused.value.message == f"user {typed!r} already exists" + (f" as {NAME!r}" if typed != NAME else "")
    assert account_by_any_spelling(username=_styled("BOLD", "NINA7")).username == "nina7"
    assert account_by_any_spelling(username="nina8") is None
