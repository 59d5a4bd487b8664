"""Container health check: exit 0 when /healthz answers 200 (standard library only).

Django answers 400 to a Host header that is not in DJANGO_ALLOWED_HOSTS, and a production
deployment lists only its public name there, so the check sends the first name that list
accepts instead of 127.0.0.1.

Usage: python healthcheck.py [URL]   (default http://127.0.0.1:8000/healthz)
"""

from __future__ import annotations

import os
import sys
import urllib.error
import urllib.request

DEFAULT_URL = "http://127.0.0.1:8000/healthz"


def probe_host(allowed_hosts: str | None) -> str | None:
    """A Host value Django accepts under this DJANGO_ALLOWED_HOSTS, or None to send the URL's own.

    ``.example.com`` allows any subdomain, so ``example.com`` itself is sent; ``*`` allows anything.
    """
    for entry in (allowed_hosts or "").split(","):
        entry = entry.strip()
        if not entry or entry == "*":
            continue
        return entry.lstrip(".")
    return None


def check(url: str = DEFAULT_URL, *, allowed_hosts: str | None = None, timeout: float = 4.0) -> int:
    host = probe_host(allowed_hosts)
    request = urllib.request.Request(url, headers={"Host": host} if host else {})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            status = response.status
    except urllib.error.HTTPError as exc:
        status = exc.code
    except OSError as exc:
        print(f"unhealthy: {url}: {exc}", file=sys.stderr)
        return 1
    if status != 200:
        print(f"unhealthy: {url} answered {status}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(check(sys.argv[1] if len(sys.argv) > 1 else DEFAULT_URL,
                   allowed_hosts=os.environ.get("DJANGO_ALLOWED_HOSTS")))
