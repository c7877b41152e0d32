"""Class and homework pages (``/classes/``): a teacher's classes and gradebook, a student's homework."""

from django.urls import path

from lms.accounts import views as account_views
from lms.classes import views

app_name = "lms"

urlpatterns = [
    path("", views.classes, name="classes"),
    path("new", views.class_new, name="class_new"),
    path("join", views.join, name="join"),
    path("join/<str:code>", views.join, name="join_code"),
    path("account/new", account_views.signup, name="signup"),
    path("join/<str:code>/account", account_views.signup, name="signup_code"),
    path("homework/", views.homework, name="homework"),
    path("homework/<int:assignment_pk>/", views.homework_detail, name="homework_detail"),
    path("<int:pk>/", views.class_dashboard, name="class"),
    path("<int:pk>/code", views.class_code, name="class_code"),
    path("<int:pk>/settings", views.class_settings, name="class_settings"),
    path("<int:pk>/handover", views.handover_answer, name="handover_answer"),
    path("<int:pk>/members/<int:user_id>/remove", views.member_remove, name="member_remove"),
    path("<int:pk>/students/new", account_views.students_new, name="students_new"),
    path("<int:pk>/students/<int:user_id>/card", account_views.card_new, name="card_new"),
    path("<int:pk>/signups/<int:user_id>", account_views.signup_answer, name="signup_answer"),
    path("<int:pk>/signups/approve", account_views.signups_approve_all, name="signups_approve_all"),
    path("<int:pk>/cards", account_views.cards_page, name="cards"),
    path("<int:pk>/cards.pdf", account_views.cards_pdf, name="cards_pdf"),
    path("<int:pk>/students/<int:user_id>/data.json", views.student_data, name="student_data"),
    path("<int:pk>/students/<int:user_id>/erase", views.student_erase, name="student_erase"),
    path("<int:pk>/gradebook.csv", views.gradebook_csv, name="gradebook_csv"),
    path("<int:pk>/gradebook.xlsx", views.gradebook_xlsx, name="gradebook_xlsx"),
    path("<int:pk>/homework/new", views.assignment_new, name="assignment_new"),
    path("<int:pk>/homework/<int:assignment_pk>/", views.assignment_detail, name="assignment"),
    path("<int:pk>/homework/<int:assignment_pk>/edit", views.assignment_edit, name="assignment_edit"),
    path(
        "<int:pk>/homework/<int:assignment_pk>/publish", views.assignment_publish, name="assignment_publish"
    ),
]
