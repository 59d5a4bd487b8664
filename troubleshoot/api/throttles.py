"""DRF throttles whose rates are read from settings at request time (KB_THROTTLE_ANON /
KB_THROTTLE_USER), so a deployment or a test can change them without a restart of the class."""

from __future__ import annotations

from django.conf import settings
from rest_framework.throttling import AnonRateThrottle, UserRateThrottle


class _SettingsRate:
    scope: str

    def get_rate(self) -> str | None:
        return settings.REST_FRAMEWORK.get("DEFAULT_THROTTLE_RATES", {}).get(self.scope)


class KBAnonThrottle(_SettingsRate, AnonRateThrottle):
    pass


class KBUserThrottle(_SettingsRate, UserRateThrottle):
    pass
