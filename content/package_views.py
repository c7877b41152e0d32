"""Package pages for teachers: import a package (upload, check, preview with a choice per
item, import) and export a symbol set as one. They look like the admin and stay thin:
each parses the request, calls one service of ``content/packages/services.py`` and
shapes the answer.

Signed-in teachers and admins only (students get 403, anonymous users the login page);
a package import is visible to its own teacher and to admins, a 404 to anyone else.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import FileResponse, Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from . import imports
from .forms import PackageForm
from .import_views import admin_page, author_required
from .models import PackageImport, SymbolSet
from .packages import services
from .packages.sections import CONFLICT, COPY, EXISTING, IMPORT, KINDS, NEW, SAME, SECTIONS, SKIP
from .permissions import content_visible_to

CHOICE_LABELS = {
    IMPORT: _("Import"),
    EXISTING: _("Use the existing one"),
    COPY: _("Import as a copy"),
    SKIP: _("Skip"),
}
STATE_LABELS = {
    NEW: pgettext_lazy("package item", "New"),
    SAME: pgettext_lazy("package item", "Already here"),
    CONFLICT: pgettext_lazy("package item", "Differs from what is here"),
}
MATCHED_BY = {
    "uid": _("matched by its identifier"),
    "name": _("matched by its name"),
}


def _job(request: HttpRequest, pk: int) -> PackageImport:
    job = get_object_or_404(PackageImport.objects.select_related("user"), pk=pk)
    if job.user_id != request.user.pk and not request.user.is_admin:
        raise Http404("No such import.")
    return job


@author_required
@never_cache
def package_import_start(request: HttpRequest) -> HttpResponse:
    form = PackageForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        try:
            job = services.package_import_create(user=request.user, file=form.cleaned_data["package"])
        except ValidationError as error:
            for problems in error.message_dict.values():
                form.add_error("package", problems)
        else:
            return redirect("content:package_import_detail", job.pk)
    return admin_page(
        request,
        "content/packages/start.html",
        _("Import a package"),
        form=form,
        recent=(
            PackageImport.objects
            if request.user.is_admin
            else PackageImport.objects.filter(user=request.user)
        )
        .select_related("user")
        .all()[:10],
    )


def _item_view(item: dict[str, Any], chosen: dict[str, str]) -> dict[str, Any]:
    value = chosen.get(item["ref"]) or item["default"]
    return {
        **item,
        "state_label": STATE_LABELS.get(item["state"], item["state"]),
        "matched_label": MATCHED_BY.get(item["matched_by"], ""),
        "options": [
            {"value": choice, "label": CHOICE_LABELS[choice], "checked": choice == value}
            for choice in item["choices"]
        ],
    }


def _preview_sections(job: PackageImport, chosen: dict[str, str]) -> list[dict[str, Any]]:
    shown = []
    for part in (job.preview or {}).get("sections", []):
        section = SECTIONS.get(part["section"])
        shown.append(
            {
                "name": part["section"],
                "title": section.title if section else part["section"],
                "items": [_item_view(item, chosen) for item in part["items"]],
            }
        )
    return shown


def _written(job: PackageImport) -> list[dict[str, Any]]:
    """The rows the import wrote, per section, with where to see them."""
    shown = []
    for name, pks in ((job.result or {}).get("written") or {}).items():
        section = SECTIONS.get(name)
        if section is None:
            continue
        rows = section.model._default_manager.filter(pk__in=pks[:50]).order_by("pk")
        shown.append(
            {
                "title": section.title,
                "count": len(pks),
                "rows": [{"label": section.describe_existing(row), "url": section.link(row)} for row in rows],
            }
        )
    return shown


def _detail(
    request: HttpRequest, job: PackageImport, *, chosen: dict[str, str], problems: list[str]
) -> HttpResponse:
    counts = (job.preview or {}).get("counts", {})
    result_counts = (job.result or {}).get("counts", {})
    return admin_page(
        request,
        "content/packages/detail.html",
        job.title or _("Package import"),
        job=job,
        kind_label=KINDS.get(job.kind, ""),
        progress=imports.import_job_progress(job),
        working=job.state in (PackageImport.State.CHECKING, PackageImport.State.IMPORTING),
        errors=[line for line in job.error.splitlines() if line.strip()],
        counts=counts,
        notes=(job.preview or {}).get("notes", []),
        sections=_preview_sections(job, chosen) if job.state == PackageImport.State.CHECKED else [],
        problems=problems,
        result=result_counts,
        written=_written(job) if job.state == PackageImport.State.DONE else [],
    )


@author_required
@never_cache
@require_GET
def package_import_detail(request: HttpRequest, pk: int) -> HttpResponse:
    return _detail(request, _job(request, pk), chosen={}, problems=[])


@author_required
@never_cache
@require_GET
def package_import_status(request: HttpRequest, pk: int) -> JsonResponse:
    job = _job(request, pk)
    return JsonResponse(
        {
            "state": job.state,
            "state_label": str(job.get_state_display()),
            "progress": imports.import_job_progress(job),
            "working": job.state in (PackageImport.State.CHECKING, PackageImport.State.IMPORTING),
        }
    )


@author_required
@require_POST
def package_import_confirm(request: HttpRequest, pk: int) -> HttpResponse:
    job = _job(request, pk)
    refs = [item["ref"] for part in (job.preview or {}).get("sections", []) for item in part["items"]]
    chosen = {ref: request.POST.get(f"choice-{ref}", "") for ref in refs}
    try:
        services.package_import_confirm(job=job, user=request.user, choices=chosen)
    except services.PackageChoiceError as error:
        return _detail(request, job, chosen=chosen, problems=error.messages)
    except imports.ImportRefused as refused:
        messages.error(request, str(refused))
    return redirect("content:package_import_detail", job.pk)


@author_required
@require_POST
def package_import_retry(request: HttpRequest, pk: int) -> HttpResponse:
    job = _job(request, pk)
    try:
        services.package_import_retry(job=job, user=request.user)
    except imports.ImportRefused as refused:
        messages.error(request, str(refused))
    return redirect("content:package_import_detail", job.pk)


def package_file_response(exported: Any) -> FileResponse:
    return FileResponse(
        exported.file, as_attachment=True, filename=exported.filename, content_type=exported.content_type
    )


@author_required
@require_GET
def symbol_set_package(request: HttpRequest, pk: int) -> HttpResponse:
    """A symbol set (that the teacher may see) as a package, from its admin page."""
    queryset = content_visible_to(request.user, SymbolSet.objects.filter(pk=pk))
    if not queryset.exists():
        raise Http404("No such symbol set.")
    return package_file_response(services.symbol_sets_export(user=request.user, queryset=queryset))
