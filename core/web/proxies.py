"""The client's address: the peer's, or what trusted reverse proxies say in X-Forwarded-For.

X-Forwarded-For is believed only when the peer is one of CONCORD_TRUSTED_PROXIES (addresses or networks),
and only as far as the chain of trusted proxies goes: reading the header from the right, the first address
that is not a trusted proxy is the client. A client can forge the left part of the header, never the part
its own proxy appended.
"""

import ipaddress
from functools import lru_cache

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


@lru_cache(maxsize=8)
def _networks(entries: tuple[str, ...]) -> tuple[Network, ...]:
    try:
        return tuple(ipaddress.ip_network(entry.strip(), strict=False) for entry in entries if entry.strip())
    except ValueError as exc:
        raise ImproperlyConfigured(f"CONCORD_TRUSTED_PROXIES: {exc}") from exc


def _parse(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(text.strip())
    except ValueError:
        return None


def _trusted(address, networks: tuple[Network, ...]) -> bool:
    return address is not None and any(address in network for network in networks)


def client_address(request) -> str:
    """The client's address for throttling and logs; "unknown" when the server saw none."""
    peer = request.META.get("REMOTE_ADDR", "") or "unknown"
    networks = _networks(tuple(getattr(settings, "CONCORD_TRUSTED_PROXIES", ())))
    if not networks or not _trusted(_parse(peer), networks):
        return peer
    client = peer
    # Several X-Forwarded-For headers arrive joined by commas, in order.
    for hop in reversed(request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")):
        address = _parse(hop)
        if address is None:
            # A hop a trusted proxy reported but that is no address: the proxy's word ends here.
            return client
        client = str(address)
        if not _trusted(address, networks):
            return client
    return client
