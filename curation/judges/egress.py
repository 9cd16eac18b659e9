"""Where judges may connect: the hosts an admin allows, never an inside address by accident.

Rules (``refusal``): the allow-list's entries are host names (``api.openai.com``), wildcard suffixes
(``*.example.org``), addresses and networks (``10.0.0.0/8``), and ``*``: any public address. A listed host or
address is reachable; ``*`` adds every public address, never a private, loopback, link-local, shared, reserved or
multicast one (those must be listed); an empty list (the default) allows nothing. Names are checked twice: when a
judge is saved (the name and any literal address) and when a connection is opened, on every address the name
resolves to, so a name that points inside (or is re-pointed there later) is refused, and the connection goes to
the address that was checked. A URL is read by ``judge_url`` with httpx's parser, the one that connects, so what
is checked on save is what is reached. Judge clients follow no redirects. No Django here but
``configured_allow_list``.
"""

from __future__ import annotations

import asyncio
import ipaddress
import re
import socket
from collections.abc import Sequence

import httpcore
import httpx

from curation.judges.base import JudgeConfigError, PermanentJudgeError

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
SETTING = "CONCORD_JUDGE_ALLOWED_HOSTS"
HOST_NAME = re.compile(r"^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*\.?$")
# WHATWG URL parsing reads a host whose last label is a number (decimal, 0x hex, or octal) as an IPv4 address.
NUMERIC_LABEL = re.compile(r"^(0x[0-9a-f]*|[0-9]+)$")


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


def _ipv4_spelling(host: str) -> str | None:
    """Why a host that reads as an IPv4 address is not written plainly (four decimal numbers), or None."""
    labels = host.rstrip(".").split(".")
    if not NUMERIC_LABEL.match(labels[-1]):
        return None
    try:
        if str(ipaddress.IPv4Address(host)) == host:
            return None
    except ValueError:
        pass
    try:
        meant = socket.inet_ntoa(socket.inet_aton(host))
    except OSError:
        return f"the host {host!r} ends in a number, so URL parsers read it as an IPv4 address, and it is not one"
    return (f"the host {host!r} is an IPv4 address written in a short, octal, hexadecimal or zero-padded form "
            f"(the C library reads it as {meant}), which programs read differently; write it as four decimal "
            f"numbers without leading zeros")


def judge_url(url: str, *, where: str) -> httpx.URL:
    """``url`` parsed as judge clients parse it (httpx), or JudgeConfigError with the reason; no allow-list check."""
    try:
        parsed = httpx.URL(url)
    except (httpx.InvalidURL, ValueError, TypeError) as exc:
        spelling = _ipv4_spelling(url.split("://", 1)[-1].split("/", 1)[0].rsplit("@", 1)[-1].rsplit(":", 1)[0].lower())
        raise JudgeConfigError(f"{where}: {spelling or f'not a URL judges can connect to: {exc}'}") from None
    if parsed.scheme not in ("http", "https"):
        raise JudgeConfigError(f"{where}: expected an http:// or https:// URL")
    if parsed.userinfo:
        raise JudgeConfigError(f"{where}: a user name or password in the URL is a secret, and secrets are never "
                               f"stored; put the key in an environment variable and name it in api_key_env")
    host = parsed.raw_host.decode("ascii").lower()
    if not host:
        raise JudgeConfigError(f"{where}: the URL has no host")
    if _address(host) is None and not HOST_NAME.match(host):
        raise JudgeConfigError(f"{where}: the host {host!r} is not a plain host name (letters, digits, hyphens "
                               f"and dots) or an IP address")
    spelling = _address(host) is None and _ipv4_spelling(host)
    if spelling:
        raise JudgeConfigError(f"{where}: {spelling}")
    if parsed.port is not None and not 1 <= parsed.port <= 65535:
        raise JudgeConfigError(f"{where}: the port {parsed.port} is not from 1 to 65535")
    return parsed


def url_check(url: str, allowed: Sequence[str], *, where: str) -> httpx.URL:
    """``url`` parsed (``judge_url``); JudgeConfigError when it cannot be, or its host is refused before any name
    is resolved."""
    parsed = judge_url(url, where=where)
    host = parsed.raw_host.decode("ascii")
    reason = refusal(host, _address(host), allowed)
    if reason:
        raise JudgeConfigError(f"{where}: {reason}")
    return parsed


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

    One of the two places the judges package reads a Django setting (``keys.configured_pattern`` is the other):
    every judge, however built, gets the same rule."""
    from django.conf import settings

    if not settings.configured:
        return ()
    return tuple(getattr(settings, SETTING, ()))
