"""Where judges may connect: the hosts an admin allows, never an inside address by accident.

Rules (``refusal``): the allow-list's entries are host names (``api.openai.com``), wildcard suffixes
(``*.example.org``), addresses and networks (``10.0.0.0/8``), and ``*``: any public address. A listed host or
address is reachable; ``*`` adds every public address, never a private, loopback, link-local, shared, reserved or
multicast one (those must be listed); an empty list allows nothing. Names are checked twice: when a judge is
saved (the name and any literal address) and when a connection is opened, on every address the name resolves to,
so a name that points inside (or is re-pointed there later) is refused, and the connection goes to the address
that was checked. Judge clients follow no redirects. No Django here but ``configured_allow_list``.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Sequence
from urllib.parse import urlsplit

import httpcore

from curation.judges.base import JudgeConfigError, PermanentJudgeError

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
SETTING = "CONCORD_JUDGE_ALLOWED_HOSTS"


class EgressRefused(PermanentJudgeError):
    """A judge's host is not one an admin allows."""


def _address(text: str) -> IPAddress | None:
    try:
        address = ipaddress.ip_address(text.strip("[]"))
    except ValueError:
        return None
    mapped = getattr(address, "ipv4_mapped", None)
    return mapped or address


def _listed(host: str, address: IPAddress | None, allowed: Sequence[str]) -> bool:
    host = host.lower().rstrip(".")
    for entry in allowed:
        entry = entry.strip().lower()
        if not entry or entry == "*":
            continue
        if entry.startswith("*.") and (host.endswith(entry[1:]) or host == entry[2:]):
            return True
        if entry == host:
            return True
        if address is not None:
            try:
                if address in ipaddress.ip_network(entry, strict=False):
                    return True
            except ValueError:
                continue
    return False


def refusal(host: str, address: IPAddress | None, allowed: Sequence[str]) -> str | None:
    """Why a connection to ``host`` (at ``address``, once resolved) is refused, or None when it is allowed."""
    if _listed(host, address, allowed):
        return None
    if "*" not in (entry.strip() for entry in allowed):
        return f"the judge host {host!r} is not in {SETTING}"
    if address is not None and (not address.is_global or address.is_multicast):
        shown = host if str(address) == host.strip("[]") else f"{host!r} ({address})"
        return (f"the judge host {shown} is a private, loopback or link-local address; "
                f"an admin must list it in {SETTING} to allow it")
    return None


def url_check(url: str, allowed: Sequence[str], *, where: str) -> None:
    """JudgeConfigError when a judge URL's host is refused before any name is resolved."""
    host = urlsplit(url).hostname or ""
    reason = refusal(host, _address(host), allowed)
    if reason:
        raise JudgeConfigError(f"{where}: {reason}")


class GuardedNetworkBackend(httpcore.AsyncNetworkBackend):
    """httpcore's network backend that resolves each host itself, refuses what ``refusal`` refuses, and connects
    to the checked address (TLS still names the host), so no second lookup can point elsewhere."""

    def __init__(self, allowed: Sequence[str]):
        self.allowed = tuple(allowed)
        self.backend = httpcore.AnyIOBackend()

    async def connect_tcp(self, host, port, timeout=None, local_address=None, socket_options=None):
        literal = _address(host)
        if literal is not None:
            addresses = [literal]
        else:
            infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
            addresses = list(dict.fromkeys(_address(info[4][0]) for info in infos))
        for address in addresses:
            reason = refusal(host, address, self.allowed)
            if reason:
                raise EgressRefused(reason)
        failure: Exception | None = None
        for address in addresses:
            try:
                return await self.backend.connect_tcp(str(address), port, timeout=timeout,
                                                      local_address=local_address, socket_options=socket_options)
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as exc:
                failure = exc
        raise failure or httpcore.ConnectError(f"{host} resolved to no address")

    async def connect_unix_socket(self, path, timeout=None, socket_options=None):
        raise EgressRefused("judges do not connect to Unix sockets")

    async def sleep(self, seconds: float) -> None:
        await self.backend.sleep(seconds)


def configured_allow_list() -> tuple[str, ...]:
    """The allow-list from Django's settings (CONCORD_JUDGE_ALLOWED_HOSTS), read at call time; empty without Django.

    The one place the judges package reads a Django setting: every judge, however built, gets the same rule."""
    from django.conf import settings

    if not settings.configured:
        return ()
    return tuple(getattr(settings, SETTING, ()))
