"""The admin for LMS connections: platforms (manual registration), deployments, keys, scores."""

from __future__ import annotations

import threading

from django.contrib import admin, messages
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext_lazy as _
from lti_tool import admin as lti_tool_admin  # noqa: F401 - registers django-lti's admin first
from lti_tool.models import Key, LtiDeployment, LtiRegistration

from . import keys, registration
from .models import AssignmentLink, ClassLink, OutboxScore, ProgressColumn

for model in (LtiRegistration, Key, LtiDeployment):
    if admin.site.is_registered(model):
        admin.site.unregister(model)


_current = threading.local()  # the request whose form is being rendered (read-only fields need it)


def _tool_urls(request) -> list[tuple[str, str]]:  # type: ignore[no-untyped-def]
    absolute = request.build_absolute_uri
    return [
        (str(_("Login (OIDC initiation) URL")), absolute(reverse("lti:login"))),
        (str(_("Launch (redirect) URL")), absolute(reverse("lti:launch"))),
        (str(_("Deep-linking URL")), absolute(reverse("lti:deep_link"))),
        (str(_("Public keyset (JWKS) URL")), absolute(reverse("lti:jwks"))),
    ]


class DeploymentInline(admin.TabularInline):
    model = LtiDeployment
    fields = ("deployment_id", "is_active", "datetime_created")
    readonly_fields = ("datetime_created",)
    extra = 1


@admin.register(LtiRegistration)
class RegistrationAdmin(admin.ModelAdmin):
    """Manual registration: the LMS's issuer, client id, URLs and deployment ids; Talia's URLs to copy."""

    list_display = ("name", "issuer", "client_id", "is_active", "deployments")
    list_filter = ("is_active",)
    search_fields = ("name", "issuer", "client_id")
    readonly_fields = ("tool_urls", "dynamic_registration_url")
    fieldsets = (
        (_("Talia's side (enter these in the LMS)"), {"fields": ("tool_urls", "dynamic_registration_url")}),
        (
            _("The LMS's side (from the LMS's tool registration)"),
            {
                "fields": (
                    "name",
                    "issuer",
                    "client_id",
                    "auth_url",
                    "token_url",
                    "keyset_url",
                    "audience",
                    "is_active",
                )
            },
        ),
    )
    inlines = [DeploymentInline]

    def get_form(self, request, obj=None, **kwargs):  # type: ignore[no-untyped-def]
        _current.request = request
        return super().get_form(request, obj, **kwargs)

    @admin.display(description=_("Talia's URLs"))
    def tool_urls(self, obj: LtiRegistration) -> str:
        return format_html(
            "<dl>{}</dl>",
            format_html_join("", "<dt>{}</dt><dd><code>{}</code></dd>", _tool_urls(_current.request)),
        )

    @admin.display(description=_("Dynamic registration URL"))
    def dynamic_registration_url(self, obj: LtiRegistration) -> str:
        token = registration.invitation_token(by=_current.request.user)
        url = _current.request.build_absolute_uri(reverse("lti:register", args=[token]))
        return format_html(
            "<code>{}</code><p>{}</p>",
            url,
            _("Paste it into Moodle or Canvas instead of filling in the fields below; valid for 14 days."),
        )

    @admin.display(description=_("deployments"))
    def deployments(self, obj: LtiRegistration) -> str:
        active = obj.deployments.filter(is_active=True).count()
        waiting = obj.deployments.filter(is_active=False).count()
        return str(_("%(active)d active, %(waiting)d waiting") % {"active": active, "waiting": waiting})


@admin.register(LtiDeployment)
class DeploymentAdmin(admin.ModelAdmin):
    """Deployments, unknown ones included: a launch from an unknown deployment waits here, inactive."""

    list_display = ("deployment_id", "registration", "is_active", "datetime_created")
    list_filter = ("is_active", "registration")
    search_fields = ("deployment_id", "registration__name", "registration__issuer")
    fields = ("registration", "deployment_id", "is_active")
    actions = ["activate", "deactivate"]

    @admin.action(description=_("Activate the selected deployments"))
    def activate(self, request, queryset):  # type: ignore[no-untyped-def]
        count = queryset.update(is_active=True)
        self.message_user(request, _("%(n)d deployments activated.") % {"n": count}, messages.SUCCESS)

    @admin.action(description=_("Deactivate the selected deployments"))
    def deactivate(self, request, queryset):  # type: ignore[no-untyped-def]
        count = queryset.update(is_active=False)
        self.message_user(request, _("%(n)d deployments deactivated.") % {"n": count}, messages.SUCCESS)


@admin.register(Key)
class KeyAdmin(admin.ModelAdmin):
    """Talia's signing keys. "Rotate" makes a new key; the old one stays published for the grace period."""

    list_display = ("kid", "is_active", "published", "datetime_created")
    fields = ("kid", "public_key", "is_active", "datetime_created")
    readonly_fields = ("kid", "public_key", "datetime_created")
    actions = ["rotate"]

    def has_add_permission(self, request):  # type: ignore[no-untyped-def]
        return False

    @admin.display(description=_("key id"))
    def kid(self, obj: Key) -> str:
        return str(obj)

    @admin.display(description=_("in the JWKS"), boolean=True)
    def published(self, obj: Key) -> bool:
        return obj.pk in {k.pk for k in keys.keys_published()}

    @admin.action(description=_("Rotate: make a new signing key"))
    def rotate(self, request, queryset):  # type: ignore[no-untyped-def]
        key = keys.key_rotate()
        self.message_user(request, _("New signing key %(kid)s.") % {"kid": key}, messages.SUCCESS)


@admin.register(OutboxScore)
class OutboxScoreAdmin(admin.ModelAdmin):
    list_display = (
        "student",
        "link",
        "column",
        "score_given",
        "score_maximum",
        "status",
        "attempts",
        "timestamp",
    )
    list_filter = ("status",)
    # Each row names its student, its activity (a resource link and an assignment) or its
    # progress column: read with the rows, not in queries of their own.
    list_select_related = ("student", "link__resource_link", "link__assignment", "column")
    readonly_fields = [f.name for f in OutboxScore._meta.fields]

    def has_add_permission(self, request):  # type: ignore[no-untyped-def]
        return False


@admin.register(ClassLink)
class ClassLinkAdmin(admin.ModelAdmin):
    list_select_related = ("context", "school_class")  # what each row's name shows


@admin.register(AssignmentLink)
class AssignmentLinkAdmin(admin.ModelAdmin):
    list_select_related = ("resource_link", "assignment")  # what each row's name shows


@admin.register(ProgressColumn)
class ProgressColumnAdmin(admin.ModelAdmin):
    """Published from the class page (teachers); the admin only shows them."""

    list_display = ("label", "class_link", "active", "published")
    list_select_related = ("class_link__context", "class_link__school_class")
    list_filter = ("active", "group")
    readonly_fields = [f.name for f in ProgressColumn._meta.fields]

    def has_add_permission(self, request):  # type: ignore[no-untyped-def]
        return False
