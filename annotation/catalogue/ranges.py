"""Byte ranges for media responses: browsers seek audio and video only in a file served with ``Range``.

A single ``bytes=`` range is answered with 206 and ``Content-Range``; a range that cannot be satisfied with
416; anything else (no header, several ranges, another unit) with the whole file. Every answer says
``Accept-Ranges: bytes``.
"""

from __future__ import annotations

import re

from django.http import FileResponse, HttpResponse, StreamingHttpResponse

_RANGE = re.compile(r"^bytes=(\d*)-(\d*)$")
CHUNK = 64 * 1024


def _window(header: str, size: int) -> tuple[int, int] | None | bool:
    """(first, last) byte of a single satisfiable range; None for no usable range; False when unsatisfiable."""
    match = _RANGE.match(header.strip())
    if not match or match.groups() == ("", ""):
        return None
    first, last = match.groups()
    if first == "":  # the last N bytes
        length = int(last)
        if length == 0:
            return False
        return max(0, size - length), size - 1
    start = int(first)
    end = min(int(last), size - 1) if last else size - 1
    if start >= size or start > end:
        return False
    return start, end


def _chunks(handle, remaining: int):
    with handle:
        while remaining > 0:
            data = handle.read(min(CHUNK, remaining))
            if not data:
                return
            remaining -= len(data)
            yield data


def ranged_file_response(handle, *, size: int, content_type: str, range_header: str | None) -> HttpResponse:
    """The file open in ``handle`` (``size`` bytes), whole or the one range the request asks for."""
    window = _window(range_header, size) if range_header else None
    if window is False:
        handle.close()
        response = HttpResponse(status=416)
        response["Content-Range"] = f"bytes */{size}"
    elif window is None:
        response = FileResponse(handle, content_type=content_type)
    else:
        first, last = window
        handle.seek(first)
        response = StreamingHttpResponse(_chunks(handle, last - first + 1), status=206, content_type=content_type)
        response["Content-Range"] = f"bytes {first}-{last}/{size}"
        response["Content-Length"] = str(last - first + 1)
    response["Accept-Ranges"] = "bytes"
    return response
