"""Know in class: ``/games/know/...`` (mounted by ``games/urls.py``)."""

from django.urls import path

from . import views

urlpatterns = [
    path("new", views.know_new, name="know_new"),
    path("<int:pk>/projector", views.know_projector, name="know_projector"),
    path("<int:pk>/projector.json", views.know_projector_view, name="know_projector_view"),
    path("<int:pk>/keep", views.know_keep, name="know_keep"),
]
