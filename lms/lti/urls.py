from django.urls import path

from . import views

app_name = "lti"

urlpatterns = [
    path("login/", views.login, name="login"),
    path("launch/", views.launch, name="launch"),
    path("deep-link/", views.launch, name="deep_link"),
    path("jwks/", views.jwks, name="jwks"),
    path("register/<str:token>/", views.register, name="register"),
    path("pick/<str:key>/", views.pick, name="pick"),
    path("class/<int:pk>/roster/", views.roster_sync, name="roster_sync"),
    path("class/<int:pk>/scores/", views.class_scores_page, name="class_scores"),
    path("scores/<int:pk>/resend/", views.score_resend, name="score_resend"),
    path("class/<int:pk>/progress-columns/", views.progress_columns_page, name="progress_columns"),
    path(
        "progress-columns/<int:pk>/unpublish/",
        views.progress_column_unpublish,
        name="progress_column_unpublish",
    ),
]
