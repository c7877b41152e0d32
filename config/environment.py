"""The environment variables Talia's settings read (docs/deploy.md explains each).

Tools that start Talia in a subprocess with settings of their own (the settings tests,
the benchmarks) strip these from the caller's environment, so nothing leaks in.
A test checks that every variable ``config/settings.py`` reads is listed here.
"""

from __future__ import annotations

import os

SETTINGS_VARIABLES = (
    "TALIA_VAR_DIR",
    "DEBUG",
    "SECRET_KEY",
    "ALLOWED_HOSTS",
    "CSRF_TRUSTED_ORIGINS",
    "HTTPS",
    "DATABASE_URL",
    "CONN_MAX_AGE",
    "DB_POOL_MIN_SIZE",
    "DB_POOL_MAX_SIZE",
    "DB_POOL_TIMEOUT",
    "CONN_HEALTH_CHECKS",
    "LIVE_DB_THREADS",
    "LIVE_DB_POOL_MAX_SIZE",
    "LIVE_DB_PREPARE",
    "LIVE_FAST_PATH",
    "LIVE_CHANNEL_LAYER",
    "LIVE_RELAY_URL",
    "LIVE_CHANNEL_PREFIX",
    "REDIS_URL",
    "CELERY_BROKER_URL",
    "CELERY_TASK_ALWAYS_EAGER",
    "CELERY_VISIBILITY_TIMEOUT",
    "JOBS_HEARTBEAT_SECONDS",
    "JOBS_STALE_SECONDS",
    "JOBS_REQUEUE_SECONDS",
    "TIME_ZONE",
    "STATIC_ROOT",
    "MEDIA_ROOT",
    "STATICFILES_STORAGE",
    "AWS_STORAGE_BUCKET_NAME",
    "AWS_S3_ENDPOINT_URL",
    "AWS_S3_REGION_NAME",
    "PRIVATE_MEDIA_PREFIX",
    "TALIA_IMPORT_MAX_BYTES",
    "SECURE_SSL_REDIRECT",
    "SECURE_HSTS_SECONDS",
    "SECURE_HSTS_INCLUDE_SUBDOMAINS",
    "SECURE_HSTS_PRELOAD",
    "LOG_LEVEL",
    "LTI_SCORE_MAX_ATTEMPTS",
    "LTI_SCORE_RETRY_DELAY",
    "LTI_PROGRESS_DELAY",
    "LTI_KEY_GRACE_DAYS",
    "FORWARDED_PROXY_COUNT",
    "LIMIT_SIGNIN_ADDRESS_FAILURES",
    "LIMIT_SIGNIN_ADDRESS_WINDOW",
    "LIMIT_SIGNIN_FAILURES",
    "LIMIT_SIGNIN_LOCKOUT",
    "LIMIT_SIGNIN_LOCKOUT_MAX",
    "LIMIT_CODE_FAILURES",
    "LIMIT_CODE_WINDOW",
    "LIMIT_LTI_LOGIN_FAILURES",
    "LIMIT_LTI_LOGINS",
    "LOGIN_CARD_DAYS",
    "API_RATE_ANON",
    "API_RATE_USER",
    "API_RATE_CONTENT",
    "DJANGO_SETTINGS_MODULE",
)


def environment_without_settings() -> dict[str, str]:
    """This process's environment less every variable the settings read."""
    return {k: v for k, v in os.environ.items() if k not in SETTINGS_VARIABLES}
