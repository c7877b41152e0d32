"""Curator pages outside the admin's model pages: imports, their progress, exports, packages, pictures."""

from django.urls import path

from . import import_views, library_views, package_views, views

app_name = "content"

urlpatterns = [
    path("imports/new/", import_views.import_start, name="import_start"),
    path("imports/<int:pk>/", import_views.import_detail, name="import_detail"),
    path("imports/<int:pk>/status/", import_views.import_status, name="import_status"),
    path("imports/<int:pk>/apply/", import_views.import_apply, name="import_apply"),
    path("imports/<int:pk>/retry/", import_views.import_retry, name="import_retry"),
    path("imports/template/<slug:kind>/", import_views.import_template, name="import_template"),
    path("export/", import_views.export, name="export"),
    path("packages/import/", package_views.package_import_start, name="package_import_start"),
    path("packages/imports/<int:pk>/", package_views.package_import_detail, name="package_import_detail"),
    path(
        "packages/imports/<int:pk>/status/", package_views.package_import_status, name="package_import_status"
    ),
    path(
        "packages/imports/<int:pk>/confirm/",
        package_views.package_import_confirm,
        name="package_import_confirm",
    ),
    path("packages/imports/<int:pk>/retry/", package_views.package_import_retry, name="package_import_retry"),
    path("packages/symbol-sets/<int:pk>.zip", package_views.symbol_set_package, name="symbol_set_package"),
    path("library/", library_views.library_index, name="library"),
    path("library/publish/", library_views.library_publish, name="library_publish"),
    path("library/<int:pk>/", library_views.library_entry, name="library_entry"),
    path("library/<int:pk>/copy/", library_views.library_copy, name="library_copy"),
    path("library/<int:pk>/unpublish/", library_views.library_unpublish, name="library_unpublish"),
    path(
        "library/<int:pk>/symbols/<int:symbol_pk>/picture",
        library_views.library_symbol_picture,
        name="library_symbol_picture",
    ),
    path("symbols/<int:pk>/picture", views.symbol_picture, name="symbol_picture"),
    path("questions/<int:pk>/picture", views.question_picture, name="question_picture"),
    path("questions/options/<int:pk>/picture", views.question_option_picture, name="question_option_picture"),
]
