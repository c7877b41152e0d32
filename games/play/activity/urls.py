"""Activity in class: ``/games/activity/...`` (mounted by ``games/urls.py``)."""

from django.urls import path

from . import views

urlpatterns = [
    path("new", views.activity_new, name="activity_new"),
    path("terms", views.activity_terms, name="activity_terms"),
    path("clock.json", views.activity_clock, name="activity_clock"),
    path("<int:pk>/lobby.json", views.activity_lobby, name="activity_lobby"),
    path("<int:pk>/seat", views.activity_seat, name="activity_seat"),
    path("<int:pk>/join-team", views.activity_join_team, name="activity_join_team"),
    path("<int:pk>/shuffle", views.activity_shuffle, name="activity_shuffle"),
    path("<int:pk>/act", views.activity_act, name="activity_act"),
    path("<int:pk>/hourglass", views.activity_hourglass, name="activity_hourglass"),
]
