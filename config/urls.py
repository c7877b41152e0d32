"""Talia's URLs: site pages, the admin, the versioned API and its docs."""

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path
from django.utils.translation import gettext_lazy as _
from django.views.i18n import JavaScriptCatalog

from config import live_relay
from lms import views as lms_views
from lms.accounts import views as account_views

admin.site.site_header = "Talia"
admin.site.site_title = "Talia"
admin.site.index_title = _("Authoring")

urlpatterns = [
    path("", lms_views.home, name="home"),
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("accounts/card/<str:token>", account_views.card_signin, name="card_signin"),
    path("accounts/password/", account_views.password_set, name="password_set"),
    path("i18n/", include("django.conf.urls.i18n")),
    path("jsi18n/", JavaScriptCatalog.as_view(), name="javascript-catalog"),
    path("healthz", lms_views.healthz, name="healthz"),
    # The embedded mode's worker tells the web process's sockets here (config/live_relay.py).
    path("live-relay", live_relay.live_relay_receive, name="live_relay"),
    path("admin/", admin.site.urls),
    path("api/", include("config.api_urls")),
    path("games/workshops/", include("games.workshop.urls")),
    path("games/quizzes/", include("games.quiz.urls")),
    path("games/", include("games.urls")),
    path("content/decks/", include("content.deck_urls")),
    path("content/", include("content.urls")),
    path("lti/", include("lms.lti.urls")),
    path("classes/", include("lms.urls")),
    path("progress/", include("lms.progress.urls")),
]
