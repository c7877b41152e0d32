"""Talia's settings, read from the environment (docs/deploy.md lists every variable).

Without any variable set, Talia runs in its embedded mode: SQLite tuned for a web
server, media on local disk, no other service. `make run` (config/embedded.py) runs a
Celery worker beside the web server with its queue in a folder; a bare `manage.py
runserver`, with no broker at all, runs the tasks in-process.
"""

from __future__ import annotations

import os
import secrets
from datetime import timedelta
from pathlib import Path

import environ
from django.utils.translation import gettext_lazy as _
from whitenoise.compress import Compressor

BASE_DIR = Path(__file__).resolve().parent.parent
env = environ.Env()
environ.Env.read_env(BASE_DIR / ".env", overwrite=False)

VAR_DIR = Path(env.str("TALIA_VAR_DIR", default=str(BASE_DIR / "var")))


def _embedded_secret_key() -> str:
    """A random key kept in var/, so a laptop install is never on a published key."""
    path = VAR_DIR / "secret_key"
    if not path.exists():
        VAR_DIR.mkdir(parents=True, exist_ok=True)
        # Written private from the start, and linked into place so that two processes
        # starting together agree on one key.
        draft = VAR_DIR / f".secret_key.{os.getpid()}"
        with os.fdopen(os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as f:
            f.write(secrets.token_urlsafe(50))
        try:
            os.link(draft, path)
        except FileExistsError:
            pass
        finally:
            draft.unlink()
    return path.read_text().strip()


DEBUG = env.bool("DEBUG", default=False)
SECRET_KEY = env.str("SECRET_KEY", default="") or _embedded_secret_key()
ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["127.0.0.1", "localhost", "[::1]"])
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])
# Behind a TLS-terminating proxy or load balancer, everything below turns on.
HTTPS = env.bool("HTTPS", default=False)

INSTALLED_APPS = [
    "daphne",  # first: `runserver` serves ASGI, WebSockets included
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "channels",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "import_export",
    "adminsortable2",
    "lms",
    "content",
    "games",
    "games.workshop",
    "games.quiz",
    "lms.progress",
    "auditlog",  # who changed grades, imported, deleted or erased what (lms/privacy.py)
    "lti_tool",  # django-lti: LTI 1.3 registrations, deployments, keys, contexts
    "lms.lti",
    "axes",  # django-axes: failed sign-ins and lockouts (config/limits.py)
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # Before anything reads the session or the database: PostgreSQL cannot hold NUL.
    "config.middleware.NulCharacterMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # Signed in with a login card: choose a password before anything else.
    "lms.accounts.middleware.PasswordFirstMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "auditlog.middleware.AuditlogMiddleware",  # the signed-in person is the audit log's actor
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # After (inside) the X-Frame-Options middleware: LTI pages may be framed by the
    # registered platforms (CSP frame-ancestors); every other page stays unframeable.
    "lms.lti.middleware.FrameAncestorsMiddleware",
    # Inside the frame-ancestors one (which appends its directive to this policy): the
    # site's Content-Security-Policy, Permissions-Policy and private Cache-Control.
    "config.headers.SecurityHeadersMiddleware",
    # Last, as django-axes asks: turns a refused sign-in into the 429 page.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"
ASGI_APPLICATION = "config.asgi.application"

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

# --- Database -------------------------------------------------------------------------
DATABASES = {"default": env.db("DATABASE_URL", default=f"sqlite:///{VAR_DIR / 'talia.sqlite3'}")}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Tuned for a web server: WAL lets readers run beside the writer, NORMAL sync is
    # safe with WAL, IMMEDIATE transactions take the write lock up front instead of
    # failing with "database is locked" half-way, and connections are kept open.
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {
            "init_command": (
                "PRAGMA journal_mode=WAL;"
                "PRAGMA synchronous=NORMAL;"
                "PRAGMA busy_timeout=5000;"
                "PRAGMA temp_store=MEMORY;"
                "PRAGMA mmap_size=134217728;"
                "PRAGMA cache_size=-20000;"
            ),
            "transaction_mode": "IMMEDIATE",
        }
    )
    DATABASES["default"]["CONN_MAX_AGE"] = None
    VAR_DIR.mkdir(parents=True, exist_ok=True)
else:
    # A bounded pool per process (psycopg_pool, through Django): a request takes a
    # connection and gives it back at its end, so requests share DB_POOL_MAX_SIZE of them
    # however many threads asgiref starts (one connection kept per thread reached
    # PostgreSQL's limit under daphne). The live path's database threads (LIVE_DB_THREADS,
    # below) each keep one of the pool's connections, so that a game's calls never queue
    # behind page requests: the pool holds both. A request that finds every connection busy
    # waits up to DB_POOL_TIMEOUT seconds, then fails. DB_POOL_MAX_SIZE=0 turns the pool off
    # (e.g. behind PgBouncer): each thread then keeps its own connection for CONN_MAX_AGE.
    DB_POOL_MAX_SIZE = env.int("DB_POOL_MAX_SIZE", default=10)
    if DB_POOL_MAX_SIZE > 0:
        DATABASES["default"]["CONN_MAX_AGE"] = 0  # Django's pool requires it: the pool keeps them
        DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
            "min_size": min(env.int("DB_POOL_MIN_SIZE", default=1), DB_POOL_MAX_SIZE),
            "max_size": DB_POOL_MAX_SIZE + max(0, env.int("LIVE_DB_THREADS", default=8)),
            "timeout": env.float("DB_POOL_TIMEOUT", default=10.0),
        }
    else:
        DATABASES["default"]["CONN_MAX_AGE"] = env.int("CONN_MAX_AGE", default=60)
    # A health check is one more round trip ("SELECT 1") before the first query of every
    # request and of every database call of a WebSocket consumer: about an eighth of a
    # live game action's database time (bench/README.md). Without it, a connection that
    # broke (a database restart) fails one request, and is then replaced.
    DATABASES["default"]["CONN_HEALTH_CHECKS"] = env.bool("CONN_HEALTH_CHECKS", default=False)
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Redis: Celery broker, cache --------------------------------------------------------
REDIS_URL = env.str("REDIS_URL", default="")
if REDIS_URL:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": REDIS_URL}}
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

# Live game updates: Redis between many web processes, in memory in the embedded mode.
# Redis publish/subscribe (channels_redis.pubsub, the default): a group's message is pushed
# to each process that watches the group. LIVE_CHANNEL_LAYER=core: channels_redis's lists,
# where a process fetches its messages one Redis round trip each, in one queue for all its
# sockets: with a few dozen busy sockets, updates waited seconds in it (bench/README.md).
LIVE_CHANNEL_LAYER = env.str("LIVE_CHANNEL_LAYER", default="pubsub")
if REDIS_URL:
    _live_layer: dict[str, object] = {
        # No read timeout: redis-py's 5 s default equals channels_redis's blocking
        # read and would close idle sockets (1011) every few seconds. redis-py's pool
        # allows 100 connections and then fails ("Too many connections"): a process with
        # a few hundred busy sockets needs more.
        "hosts": [{"address": REDIS_URL, "socket_timeout": None, "max_connections": 1000}],
        # Installations (or test runs) that share one Redis keep apart by their prefix:
        # publish/subscribe channels are not separated by Redis's database number.
        "prefix": env.str("LIVE_CHANNEL_PREFIX", default="talia-live"),
    }
    if LIVE_CHANNEL_LAYER == "core":
        # All sockets of a process share one Redis queue of this many messages (default
        # 100, beyond which messages are dropped): room for a few hundred sockets.
        _live_layer["capacity"] = 2000
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer"
            if LIVE_CHANNEL_LAYER == "core"
            else "channels_redis.pubsub.RedisPubSubChannelLayer",
            "CONFIG": _live_layer,
        }
    }
elif LIVE_RELAY_URL := env.str("LIVE_RELAY_URL", default=""):
    # The embedded mode's worker (config/embedded.py sets it): its notices are posted to the
    # web process beside it, which holds the sockets in memory (config/live_relay.py).
    CHANNEL_LAYERS = {
        "default": {"BACKEND": "config.live_relay.RelayChannelLayer", "CONFIG": {"url": LIVE_RELAY_URL}}
    }
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
# Threads per web process for the WebSocket consumers' database work (PostgreSQL; SQLite
# has one, apart from the pages'): games/database_threads.py. Each keeps a connection of
# the pool above, which has room for them beside the requests' DB_POOL_MAX_SIZE.
LIVE_DB_THREADS = env.int("LIVE_DB_THREADS", default=8)
# Connections per web process of the live fast path's own pool (games/live.py): it writes
# on the event loop, so its connections are asynchronous ones, apart from Django's pool.
LIVE_DB_POOL_MAX_SIZE = env.int("LIVE_DB_POOL_MAX_SIZE", default=4)
# The fast path's statement prepared on each of those connections (psycopg's server-side
# prepared statements; Django's own connections prepare none). Off behind a PgBouncer older
# than 1.21 in transaction pooling mode, which loses prepared statements between
# transactions; by default on with Django's pool, off without it (DB_POOL_MAX_SIZE=0).
LIVE_DB_PREPARE = env.bool(
    "LIVE_DB_PREPARE", default=bool(DATABASES["default"].get("OPTIONS", {}).get("pool"))
)
# The fast path of a live action (PostgreSQL and SQLite): a running plain game held in the
# process, one statement per action (a few on SQLite: games/live_sqlite.py), refusals
# without the database (games/live.py). false: every action takes the locked path.
LIVE_FAST_PATH = env.bool("LIVE_FAST_PATH", default=True)

# The broker: Redis in production. `make run` uses a folder in var/ ("filesystem://"), so
# the embedded mode runs a real worker beside the web server and long work shows its
# progress, with no service to install.
CELERY_BROKER_URL = env.str("CELERY_BROKER_URL", default="") or REDIS_URL or "memory://"
CELERY_RESULT_BACKEND = REDIS_URL or None
if CELERY_BROKER_URL.startswith("filesystem://"):
    _queue = VAR_DIR / "celery"
    for _folder in ("queue", "processed", "control"):
        (_queue / _folder).mkdir(parents=True, exist_ok=True)
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(_queue / "queue"),
        "data_folder_out": str(_queue / "queue"),
        "processed_folder": str(_queue / "processed"),
        "control_folder": str(_queue / "control"),
        "store_processed": False,
    }
# Sweeps that make sure nothing waits forever if a scheduled task was lost (a worker died,
# a broker restarted): homework past its due time and timed quiz attempts whose time is
# up are graded, LMS scores still in the outbox are sent again. Run one
# `celery -A config beat` per installation (`make run` runs it inside its worker).
# Builds, prints, imports and quiz generations whose worker died (their heartbeat, every
# JOBS_HEARTBEAT_SECONDS, stopped for JOBS_STALE_SECONDS) are marked failed with a reason,
# and their pages offer "Try again" (content/jobs.py).
CELERY_BEAT_SCHEDULE = {
    "homework-due-sweep": {"task": "lms.classes.tasks.assignments_due_sweep_task", "schedule": 300.0},
    "lms-scores-sweep": {"task": "lms.lti.tasks.scores_sweep", "schedule": 300.0},
    # Mastery fades day by day: the LMS's progress columns follow it (docs/progress.md).
    "lms-progress-columns-sweep": {"task": "lms.lti.tasks.progress_columns_sweep", "schedule": 6 * 3600.0},
    # Namings in play reach memory when their game ends; this takes in those of games still
    # running, or whose task was lost (progress pages only read: docs/progress.md).
    "progress-namings-sweep": {"task": "lms.progress.tasks.namings_absorb_sweep_task", "schedule": 60.0},
    "jobs-sweep": {"task": "content.tasks.jobs_sweep_task", "schedule": 60.0},
    "quizzes-sweep": {"task": "games.quiz.tasks.quizzes_sweep_task", "schedule": 60.0},
    "knowledge-balance-sweep": {"task": "games.tasks.knowledge_balance_sweep_task", "schedule": 60.0},
}
JOBS_HEARTBEAT_SECONDS = env.int("JOBS_HEARTBEAT_SECONDS", default=30)
JOBS_STALE_SECONDS = env.int("JOBS_STALE_SECONDS", default=300)
# A job still waiting in the queue after this long is sent to the queue again (its task
# may have been lost); a second delivery of a job already taken does nothing.
JOBS_REQUEUE_SECONDS = env.int("JOBS_REQUEUE_SECONDS", default=1800)
# No broker at all: run tasks in the calling process (a bare `manage.py runserver`).
CELERY_TASK_ALWAYS_EAGER = env.bool("CELERY_TASK_ALWAYS_EAGER", default=CELERY_BROKER_URL == "memory://")
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_ACKS_LATE = True
# A task whose worker process died is acknowledged, not handed out again at once: a task
# that kills its worker (a deck too big for the memory) would kill the next one too. The
# short idempotent tasks opt in one by one (reject_on_worker_lost=True).
CELERY_TASK_REJECT_ON_WORKER_LOST = False
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# Every task has time limits (seconds; the prefork pool enforces them): the soft one raises
# inside the task, which records why; the hard one kills the worker process. Long work sets
# its own (deck builds and prints 30/35 minutes, imports 10/12, quizzes: games/quiz/tasks.py).
CELERY_TASK_SOFT_TIME_LIMIT = 5 * 60
CELERY_TASK_TIME_LIMIT = 6 * 60
# Redis hands an unacknowledged task to another worker after the visibility timeout. A
# task waiting for its ETA or countdown in a worker is unacknowledged too, so the timeout
# must outlast the longest wait any task uses, or Redis hands it out again while the
# first worker still holds it (and it runs twice): score retries wait at most
# lms.lti.scores.MAX_DELAY (an hour, +20 % jitter), and timers and due homework schedule
# hops of at most TASK_ETA_MAX_SECONDS. A worker killed outright has its task handed out
# again only after this timeout; the sweeps above recover its work long before.
CELERY_VISIBILITY_TIMEOUT = env.int("CELERY_VISIBILITY_TIMEOUT", default=2 * 3600)
TASK_ETA_MAX_SECONDS = 3600
if CELERY_BROKER_URL.startswith(("redis://", "rediss://")):
    CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": CELERY_VISIBILITY_TIMEOUT}
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True

# --- Users ------------------------------------------------------------------------------
AUTH_USER_MODEL = "lms.User"
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "home"
# django-axes first: it refuses a locked-out client before any password is checked.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
    # A printed login card's one-time password (lms/accounts/backends.py).
    "lms.accounts.backends.LoginCardBackend",
]
# How long a printed login card (its one-time password and QR link) stays valid.
LOGIN_CARD_DAYS = env.int("LOGIN_CARD_DAYS", default=14)
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# --- Languages --------------------------------------------------------------------------
LANGUAGE_CODE = "en"
# The interface's languages (locale/<code>/); a browser's Accept-Language picks one until
# the user chooses another in the header. tests/i18n checks each catalogue is complete.
LANGUAGES = [("pl", _("Polish")), ("cs", _("Czech")), ("de", _("German")), ("en", _("English"))]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = env.str("TIME_ZONE", default="Europe/Warsaw")
USE_I18N = True
USE_TZ = True

# --- Static files and media ---------------------------------------------------------------
STATIC_URL = "static/"
STATIC_ROOT = Path(env.str("STATIC_ROOT", default=str(VAR_DIR / "static")))
STATICFILES_DIRS = [BASE_DIR / "static"]
STATICFILES_FINDERS = [
    "django.contrib.staticfiles.finders.FileSystemFinder",
    "config.storage.AppDirectoriesFinder",  # without the sidecar's unused ReDoc
]
MEDIA_URL = "media/"
MEDIA_ROOT = Path(env.str("MEDIA_ROOT", default=str(VAR_DIR / "media")))
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": env.str(
            "STATICFILES_STORAGE",
            default="config.storage.StaticFilesStorage",
        )
    },
}
AWS_STORAGE_BUCKET_NAME = env.str("AWS_STORAGE_BUCKET_NAME", default="")
if AWS_STORAGE_BUCKET_NAME:
    # S3-compatible media for several web machines (pip install "talia[s3]").
    STORAGES["default"] = {"BACKEND": "storages.backends.s3.S3Storage"}
    AWS_S3_ENDPOINT_URL = env.str("AWS_S3_ENDPOINT_URL", default=None)
    AWS_S3_REGION_NAME = env.str("AWS_S3_REGION_NAME", default=None)
    AWS_QUERYSTRING_AUTH = True
    AWS_DEFAULT_ACL = None
    AWS_S3_FILE_OVERWRITE = False  # never replace another row's picture of the same name
# Media is private: no URL serves it as such. Views that check who asks answer each file;
# with this prefix set (for example "/_private/") they leave sending the bytes to the proxy
# through X-Accel-Redirect to an internal location aliased to MEDIA_ROOT (docs/deploy.md).
PRIVATE_MEDIA_PREFIX = env.str("PRIVATE_MEDIA_PREFIX", default="")
WHITENOISE_USE_FINDERS = DEBUG
# Source maps are read by a developer's tools, not by the pages: served as they are, not
# compressed twice over (gzip and Brotli) on every collectstatic.
WHITENOISE_SKIP_COMPRESS_EXTENSIONS = [*Compressor.SKIP_COMPRESS_EXTENSIONS, "map"]
DATA_UPLOAD_MAX_MEMORY_SIZE = 10 * 1024 * 1024
FILE_UPLOAD_MAX_MEMORY_SIZE = 5 * 1024 * 1024
# Imports: the pictures ZIP and the table.
TALIA_IMPORT_MAX_BYTES = env.int("TALIA_IMPORT_MAX_BYTES", default=200 * 1024 * 1024)

# --- Security -----------------------------------------------------------------------------
SESSION_COOKIE_HTTPONLY = True
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
if HTTPS:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=True)
    SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=31536000)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = env.bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", default=True)
    SECURE_HSTS_PRELOAD = env.bool("SECURE_HSTS_PRELOAD", default=True)
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    # Inside an LMS iframe the LMS is another site: cookies must be SameSite=None (and Secure).
    SESSION_COOKIE_SAMESITE = "None"
    CSRF_COOKIE_SAMESITE = "None"
    SESSION_COOKIE_NAME = "__Secure-sessionid"
    CSRF_COOKIE_NAME = "__Secure-csrftoken"

# --- Limits on guessing (config/limits.py, docs/deploy.md "Limits") -------------------------
# Proxies in front of Talia that append the address they saw to X-Forwarded-For: the
# client's address is that many entries from the right (one nginx: 1). With HTTPS=true
# there is at least one.
FORWARDED_PROXY_COUNT = env.int("FORWARDED_PROXY_COUNT", default=1 if HTTPS else 0)
# Failed sign-ins per account and address before a lockout, its first length in seconds
# (doubled by each further failure) and its longest.
LIMIT_SIGNIN_FAILURES = env.int("LIMIT_SIGNIN_FAILURES", default=5)
LIMIT_SIGNIN_LOCKOUT = env.int("LIMIT_SIGNIN_LOCKOUT", default=60)
LIMIT_SIGNIN_LOCKOUT_MAX = env.int("LIMIT_SIGNIN_LOCKOUT_MAX", default=3600)
# Failed sign-ins from one address over every account, in a window of this many seconds
# (config/limits.py): one machine trying a password over many usernames. A school signs
# in from one address: a class of 30 in which everyone mistypes once and half of them
# twice makes 45 failures in a lesson's first minutes. 60 per 15 minutes stays above
# that, and holds a sprayer to under 6,000 usernames a day. Successes are never counted.
LIMIT_SIGNIN_ADDRESS_FAILURES = env.int("LIMIT_SIGNIN_ADDRESS_FAILURES", default=60)
LIMIT_SIGNIN_ADDRESS_WINDOW = env.int("LIMIT_SIGNIN_ADDRESS_WINDOW", default=900)
# Codes that open nothing, per address, in a window of this many seconds: a class
# mistypes a few; 30 students joining with the right code are never counted.
LIMIT_CODE_FAILURES = env.int("LIMIT_CODE_FAILURES", default=30)
LIMIT_CODE_WINDOW = env.int("LIMIT_CODE_WINDOW", default=600)
# LTI login initiations per address: refused ones in ten minutes, and per minute those
# whose launch has not come (a completed launch takes its count back: config/limits.py).
LIMIT_LTI_LOGIN_FAILURES = env.int("LIMIT_LTI_LOGIN_FAILURES", default=20)
LIMIT_LTI_LOGIN_WINDOW = 600
LIMIT_LTI_LOGINS = env.int("LIMIT_LTI_LOGINS", default=300)

AXES_HANDLER = "config.limits.SignInBackoffHandler"
AXES_FAILURE_LIMIT = LIMIT_SIGNIN_FAILURES
# Failures are remembered a day after the last one; how long a lockout lasts is the
# handler's backoff, not this.
AXES_COOLOFF_TIME = timedelta(days=1)
# An account from one address: a classmate behind the school's address cannot lock the
# whole class out, nor anyone outside lock a teacher out everywhere.
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
AXES_CLIENT_IP_CALLABLE = "config.limits.client_ip"
AXES_LOCKOUT_CALLABLE = "config.limits.signin_locked_response"
AXES_VERBOSE = False
# A lockout's record is enough; no row for every successful sign-in.
AXES_DISABLE_ACCESS_LOG = True

# --- LTI 1.3 (lms/lti, docs/lms.md) ----------------------------------------------------
# Nonces, OIDC states, launch data and platform access tokens live in this cache: Redis
# when REDIS_URL is set (shared by every web process and worker), memory otherwise.
LTI_CACHE = "default"
# Outbox deliveries to an LMS: attempts before a score is marked failed (the teacher can
# resend), and the first retry's delay in seconds (doubled at each attempt).
LTI_SCORE_MAX_ATTEMPTS = env.int("LTI_SCORE_MAX_ATTEMPTS", default=8)
LTI_SCORE_RETRY_DELAY = env.int("LTI_SCORE_RETRY_DELAY", default=30)
# Seconds between a student's answer and the refresh of their progress columns in the LMS;
# the answers in between join the same refresh.
LTI_PROGRESS_DELAY = env.int("LTI_PROGRESS_DELAY", default=60)
# A rotated-out signing key stays published in the JWKS this many days.
LTI_KEY_GRACE_DAYS = env.int("LTI_KEY_GRACE_DAYS", default=7)

# --- API ----------------------------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_VERSIONING_CLASS": "rest_framework.versioning.NamespaceVersioning",
    "DEFAULT_VERSION": "v1",
    "ALLOWED_VERSIONS": ["v1"],
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    # Requests per person (or per address when signed out), and per scope: the content
    # views are "content" (content/api/views.py). 429 with Retry-After beyond them.
    "DEFAULT_THROTTLE_CLASSES": [
        "rest_framework.throttling.AnonRateThrottle",
        "rest_framework.throttling.UserRateThrottle",
        "rest_framework.throttling.ScopedRateThrottle",
    ],
    "DEFAULT_THROTTLE_RATES": {
        "anon": env.str("API_RATE_ANON", default="60/minute"),
        "user": env.str("API_RATE_USER", default="1200/minute"),
        "content": env.str("API_RATE_CONTENT", default="600/minute"),
    },
    "NUM_PROXIES": FORWARDED_PROXY_COUNT,
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.LimitOffsetPagination",
    "PAGE_SIZE": 50,
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_RENDERER_CLASSES": [
        "rest_framework.renderers.JSONRenderer",
        "rest_framework.renderers.BrowsableAPIRenderer",
    ],
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Talia API",
    "DESCRIPTION": "Game content of Talia: symbols, symbol sets, Activity cards, Knowledge? questions.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "SCHEMA_PATH_PREFIX": r"/api/v[0-9]+",
    # Request bodies get their own components: only there can a required text say it may
    # not be empty (minLength), and read-only fields are left out of what a client sends.
    "COMPONENT_SPLIT_REQUEST": True,
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "content.api.schema.error_responses",
    ],
}

# --- Audit log (django-auditlog; docs/classes.md) ---------------------------------------------
# Changes to grades, homework, classes and imports, with who made them; erasures and data
# exports are written by lms/privacy.py. No IP addresses: the actor is enough, and a
# student's address is personal data the log does not need.
AUDITLOG_INCLUDE_TRACKING_MODELS = (
    "lms.Grade",
    "lms.Submission",
    "lms.Assignment",
    "lms.SchoolClass",
    "lms.ClassMember",
    "content.ImportJob",
)
AUDITLOG_DISABLE_REMOTE_ADDR = True

IMPORT_EXPORT_USE_TRANSACTIONS = True
IMPORT_EXPORT_SKIP_ADMIN_LOG = False

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", default="INFO")},
    # WeasyPrint reports every stylesheet it parses at INFO (its own at import time).
    "loggers": {"weasyprint": {"level": "WARNING"}},
}
