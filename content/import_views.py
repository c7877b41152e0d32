"""Import and export pages for curators. They look like the admin and stay thin:
each parses the request, calls one service in ``content/imports.py`` or
``content/resources.py``, and shapes the answer.

Signed-in teachers and admins only (students get 403, anonymous users the login
page); an import job is visible to its own user and to admins, a 404 to anyone else.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.contrib import admin, messages
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import (
    FileResponse,
    Http404,
    HttpRequest,
    HttpResponse,
    HttpResponseBadRequest,
    JsonResponse,
)
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.utils.translation import gettext_lazy as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from . import imports
from .forms import ImportForm
from .models import ImportJob
from .permissions import content_visible_to
from .resources import EXPORT_FORMATS, RESOURCES, content_export, template_csv

ROWS_SHOWN = 500
ACTIONS = {"new": _("New"), "update": _("Update"), "skip": _("Unchanged")}


def author_required(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Teachers and admins pass; students get 403; anonymous users go to the login."""

    @wraps(view)
    def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        if not request.user.can_author:
            raise PermissionDenied(_("Only teachers and admins import and export content."))
        return view(request, *args, **kwargs)

    return wrapped


def admin_page(request: HttpRequest, template: str, title: Any, **context: Any) -> TemplateResponse:
    """A page that looks like the admin's (its header, breadcrumbs and styles)."""
    return TemplateResponse(
        request, template, {**admin.site.each_context(request), "title": title, **context}
    )


def _job(request: HttpRequest, pk: int) -> ImportJob:
    job = get_object_or_404(ImportJob.objects.select_related("user"), pk=pk)
    if job.user_id != request.user.pk and not request.user.is_admin:
        raise Http404("No such import.")
    return job


@author_required
@never_cache
def import_start(request: HttpRequest) -> HttpResponse:
    if request.method == "POST":
        form = ImportForm(request.POST, request.FILES)
        if form.is_valid():
            try:
                job = imports.import_job_create(
                    user=request.user,
                    kind=form.cleaned_data["kind"],
                    data_file=form.cleaned_data["data_file"],
                    pictures_zip=form.cleaned_data.get("pictures_zip"),
                )
            except ValidationError as error:
                for name, problems in error.message_dict.items():
                    form.add_error(name if name in form.fields else None, problems)
            else:
                return redirect("content:import_detail", job.pk)
    else:
        kind = request.GET.get("kind")
        form = ImportForm(initial={"kind": kind if kind in RESOURCES else ImportJob.Kind.SYMBOLS})
    return admin_page(
        request,
        "content/imports/start.html",
        _("Import content"),
        form=form,
        kinds=ImportJob.Kind.choices,
        recent=ImportJob.objects.filter(user=request.user)[:10],
    )


@author_required
@never_cache
def import_detail(request: HttpRequest, pk: int) -> HttpResponse:
    job = _job(request, pk)
    rows = list((job.preview or {}).get("rows", []))
    if len(rows) > ROWS_SHOWN:
        rows = [row for row in rows if row["errors"]][:ROWS_SHOWN] or rows[:ROWS_SHOWN]
    for row in rows:
        row["action_label"] = ACTIONS.get(row["action"], row["action"])
    counts = imports.import_job_counts(job)
    return admin_page(
        request,
        "content/imports/detail.html",
        _("Import of %(kind)s") % {"kind": job.get_kind_display().lower()},
        job=job,
        rows=rows,
        hidden=counts["rows"] - len(rows),
        counts=counts,
        progress=imports.import_job_progress(job),
        working=job.state in (ImportJob.State.CHECKING, ImportJob.State.IMPORTING),
        to_import=counts["new"] + counts["update"],
        changelist=f"admin:content_{RESOURCES[job.kind]._meta.model._meta.model_name}_changelist",
    )


@author_required
@never_cache
@require_GET
def import_status(request: HttpRequest, pk: int) -> JsonResponse:
    job = _job(request, pk)
    return JsonResponse(
        {
            "state": job.state,
            "state_label": str(job.get_state_display()),
            "progress": imports.import_job_progress(job),
            "working": job.state in (ImportJob.State.CHECKING, ImportJob.State.IMPORTING),
            "total_rows": job.total_rows,
            "error": job.error,
        }
    )


@author_required
@require_POST
def import_apply(request: HttpRequest, pk: int) -> HttpResponse:
    job = _job(request, pk)
    try:
        imports.import_job_queue_apply(job=job)
    except imports.ImportRefused as refused:
        messages.error(request, str(refused))
    return redirect("content:import_detail", job.pk)


@author_required
@require_GET
def import_template(request: HttpRequest, kind: str) -> HttpResponse:
    if kind not in RESOURCES:
        raise Http404("No such kind of content.")
    response = HttpResponse(template_csv(kind), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="talia-{kind.replace("_", "-")}-template.csv"'
    return response


@author_required
@require_GET
def export(request: HttpRequest) -> HttpResponse:
    kind, file_format = request.GET.get("kind", ""), request.GET.get("format", "csv")
    if kind not in RESOURCES or file_format not in EXPORT_FORMATS:
        return HttpResponseBadRequest(
            "Choose kind=symbols, activity_cards, knowledge_questions or quiz_questions and "
            "format=csv, xlsx or zip.",
            content_type="text/plain; charset=utf-8",
        )
    model = RESOURCES[kind]._meta.model
    exported = content_export(
        kind=kind,
        queryset=content_visible_to(request.user, model.objects.all()),
        file_format=file_format,
    )
    return FileResponse(
        exported.file, as_attachment=True, filename=exported.filename, content_type=exported.content_type
    )


@author_required
@require_POST
def import_retry(request: HttpRequest, pk: int) -> HttpResponse:
    """ "Try again" on a failed import: its file is checked again from the start."""
    job = _job(request, pk)
    try:
        imports.import_job_retry(job=job, user=request.user)
    except imports.ImportRefused as refused:
        messages.error(request, str(refused))
    return redirect("content:import_detail", job.pk)
