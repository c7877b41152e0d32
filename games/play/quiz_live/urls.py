"""The live quiz: ``/games/quiz-live/...`` (mounted by ``games/urls.py``)."""

from django.urls import path

from . import views

urlpatterns = [
    path("new/<int:quiz_pk>", views.quiz_live_new, name="quiz_live_new"),
    path("<int:pk>/pictures/<int:number>/<str:token>", views.quiz_live_picture, name="quiz_live_picture"),
]
