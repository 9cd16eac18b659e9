"""Passwords are stored with Argon2id at the cost docs/decisions/password-hasher.md chose; a password stored before
(PBKDF2, or Argon2 at another cost) still signs in and is rewritten at that cost by the sign-in itself."""

import argon2
import pytest
from django.contrib.auth.hashers import make_password
from django.test import override_settings
from django.urls import reverse

from annotation.accounts.hashers import ConcordArgon2PasswordHasher
from annotation.accounts.models import User
from config.settings import base
from tests.factories import UserFactory

PRODUCTION = override_settings(PASSWORD_HASHERS=base.PASSWORD_HASHERS)


def test_every_settings_module_but_the_tests_hashes_with_concords_argon2id():
    assert base.PASSWORD_HASHERS[0] == "annotation.accounts.hashers.ConcordArgon2PasswordHasher"
    assert "django.contrib.auth.hashers.PBKDF2PasswordHasher" in base.PASSWORD_HASHERS, "stored PBKDF2 hashes verify"


@PRODUCTION
def test_a_new_password_is_argon2id_at_19_mib_two_passes_one_lane():
    parameters = argon2.extract_parameters(make_password("a rater's passphrase").removeprefix("argon2"))
    assert (parameters.type, parameters.memory_cost, parameters.time_cost, parameters.parallelism) == (
        argon2.Type.ID, 19 * 1024, 2, 1)
    assert ConcordArgon2PasswordHasher.algorithm == "argon2", "one algorithm name: Django's Argon2 hashes verify too"


@pytest.mark.django_db
@pytest.mark.parametrize("stored_by", ["pbkdf2_sha256", "argon2"])
def test_a_password_stored_before_signs_in_and_is_rewritten_at_concords_cost(client, stored_by):
    user = UserFactory(username="shift1")
    with override_settings(PASSWORD_HASHERS=["django.contrib.auth.hashers.PBKDF2PasswordHasher",
                                             "django.contrib.auth.hashers.Argon2PasswordHasher"]):
        User.objects.filter(pk=user.pk).update(password=make_password("old passphrase", hasher=stored_by))
    before = User.objects.get(pk=user.pk).password
    assert before.startswith(f"{stored_by}$")

    with PRODUCTION:
        answer = client.post(reverse("login"), {"username": "shift1", "password": "old passphrase"})

    assert answer.status_code == 302, answer.content[:300]
    after = User.objects.get(pk=user.pk).password
    assert after != before
    parameters = argon2.extract_parameters(after.removeprefix("argon2"))
    assert (parameters.memory_cost, parameters.time_cost, parameters.parallelism) == (19 * 1024, 2, 1)
