"""ZnajZnak's class duels and practice alone: ``/games/class/...``, ``/games/practice/...`` and
the simulated opponent's ``/games/sessions/<pk>/bot`` (mounted by ``games/urls.py``)."""

from django.urls import path

from . import views

urlpatterns = [
    path("sessions/<int:pk>/bot", views.session_bot, name="session_bot"),
    path("class/new", views.class_new, name="class_new"),
    path("class/<int:pk>/round", views.class_round, name="class_round"),
    path("class/<int:pk>/finish", views.class_finish, name="class_finish"),
    path("class/<int:pk>/follow", views.class_follow, name="class_follow"),
    path("practice/new", views.practice_new, name="practice_new"),
    path("practice/<str:code>/", views.practice, name="practice"),
    path("practice/<str:code>/results", views.practice_results, name="practice_results"),
]
