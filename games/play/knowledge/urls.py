"""Knowledge?: ``/games/knowledge/...`` (mounted by ``games/urls.py``)."""

from django.urls import path

from . import views

urlpatterns = [
    path("new", views.knowledge_new, name="knowledge_new"),
    path("alone", views.knowledge_solo, name="knowledge_solo"),
    path("homework/<str:token>", views.knowledge_homework, name="knowledge_homework"),
    path("sessions/<int:pk>/results", views.knowledge_results, name="knowledge_results"),
]
