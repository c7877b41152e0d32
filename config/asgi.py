"""ASGI entry point: HTTP and the games' WebSockets (``daphne config.asgi:application``)."""

import gc
import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
# Django is set up before anything imports models.
django_application = get_asgi_application()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402
from channels.sessions import SessionMiddlewareStack  # noqa: E402
from django.urls import get_resolver  # noqa: E402

from games.routing import websocket_urlpatterns  # noqa: E402

application = ProtocolTypeRouter(
    {
        "http": django_application,
        # The session only: the socket's consumer finds the user itself, in the one database
        # call that also finds the participant (``games.consumers``).
        "websocket": AllowedHostsOriginValidator(SessionMiddlewareStack(URLRouter(websocket_urlpatterns))),
    }
)


def _startup_objects_frozen() -> None:
    """Leave what the process loaded at its start out of the garbage collector's full passes.

    The modules, classes and settings (with every view: the URLconf imports them) live as
    long as the process: some 250,000 objects, which each full collection walked again. A
    process serving a class collected in full every few seconds, each pass about 0.2 s of
    CPU during which no socket or request moved (bench/README.md, ``bench_embedded.py``).
    Frozen, they are never walked again; what the process makes later is collected as usual.
    """
    get_resolver().url_patterns  # noqa: B018  (imports every view now, not at the first request)
    gc.collect()
    gc.freeze()


_startup_objects_frozen()
