"""Settings, read from the environment (see README "Configuration" and .env.example).

A bad value fails loudly at start-up instead of being silently replaced by a default.
"""

from __future__ import annotations

import os
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name}={raw!r} is not a boolean (use true/false, 1/0, yes/no, on/off)")


def env_int(name: str, default: int, *, minimum: int = 0) -> int:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={raw!r} is not an integer") from None
    if value < minimum:
        raise ImproperlyConfigured(f"{name}={value} must be at least {minimum}")
    return value


def env_list(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None:
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]


DEBUG = env_bool("DJANGO_DEBUG", False)
SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY", "")
if not SECRET_KEY:
    # A development key: fine on a laptop, flagged by `check --deploy`.
    SECRET_KEY = "django-insecure-dev-only-key-change-me-for-any-shared-deployment"
ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]", "testserver"])
CSRF_TRUSTED_ORIGINS = env_list("DJANGO_CSRF_TRUSTED_ORIGINS", [])

KB_DATA_DIR = Path(os.environ.get("KB_DATA_DIR", str(BASE_DIR / "var"))).resolve()
KB_DATA_DIR.mkdir(parents=True, exist_ok=True)
KB_INDEX_DIR = KB_DATA_DIR / "index"
KB_SHIPPED_DIR = BASE_DIR / "troubleshoot" / "kb"
KB_PUBLIC_READ = env_bool("KB_PUBLIC_READ", True)
# The address users reach the site at (for links in Slack answers behind a proxy); default: the request's host.
KB_PUBLIC_URL = os.environ.get("KB_PUBLIC_URL", "").rstrip("/")
SLACK_SIGNING_SECRET = os.environ.get("SLACK_SIGNING_SECRET", "")
# How often (seconds) a process checks the database's KB revision counter to notice
# edits made by another process; the check is one indexed query.
KB_SYNC_INTERVAL = float(env_int("KB_SYNC_INTERVAL_MS", 1000)) / 1000.0
MATCH_MAX_BYTES = env_int("MATCH_MAX_BYTES", 5 * 1024 * 1024, minimum=1024)
ANALYSIS_MAX_BYTES = env_int("ANALYSIS_MAX_BYTES", 20 * 1024 * 1024, minimum=1024)
ANALYSIS_RETENTION_DAYS = env_int("ANALYSIS_RETENTION_DAYS", 7, minimum=1)
# Learning from unanswered pastes (troubleshoot.learning): error lines that get no confident
# answer are kept as masked templates for editors; false records nothing.
KB_LEARN = env_bool("KB_LEARN", True)
KB_LEARN_RETENTION_DAYS = env_int("KB_LEARN_RETENTION_DAYS", 90, minimum=1)
# Request bodies: the largest legitimate one is an analysis upload.
DATA_UPLOAD_MAX_MEMORY_SIZE = max(MATCH_MAX_BYTES, ANALYSIS_MAX_BYTES) + 1024 * 1024
FILE_UPLOAD_MAX_MEMORY_SIZE = 5 * 1024 * 1024

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "csp",
    "troubleshoot",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "troubleshoot.middleware.LoginRequiredMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "csp.middleware.CSPMiddleware",
]

ROOT_URLCONF = "kbapp.urls"
TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]
WSGI_APPLICATION = "kbapp.wsgi.application"

DATABASES = {
    "default": dj_database_url.parse(
        os.environ.get("DATABASE_URL") or f"sqlite:///{KB_DATA_DIR / 'kb.sqlite3'}",
        conn_max_age=env_int("DATABASE_CONN_MAX_AGE", 60),
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # WAL lets readers and one writer work at once (several processes on one machine).
    DATABASES["default"].setdefault("OPTIONS", {})["init_command"] = (
        "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA busy_timeout=5000;"
    )
    # Take the write lock when a transaction starts: a read transaction that later writes
    # cannot wait for a lock, and failed with "database is locked" under a worker's load.
    DATABASES["default"]["OPTIONS"]["transaction_mode"] = "IMMEDIATE"
    DATABASES["default"]["CONN_MAX_AGE"] = 0
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("zh-hans", "简体中文")]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "/static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = Path(os.environ.get("DJANGO_STATIC_ROOT", str(KB_DATA_DIR / "staticfiles")))
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        # No manifest: pages render whether or not collectstatic has run (WhiteNoise
        # serves from the finders); `make run` still collects and compresses.
        "BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"
    },
}
STATIC_ROOT.mkdir(parents=True, exist_ok=True)
WHITENOISE_USE_FINDERS = True

LOGIN_URL = "/admin/login/"

# Security headers that are safe over plain HTTP too.
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
SESSION_COOKIE_HTTPONLY = True
# Content Security Policy: scripts only from our own static files (no inline script);
# inline style attributes stay allowed for the Django admin's markup.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'", "'unsafe-inline'"],
        "img-src": ["'self'", "data:"],
        "font-src": ["'self'"],
        "connect-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    },
}

# HTTPS-only behaviour has its own switch: the app often runs behind a TLS-terminating
# proxy, and with DJANGO_DEBUG=0 over plain HTTP on loopback it must keep working.
DJANGO_HTTPS = env_bool("DJANGO_HTTPS", False)
if DJANGO_HTTPS:
    SECURE_SSL_REDIRECT = env_bool("DJANGO_SSL_REDIRECT", True)
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = env_int("DJANGO_HSTS_SECONDS", 31536000)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True
    SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^readyz$"]

# Celery: without a broker, tasks run inline in the calling process.
KB_BROKER_CONFIGURED = bool(os.environ.get("CELERY_BROKER_URL", "").strip())
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", "").strip() or "memory://localhost/"
CELERY_TASK_ALWAYS_EAGER = not KB_BROKER_CONFIGURED
CELERY_TASK_EAGER_PROPAGATES = False
CELERY_RESULT_BACKEND = None
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_TIME_LIMIT = env_int("CELERY_TASK_TIME_LIMIT", 300, minimum=5)
CELERY_TASK_SOFT_TIME_LIMIT = max(CELERY_TASK_TIME_LIMIT - 10, 1)
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# A broker that is down must not stall a web request (Slack allows 3 s): fail fast instead.
CELERY_BROKER_CONNECTION_TIMEOUT = 1.5
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": CELERY_TASK_TIME_LIMIT * 2,
                                   "socket_connect_timeout": 1.5, "max_retries": 0,
                                   # look for a lost worker's unacknowledged tasks every 10 s, not 100 s
                                   "unacked_restore_throttle": 1}

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        # Token first: an anonymous request then gets 401 with WWW-Authenticate, not 403.
        "rest_framework.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["troubleshoot.api.permissions.ReadOrModelPermission"],
    "DEFAULT_PAGINATION_CLASS": "troubleshoot.api.pagination.KBPagination",
    "PAGE_SIZE": 20,
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "troubleshoot.api.errors.exception_handler",
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_THROTTLE_CLASSES": [
        "troubleshoot.api.throttles.KBAnonThrottle",
        "troubleshoot.api.throttles.KBUserThrottle",
    ],
    "DEFAULT_THROTTLE_RATES": {
        "anon": os.environ.get("KB_THROTTLE_ANON", "120/min"),
        "user": os.environ.get("KB_THROTTLE_USER", "600/min"),
    },
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Troubleshoot KB API",
    "DESCRIPTION": "Match error text to troubleshooting articles for Kubernetes, EKS and Karpenter.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    "SERVE_PERMISSIONS": ["troubleshoot.api.permissions.ReadOrModelPermission"],
    "ENUM_NAME_OVERRIDES": {
        "LanguageEnum": "troubleshoot.models.Article.Language",
        "ArticleStatusEnum": "troubleshoot.models.Article.Status",
        "AnalysisStatusEnum": "troubleshoot.models.Analysis.Status",
        "UnansweredKindEnum": "troubleshoot.models.UnansweredTemplate.Kind",
        "UnansweredStatusEnum": "troubleshoot.models.UnansweredTemplate.Status",
        "ConfidenceEnum": ["high", "medium", "low"],
        "SeverityEnum": ["critical", "warning", "info"],
    },
}

# Throttle counters live in the cache: per process by default; set KB_CACHE_URL
# (e.g. redis://127.0.0.1:6379/1) so several web processes share them.
CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache",
                      "LOCATION": os.environ["KB_CACHE_URL"]}
          if os.environ.get("KB_CACHE_URL") else {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"},
                   "json": {"()": "kbapp.logging.JSONFormatter"}},
    "handlers": {"console": {"class": "logging.StreamHandler",
                             "formatter": "json" if os.environ.get("KB_LOG_FORMAT") == "json" else "plain"}},
    "root": {"handlers": ["console"], "level": os.environ.get("DJANGO_LOG_LEVEL", "INFO")},
    "loggers": {"django.request": {"level": "ERROR"}, "jieba": {"level": "WARNING"},
                "celery.app.trace": {"level": "WARNING"}, "kombu": {"level": "WARNING"}},
}

CELERY_BEAT_SCHEDULE = {
    "analyses-expire": {"task": "troubleshoot.analyses_expire", "schedule": 3600.0},
    "index-check": {"task": "troubleshoot.index_check", "schedule": 300.0},
    "unanswered-recheck": {"task": "troubleshoot.unanswered_recheck", "schedule": 300.0},
}

