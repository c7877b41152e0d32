"""Tests of the "Połącz symbole" workshop (``games.workshop``).

They need the app installed: ``"games.workshop"`` in ``INSTALLED_APPS`` and its URLs
at ``games/workshops/`` (``config/urls.py``). Without them the run stops here with
that message rather than skipping, so a missing app never passes unnoticed.
"""

from django.apps import apps
from django.urls import NoReverseMatch, reverse

if not apps.is_installed("games.workshop"):
    raise RuntimeError(
        'The workshop tests need "games.workshop" in INSTALLED_APPS (config/settings.py) and '
        'path("games/workshops/", include("games.workshop.urls")) in config/urls.py.'
    )
try:
    reverse("workshop:join")
except NoReverseMatch as error:
    raise RuntimeError(
        'The workshop tests need path("games/workshops/", include("games.workshop.urls")) in config/urls.py.'
    ) from error
