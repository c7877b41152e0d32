"""Import and export from the admin's changelists: buttons and actions.

``ImportExportLinksMixin`` puts "Import" and "Export" buttons on a changelist (they
lead to the import page and to ``content:export``, which exports every row the user
may see); ``export_selected`` is an admin action that exports the selected rows, and
``export_package`` one that exports them as a Talia package (``content/packages``);
``publish_to_library`` leads to the page that publishes them to the school's library.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.db.models import QuerySet
from django.http import FileResponse, HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from .models import ActivityCard, KnowledgeBoard, KnowledgeQuestion, KnowQuestion, SymbolSet
from .packages import services as packages
from .permissions import content_visible_to
from .resources import RESOURCES, ExportFile, content_export, kind_for_model


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


class PackageBoardsForm(forms.Form):
    boards = forms.ModelMultipleChoiceField(
        label=_("Boards to include"),
        queryset=KnowledgeBoard.objects.none(),
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text=_("The boards the questions are played on in your class; the other school gets them too."),
    )

    def __init__(self, *args: Any, user: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields["boards"]
        assert isinstance(field, forms.ModelMultipleChoiceField)
        field.queryset = content_visible_to(user, KnowledgeBoard.objects.all()).order_by("name", "pk")


def _file(exported: ExportFile) -> FileResponse:
    return FileResponse(
        exported.file, as_attachment=True, filename=exported.filename, content_type=exported.content_type
    )


@admin.action(description=_("Export the selected items as a Talia package"))
def export_package(
    modeladmin: admin.ModelAdmin, request: HttpRequest, queryset: QuerySet[Any]
) -> HttpResponse | None:
    """The selected items (those the user may see) as one package, for another Talia.

    Knowledge? questions ask first which boards go with them.
    """
    model, user = modeladmin.model, request.user
    try:
        if model is KnowledgeQuestion:
            form = PackageBoardsForm(request.POST if "talia_package" in request.POST else None, user=user)
            if not form.is_valid():
                return TemplateResponse(
                    request,
                    "content/packages/export_knowledge.html",
                    {
                        **modeladmin.admin_site.each_context(request),
                        "title": _("Export Knowledge? questions as a package"),
                        "form": form,
                        "pks": list(queryset.values_list("pk", flat=True)),
                        "opts": model._meta,
                        "action_checkbox_name": ACTION_CHECKBOX_NAME,
                    },
                )
            boards = KnowledgeBoard.objects.filter(pk__in=[b.pk for b in form.cleaned_data["boards"]])
            return _file(packages.knowledge_export(user=user, questions=queryset, boards=boards))
        if model is SymbolSet:
            return _file(packages.symbol_sets_export(user=user, queryset=queryset))
        if model is ActivityCard:
            return _file(packages.activity_cards_export(user=user, queryset=queryset))
        if model is KnowQuestion:
            return _file(packages.know_questions_export(user=user, queryset=queryset))
        if model is KnowledgeBoard:
            return _file(
                packages.knowledge_export(
                    user=user, questions=KnowledgeQuestion.objects.none(), boards=queryset
                )
            )
    except packages.PackageExportError as error:
        modeladmin.message_user(request, str(error), messages.ERROR)
        return None
    raise LookupError(f"{model.__name__} has no package export.")


@admin.action(description=_("Publish to the library"))
def publish_to_library(
    modeladmin: admin.ModelAdmin, request: HttpRequest, queryset: QuerySet[Any]
) -> HttpResponseRedirect:
    """The publish page (``content:library_publish``) for the selected items; it publishes
    only the user's own."""
    ids = ",".join(str(pk) for pk in queryset.order_by("pk").values_list("pk", flat=True)[:1000])
    query = urlencode({"model": modeladmin.model._meta.model_name, "ids": ids})
    return HttpResponseRedirect(f"{reverse('content:library_publish')}?{query}")
