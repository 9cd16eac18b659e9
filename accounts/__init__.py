"""Accounts: users and their roles, sessions, the authentication backend, invitations and login throttling.

Owns: ``User`` (the project's ``AUTH_USER_MODEL``), ``Invitation``, ``UserSession`` and the session store, the
backend, HTTP Basic authentication under the login throttle, and the ``create_user``, ``invite_user`` and
``set_role`` commands.

May import: ``core``. Its Django label is ``annotation`` (see ``apps.py``): it holds the project's migrations from
before the apps were split, and the tables they made keep their names.
"""
