"""Curator pages outside the admin's model pages: imports and their progress."""

from django.urls import path

from . import import_views

app_name = "content"

urlpatterns = [
    path("imports/new/", import_views.import_start, name="import_start"),
]
