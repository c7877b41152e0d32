"""Quiz pages, mounted at ``games/quizzes/`` (namespace ``quiz``)."""

from django.urls import path

from . import views

app_name = "quiz"

urlpatterns = [
    path("", views.quiz_list, name="list"),
    path("new", views.quiz_new, name="new"),
    path("from-game/<int:session_pk>", views.quiz_followup, name="followup"),
    path("from-game/<int:session_pk>/status.json", views.quiz_followup_status, name="followup_status"),
    path("from-game/<int:session_pk>/publish", views.quiz_followup_publish, name="followup_publish"),
    path("mine", views.quiz_mine, name="mine"),
    path("<int:pk>/", views.quiz_detail, name="detail"),
    path("<int:pk>/status.json", views.quiz_status, name="status"),
    path("<int:pk>/publish", views.quiz_publish, name="publish"),
    path("<int:pk>/retry", views.quiz_retry, name="retry"),
    path("<int:pk>/items/<int:item_pk>/drop", views.item_drop, name="item_drop"),
    path("<int:pk>/items/<int:item_pk>/replace", views.item_replace, name="item_replace"),
    path("<int:pk>/items/<int:item_pk>/pictures/<str:token>", views.teacher_picture, name="teacher_picture"),
    path("<int:pk>/marks/<int:response_pk>", views.response_mark, name="mark"),
    path("<int:pk>/<str:which>.pdf", views.quiz_print, name="print"),
    path("<int:pk>/package.zip", views.quiz_package, name="package"),
    path("take/<str:code>", views.take, name="take"),
    path("attempts/<int:pk>/", views.attempt_page, name="attempt"),
    path("attempts/<int:pk>/answers", views.attempt_answer, name="answer"),
    path("attempts/<int:pk>/submit", views.attempt_submit, name="submit"),
    path(
        "attempts/<int:pk>/items/<int:item_pk>/pictures/<str:token>",
        views.attempt_picture,
        name="attempt_picture",
    ),
]
