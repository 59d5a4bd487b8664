"""An error no article answers, as three engineers paste it: different pods, addresses, times and counts."""

EVENT = ("{ts}  Warning  FailedFrobnicate  pod/{pod}  frobnicator at {ip}:8443 refused the widget lease {n} "
         "after 12s on ip-10-0-1-{n}.ec2.internal")
PASTES = [
    EVENT.format(ts="2024-05-01T10:00:00Z", pod="api-7d9f8b6c4-x2x7q", ip="10.0.3.17", n="3"),
    EVENT.format(ts="2025-02-11T22:13:09Z", pod="api-5c8d7f6b9-k4m2p", ip="192.168.7.4", n="17"),
    EVENT.format(ts="2023-01-02T03:04:05Z", pod="api-6f7c9d8b5-zq4wx", ip="172.16.0.9", n="250"),
]
NEXT_PASTE = EVENT.format(ts="2026-07-04T12:00:00Z", pod="api-8b7c6d5f4-wxz29", ip="10.200.1.99", n="42")
