"""Progress pages (namespace ``progress``)."""

from django.urls import path

from . import views

app_name = "progress"

urlpatterns = [
    path("", views.mine, name="mine"),
    path("review", views.review, name="review"),
    path("classes/<int:pk>/", views.class_progress, name="class"),
    path("classes/<int:pk>/students/<int:user_pk>/", views.class_student, name="class_student"),
    path("classes/<int:pk>/progress.<str:fmt>", views.class_export, name="class_export"),
    path("classes/<int:pk>/weeks.<str:fmt>", views.class_weeks_export, name="class_weeks_export"),
    path("classes/<int:pk>/homework/<int:assignment_pk>/", views.homework_analysis, name="analysis"),
    path(
        "classes/<int:pk>/homework/<int:assignment_pk>/analysis.<str:fmt>",
        views.homework_analysis_export,
        name="analysis_export",
    ),
    path("pictures/<int:symbol_pk>", views.symbol_picture, name="picture"),
]
