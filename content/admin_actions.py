"""Import and export from the admin's changelists: buttons and an action.

``ImportExportLinksMixin`` puts "Import" and "Export" buttons on a changelist (they
lead to the import page and to ``content:export``, which exports every row the user
may see); ``export_selected`` is an admin action that exports the selected rows.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.db.models import QuerySet
from django.http import FileResponse, HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from .permissions import content_visible_to
from .resources import RESOURCES, content_export, kind_for_model


def _formats(kind: str) -> list[tuple[str, Any]]:
    formats = [("csv", _("CSV (UTF-8)")), ("xlsx", _("XLSX (Excel)"))]
    if RESOURCES[kind].takes_pictures:
        formats.append(("zip", _("ZIP: the CSV table and the pictures")))
    return formats


class ExportFormatForm(forms.Form):
    format = forms.ChoiceField(label=_("Format"), widget=forms.RadioSelect, initial="csv")

    def __init__(self, *args: Any, kind: str, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["format"].choices = _formats(kind)


@admin.action(description=_("Export the selected rows as CSV/XLSX/ZIP"))
def export_selected(
    modeladmin: admin.ModelAdmin, request: HttpRequest, queryset: QuerySet[Any]
) -> HttpResponse:
    """Ask for the format, then send the selected rows the user may see as a file."""
    kind = kind_for_model(modeladmin.model)
    form = ExportFormatForm(request.POST if "talia_export" in request.POST else None, kind=kind)
    if form.is_valid():
        exported = content_export(
            kind=kind,
            queryset=content_visible_to(request.user, queryset),
            file_format=form.cleaned_data["format"],
        )
        return FileResponse(
            exported.file, as_attachment=True, filename=exported.filename, content_type=exported.content_type
        )
    return TemplateResponse(
        request,
        "content/imports/export_selected.html",
        {
            **modeladmin.admin_site.each_context(request),
            "title": _("Export %(what)s") % {"what": modeladmin.model._meta.verbose_name_plural},
            "form": form,
            "pks": list(queryset.values_list("pk", flat=True)),
            "opts": modeladmin.model._meta,
            "action_checkbox_name": ACTION_CHECKBOX_NAME,
        },
    )


class ImportExportLinksMixin:
    """Adds "Import" and "Export" buttons to a ModelAdmin's changelist."""

    change_list_template = "admin/content/change_list_import_export.html"

    def changelist_view(
        self, request: HttpRequest, extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        kind = kind_for_model(self.model)  # type: ignore[attr-defined]
        export_url = reverse("content:export")
        links = {
            "talia_import_url": f"{reverse('content:import_start')}?kind={kind}",
            "talia_export_links": [
                {
                    "url": f"{export_url}?kind={kind}&format={code}",
                    "label": _("Export %(format)s") % {"format": code.upper()},
                }
                for code, _label in _formats(kind)
            ],
        }
        return super().changelist_view(  # type: ignore[misc]
            request, {**links, **(extra_context or {})}
        )
