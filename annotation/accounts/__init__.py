"""Accounts: users and their roles, sessions, the authentication backend, invitations and login throttling.

Owns: ``User`` (the project's ``AUTH_USER_MODEL``, ``annotation.User``), ``Invitation``, ``UserSession`` and the
session store, the backend, HTTP Basic authentication under the login throttle (the ``create_user``,
``invite_user`` and ``set_role`` commands are in ``annotation/management``).

May import: ``core``.
"""
