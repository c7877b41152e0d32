"""Game pages: start a session, join one, play it; class duels; practice alone; polling."""

from django.urls import include, path

from . import views

app_name = "games"

urlpatterns = [
    path("sessions/new", views.session_new, name="session_new"),
    path("sessions/<int:pk>/", views.session_detail, name="session"),
    path("sessions/<int:pk>/start", views.session_start, name="session_start"),
    path("sessions/<int:pk>/age-order", views.session_age_order, name="session_age_order"),
    path("sessions/<int:pk>/view.json", views.session_view, name="session_view"),
    path("sessions/<int:pk>/actions", views.session_actions, name="session_actions"),
    path("sessions/<int:pk>/log.json", views.session_log, name="session_log"),
    path("sessions/<int:pk>/pictures/<str:key>", views.session_picture, name="session_picture"),
    path("", include("games.play.znajznak.urls")),  # class/..., practice/..., sessions/<pk>/bot
    path("know/", include("games.play.know.urls")),
    path("knowledge/", include("games.play.knowledge.urls")),
    path("activity/", include("games.play.activity.urls")),
    path("quiz-live/", include("games.play.quiz_live.urls")),
    path("join", views.join, name="join"),
    path("join/<str:code>", views.join_code, name="join_code"),
]
