"""The password hasher: Argon2id at a cost chosen for a two-core web server (docs/decisions/password-hasher.md).

Django's own Argon2 settings (100 MiB, two passes, eight lanes) are for a server that signs people in
now and then; Concord's raters sign in at the start of a shift, all at once, on the same cores that serve the
work queue. OWASP's first recommended Argon2id setting (19 MiB, two passes, one lane) keeps the hash
memory-hard at about a tenth of PBKDF2's CPU time. Stored PBKDF2 hashes still verify and are rewritten as
Argon2id at their owner's next sign-in (``must_update``), as are Argon2 hashes of any other cost.
"""

from django.contrib.auth.hashers import Argon2PasswordHasher


class ConcordArgon2PasswordHasher(Argon2PasswordHasher):
    """Argon2id, m = 19 MiB, t = 2, p = 1 (OWASP Password Storage Cheat Sheet, the first of its settings)."""

    time_cost = 2
    memory_cost = 19 * 1024  # KiB
    parallelism = 1
