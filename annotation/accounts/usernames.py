"""When two spellings of a username are one account: the throttle's key and the check for a taken name."""

import unicodedata

from django.contrib.auth.base_user import AbstractBaseUser


def username_normalize(username: str) -> str:
    """``username`` as Django's sign-in form and ``create_user`` hand it on: blanks stripped, then NFKC
    (``AbstractBaseUser.normalize_username``), so ``ｖｉｃｔｉｍ１`` signs in as ``victim1``."""
    return AbstractBaseUser.normalize_username(username.strip())


def username_key(username: str) -> str:
    """The one form shared by every spelling that names the same account, ignoring case: Django's normalisation,
    then case folding and NFKC again (folding can leave a string that NFKC changes), e.g. ``𝐕𝐢𝐜𝐭𝐢𝐦①`` and
    ``VICTIM1`` are both ``victim1``."""
    folded = unicodedata.normalize("NFKC", username_normalize(username).casefold())
    return folded.strip()
