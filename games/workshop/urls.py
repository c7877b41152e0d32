"""Workshop pages, mounted at ``games/workshops/`` (namespace ``workshop``)."""

from django.urls import path

from . import views

app_name = "workshop"

urlpatterns = [
    path("new", views.workshop_new, name="new"),
    path("join", views.join, name="join"),
    path("join/<str:code>", views.join_code, name="join_code"),
    path("<int:pk>/lead", views.workshop_lead, name="lead"),
    path("<int:pk>/", views.workshop_play, name="play"),
    path("<int:pk>/view.json", views.workshop_view, name="view"),
    path("<int:pk>/panel", views.workshop_panel, name="panel"),
    path("<int:pk>/pictures/<int:participant_id>", views.workshop_picture, name="picture"),
    path("<int:pk>/deal", views.workshop_deal, name="deal"),
    path("<int:pk>/groups/open", views.workshop_grouping_start, name="grouping_start"),
    path("<int:pk>/close", views.workshop_close, name="close"),
    path("<int:pk>/suggestions", views.suggestion_add, name="suggest"),
    path("<int:pk>/groups/new", views.group_create, name="group_create"),
    path("<int:pk>/groups/join", views.group_join, name="group_join"),
    path("<int:pk>/groups/leave", views.group_leave, name="group_leave"),
    path("<int:pk>/groups/key", views.group_key, name="group_key"),
]
