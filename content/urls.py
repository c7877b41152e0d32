"""Curator pages outside the admin's model pages: imports, their progress, exports, pictures."""

from django.urls import path

from . import import_views, views

app_name = "content"

urlpatterns = [
    path("imports/new/", import_views.import_start, name="import_start"),
    path("imports/<int:pk>/", import_views.import_detail, name="import_detail"),
    path("imports/<int:pk>/status/", import_views.import_status, name="import_status"),
    path("imports/<int:pk>/apply/", import_views.import_apply, name="import_apply"),
    path("imports/<int:pk>/retry/", import_views.import_retry, name="import_retry"),
    path("imports/template/<slug:kind>/", import_views.import_template, name="import_template"),
    path("export/", import_views.export, name="export"),
    path("symbols/<int:pk>/picture", views.symbol_picture, name="symbol_picture"),
    path("questions/<int:pk>/picture", views.question_picture, name="question_picture"),
    path("questions/options/<int:pk>/picture", views.question_option_picture, name="question_option_picture"),
]
