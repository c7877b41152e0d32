"""Deck building and printing pages; config/urls.py includes them under ``content/decks/``."""

from django.urls import path

from . import deck_views

app_name = "decks"

urlpatterns = [
    path("new/", deck_views.deck_new, name="deck_new"),
    path("<int:pk>/", deck_views.deck_detail, name="deck_detail"),
    path("<int:pk>/status/", deck_views.deck_status, name="deck_status"),
    path("<int:pk>/retry/", deck_views.deck_retry, name="deck_retry"),
    path("<int:pk>/files/<str:name>", deck_views.deck_download, name="deck_download"),
    path("prints/new/", deck_views.print_new, name="print_new"),
    path("prints/<int:pk>/", deck_views.print_detail, name="print_detail"),
    path("prints/<int:pk>/status/", deck_views.print_status, name="print_status"),
    path("prints/<int:pk>/retry/", deck_views.print_retry, name="print_retry"),
    path("prints/<int:pk>/files/<str:name>", deck_views.print_download, name="print_download"),
]
