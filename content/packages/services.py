"""Exporting content as a package, and importing a package: the only writers of both.

An import is a ``PackageImport`` that moves as a table import does (``content.imports``):

1. ``package_import_create`` refuses, at once and with the reason, an upload that is
   not a package or is unsafe (too big, not a ZIP, paths out of the archive, a ZIP bomb,
   no manifest, a manifest too big); then it stores the file and queues the check.
2. ``package_import_check`` (a Celery task) reads the whole manifest, checks every item
   and every picture, matches each item with the content here and stores the preview.
   It writes no content. A package with any problem is INVALID, with the problems.
3. ``package_import_confirm`` takes the teacher's choice per item (import, use the
   existing content, import as a copy, skip), refuses choices that cannot be written (a
   symbol set without one of its symbols) and queues the write.
4. ``package_import_apply`` (a Celery task) checks the package again, makes sure the
   content here still matches the preview, and writes every chosen item in one
   transaction; on any error nothing is written and the pictures stored are deleted.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import DatabaseError, transaction
from django.db.models import QuerySet
from django.utils import timezone, translation
from django.utils.text import slugify
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from content import imports, tasks
from content.imports import ImportRefused
from content.models import (
    HEX_COLOUR,
    ActivityCard,
    Collection,
    KnowledgeBoard,
    KnowledgeQuestion,
    KnowQuestion,
    PackageImport,
    Period,
    SymbolSet,
    Theme,
)
from content.permissions import content_visible_to
from content.resources import ExportFile

from .archive import Package, PackageError, package_check_upload, package_open, package_write
from .schema import Problems, Reader, where
from .sections import (
    COPY,
    EXISTING,
    IMPORT,
    KINDS,
    MAX_ITEMS,
    SAME,
    SECTIONS,
    SKIP,
    Exporter,
    ImportContext,
    Item,
    Section,
)

__all__ = [
    "PackageChoiceError",
    "PackageExportError",
    "activity_cards_export",
    "know_questions_export",
    "knowledge_export",
    "package_copy",
    "package_export",
    "package_import_apply",
    "package_import_check",
    "package_import_confirm",
    "package_import_create",
    "package_import_fail",
    "package_import_retry",
    "package_imports_requeue",
    "package_imports_sweep",
    "symbol_sets_export",
]

logger = logging.getLogger(__name__)

State = PackageImport.State
PERIOD_FIELDS = ("key", "name", "start_year", "end_year", "label", "colour")
NAMED_FIELDS = ("key", "name", "description")


class PackageExportError(ValueError):
    """Nothing could be exported; the message says why."""


class PackageChoiceError(ValueError):
    """The choices cannot be written; ``messages`` say which and why."""

    def __init__(self, messages: list[str]) -> None:
        super().__init__(messages[0] if messages else "")
        self.messages = messages


def _author(user: Any) -> None:
    if not getattr(user, "is_authenticated", False) or not user.can_author:
        raise PermissionDenied(_("Only teachers and admins export and import packages."))


# --- Export -----------------------------------------------------------------------------------


def package_export(*, user: Any, kind: str, title: str, rows: Mapping[str, Iterable[Any]]) -> ExportFile:
    """A package of ``rows`` (by section) and everything they refer to.

    The caller passes only rows ``user`` may see; what the rows refer to (a set's
    symbols, a quiz's questions) is added only where ``user`` may see it too.
    """
    _author(user)
    exporter = Exporter(user)
    for section, section_rows in rows.items():
        queryset = section_rows
        if isinstance(section_rows, QuerySet):
            queryset = SECTIONS[section].export_queryset(section_rows)
        for row in queryset:
            exporter.add(section, row)
    if not any(exporter.entries.values()):
        raise PackageExportError(
            _("There is nothing to export: none of the chosen items is one you may see.")
        )
    manifest = exporter.manifest(kind=kind, title=title[:200])
    name = slugify(title)[:50] or "package"
    return ExportFile(
        f"talia-{kind.replace('_', '-')}-{name}.zip",
        "application/zip",
        package_write(manifest, exporter.pictures),
    )


def _title(rows: list[Any], one: Callable[[Any], str], many: str) -> str:
    return one(rows[0]) if len(rows) == 1 else many


def symbol_sets_export(*, user: Any, queryset: QuerySet[SymbolSet]) -> ExportFile:
    """Symbol sets with their symbols (and the periods, collections and themes these name)."""
    sets = list(content_visible_to(user, queryset).order_by("name", "pk"))
    title = _title(
        sets,
        lambda s: s.name,
        ngettext("%(n)s symbol set", "%(n)s symbol sets", len(sets)) % {"n": len(sets)},
    )
    return package_export(user=user, kind="symbol_set", title=title, rows={"symbol_sets": sets})


def activity_cards_export(*, user: Any, queryset: QuerySet[ActivityCard]) -> ExportFile:
    """An Activity deck: the cards with their six terms."""
    cards = content_visible_to(user, queryset).order_by("pk")
    n = cards.count()
    title = ngettext("%(n)s Activity card", "%(n)s Activity cards", n) % {"n": n}
    return package_export(user=user, kind="activity_cards", title=title, rows={"activity_cards": cards})


def know_questions_export(*, user: Any, queryset: QuerySet[KnowQuestion]) -> ExportFile:
    """Questions of the Know question bank with their accepted answers."""
    questions = content_visible_to(user, queryset).order_by("pk")
    n = questions.count()
    title = ngettext("%(n)s Know question", "%(n)s Know questions", n) % {"n": n}
    return package_export(user=user, kind="know_questions", title=title, rows={"know_questions": questions})


def knowledge_export(
    *, user: Any, questions: QuerySet[KnowledgeQuestion], boards: QuerySet[KnowledgeBoard]
) -> ExportFile:
    """Knowledge? questions and the boards to play them on."""
    questions = content_visible_to(user, questions).order_by("pk")
    boards = content_visible_to(user, boards).order_by("pk")
    n = questions.count()
    title = ngettext("%(n)s Knowledge? question", "%(n)s Knowledge? questions", n) % {"n": n}
    return package_export(
        user=user,
        kind="knowledge",
        title=title,
        rows={"knowledge_questions": questions, "knowledge_boards": boards},
    )


def package_copy(
    *,
    user: Any,
    source_user: Any,
    kind: str,
    title: str,
    rows: Mapping[str, Iterable[Any]],
    copied_from: Any = None,
) -> dict[str, list[int]]:
    """Copy ``rows`` (by section) for ``user``, as exporting them to a package and importing
    it at once would: one transaction, new identifiers, ``user``'s drafts.

    ``source_user`` is who shares the rows (a library entry's publisher): the package holds
    what they may see. What the rows refer to (a set's symbols) is used as it is when
    ``user`` already sees the very same content here, and copied otherwise. Returns the
    primary keys written, by section; every row written names ``copied_from`` (a library
    entry) when given. ``PackageError`` (nothing written) when the content cannot be copied.
    """
    _author(user)
    exporter = Exporter(source_user)
    for section, section_rows in rows.items():
        for row in section_rows:
            exporter.add(section, row)
    if not any(exporter.entries.values()):
        raise PackageError(_("There is nothing to copy: the content was deleted."))
    data = package_write(exporter.manifest(kind=kind, title=title[:200]), exporter.pictures)
    stored: list[str] = []
    try:
        with transaction.atomic(), package_open(data) as package:
            plan = _plan(user, package)
            plan.ctx.stored = stored
            chosen = {
                item.ref: EXISTING if item.section not in rows and item.state == SAME else COPY
                for item in plan.items
            }
            _sections_plan(plan, [item for item in plan.items if chosen[item.ref] == COPY])
            if plan.ctx.problems:
                raise PackageError(*plan.ctx.problems.lines())
            written: dict[str, list[int]] = {}
            for item in plan.items:
                if chosen[item.ref] == EXISTING:
                    plan.ctx.resolved[(item.section, item.uid)] = item.existing
                    continue
                row = SECTIONS[item.section].write(item, plan.ctx, copy=True)
                plan.ctx.resolved[(item.section, item.uid)] = row
                written.setdefault(item.section, []).append(row.pk)
            if copied_from is not None:
                for section, pks in written.items():
                    SECTIONS[section].model._default_manager.filter(pk__in=pks).update(
                        copied_from=copied_from
                    )
    except BaseException:
        imports.files_delete(stored, what="A copy")
        raise
    return written


# --- Reading and checking a package ----------------------------------------------------------


@dataclass
class Plan:
    """A package read, checked and matched with the content here."""

    ctx: ImportContext
    kind: str
    title: str
    version: int
    items: list[Item]
    notes: list[str] = field(default_factory=list)

    def by_ref(self) -> dict[str, Item]:
        return {item.ref: item for item in self.items}


def _reference(top: Reader, ctx: ImportContext) -> None:
    """The periods, collections and themes the package's items name by key."""
    problems = ctx.problems
    for index, value in enumerate(top.list("periods", max_items=100, required=False)):
        reader = Reader(value, where("periods", index), problems, PERIOD_FIELDS)
        entry = {
            "key": reader.key("key", max_length=50),
            "name": reader.text("name", max_length=80, blank=False),
            "start_year": reader.integer("start_year", minimum=0, maximum=9999),
            "end_year": reader.integer("end_year", minimum=0, maximum=9999),
            "label": reader.text("label", max_length=40),
            "colour": reader.text("colour", max_length=7),
        }
        _period_check(entry, reader.where, problems)
        _reference_add(ctx.ref_periods, entry, reader.where, problems)
    for part, known in (("collections", ctx.ref_collections), ("themes", ctx.ref_themes)):
        for index, value in enumerate(top.list(part, max_items=MAX_ITEMS, required=False)):
            reader = Reader(value, where(part, index), problems, NAMED_FIELDS)
            entry = {
                "key": reader.key("key", max_length=50),
                "name": reader.text("name", max_length=120 if part == "collections" else 80, blank=False),
                "description": reader.text("description", max_length=10_000),
            }
            _reference_add(known, entry, reader.where, problems)


def _period_check(entry: dict[str, Any], at: str, problems: Problems) -> None:
    """The model's rules (its colour's validator, its years' constraint), in the words of
    a package's problems."""
    if entry["colour"]:
        try:
            HEX_COLOUR(entry["colour"])
        except ValidationError:
            problems.add(at, _('"colour" must be a colour written #rrggbb, e.g. #c8102e.'))
    start, end = entry["start_year"], entry["end_year"]
    if isinstance(start, int) and isinstance(end, int):
        try:
            Period(start_year=start, end_year=end).validate_constraints()
        except ValidationError:
            problems.add(at, _("the start year must not be after the end year."))


def _reference_add(
    known: dict[str, dict[str, Any]], entry: dict[str, Any], at: str, problems: Problems
) -> None:
    if entry["key"] in known:
        problems.add(at, _('the key "%(key)s" is listed twice.') % {"key": entry["key"]})
    known[entry["key"]] = entry


def _reference_notes(ctx: ImportContext) -> list[str]:
    """What the import adds to the reference data; a problem for a period a teacher
    cannot add."""
    notes = []
    for model, known, added in (
        (Collection, ctx.ref_collections, _('The collection "%(name)s" (key %(key)s) is added.')),
        (Theme, ctx.ref_themes, _('The theme "%(name)s" (key %(key)s) is added.')),
        (Period, ctx.ref_periods, _('The period "%(name)s" (key %(key)s) is added.')),
    ):
        present = set(model._default_manager.filter(slug__in=list(known)).values_list("slug", flat=True))
        for key, entry in known.items():
            if key in present:
                continue
            if model is Period and not ctx.user.is_admin:
                ctx.problems.add(
                    "",
                    _(
                        'The package uses the period "%(name)s" (key %(key)s), which this Talia does not '
                        "have; only an admin adds periods. Ask an admin to add it with the key %(key)s "
                        "(Authoring → Periods), then check the package again."
                    )
                    % {"name": entry["name"], "key": key},
                )
                continue
            notes.append(added % {"name": entry["name"], "key": key})
    return notes


def _plan(user: Any, package: Package, *, progress: Callable[[int, int], None] | None = None) -> Plan:
    """Read, check and match every item of ``package``; ``PackageError`` on any problem."""
    manifest = package.manifest
    ctx = ImportContext(user=user, package=package, manifest=manifest)
    problems = ctx.problems
    fields = ("format", "version", "kind", "title", "periods", "collections", "themes", *SECTIONS)
    top = Reader(manifest, "manifest", problems, fields)
    kind = top.choice("kind", KINDS)
    title = top.text("title", max_length=200)
    _reference(top, ctx)

    read: list[tuple[Section, int, dict[str, Any]]] = []
    for section in SECTIONS.values():
        uids: set[str] = set()
        for index, value in enumerate(top.list(section.name, max_items=MAX_ITEMS, required=False)):
            reader = Reader(value, where(section.name, index), problems, section.fields)
            entry = section.read(reader, ctx)
            uid = entry.get("uid", "")
            if uid and uid in uids:
                problems.add(reader.where, _('its "uid" is that of an earlier item; each item has its own.'))
            uids.add(uid)
            read.append((section, index, entry))
        ctx.uids[section.name] = uids
    if problems:
        raise PackageError(*problems.lines())
    if not read:
        raise PackageError(_("The package holds no items: nothing to import."))

    steps, done = 2 * len(read), 0
    for section, index, entry in read:
        section.check(entry, where(section.name, index, section.label(entry)), ctx)
        done += 1
        if progress:
            progress(done, steps)
    notes = _reference_notes(ctx)
    if problems:
        raise PackageError(*problems.lines())

    items = []
    for section, index, entry in read:
        item = Item(section.name, index, entry, section.label(entry))
        section.match(item, ctx)
        items.append(item)
        done += 1
        if progress:
            progress(done, steps)
    return Plan(ctx=ctx, kind=kind, title=title, version=int(manifest["version"]), items=items, notes=notes)


def _sections_plan(plan: Plan, items: list[Item]) -> None:
    """Let each section decide what its items to be written need (numbers, keys)."""
    for section in SECTIONS.values():
        section.plan([item for item in items if item.section == section.name], plan.ctx)


def _requires(plan: Plan) -> dict[str, list[str]]:
    """Per item, the refs of the items it cannot be written without."""
    refs = {(item.section, item.uid): item.ref for item in plan.items}
    return {
        item.ref: [refs[need] for need in SECTIONS[item.section].requires(item.entry) if need in refs]
        for item in plan.items
    }


def _preview(plan: Plan) -> dict[str, Any]:
    _sections_plan(plan, plan.items)
    if plan.ctx.problems:
        raise PackageError(*plan.ctx.problems.lines())
    requires = _requires(plan)
    parts = []
    counts = {"items": len(plan.items), "new": 0, "same": 0, "conflict": 0}
    for section in SECTIONS.values():
        items = [item for item in plan.items if item.section == section.name]
        if not items:
            continue
        shown = []
        for item in items:
            counts[item.state] += 1
            existing = None
            if item.existing is not None:
                existing = {
                    "pk": item.existing.pk,
                    "label": section.describe_existing(item.existing),
                    "url": section.link(item.existing),
                }
            shown.append(
                {
                    "ref": item.ref,
                    "label": item.label,
                    "state": item.state,
                    "matched_by": item.matched_by,
                    "existing": existing,
                    "differences": item.differences,
                    "notes": item.notes,
                    "choices": list(item.choices),
                    "default": item.default,
                    "requires": requires[item.ref],
                }
            )
        parts.append({"section": section.name, "items": shown})
    return {
        "kind": plan.kind,
        "title": plan.title,
        "version": plan.version,
        "notes": plan.notes,
        "sections": parts,
        "counts": counts,
    }


# --- The import's steps ------------------------------------------------------------------------


def _enqueue_check(job_id: int) -> None:
    tasks.package_import_check_task.delay(job_id)


def _enqueue_apply(job_id: int) -> None:
    tasks.package_import_apply_task.delay(job_id)


def package_import_create(*, user: Any, file: Any) -> PackageImport:
    """Check an upload up front, store it and queue its check.

    Raises ``ValidationError`` keyed by ``package`` when the file is refused; nothing is
    stored then.
    """
    _author(user)
    try:
        package_check_upload(file)
    except PackageError as error:
        raise ValidationError({"package": error.messages}) from error
    job = PackageImport(
        user=user, state=State.CHECKING, language=translation.get_language() or settings.LANGUAGE_CODE
    )
    file.seek(0)
    job.package.save(f"package-{secrets.token_hex(6)}.zip", file, save=False)
    job.save()
    transaction.on_commit(partial(_enqueue_check, job.pk))
    return job


@contextmanager
def _job_package(job: PackageImport) -> Iterator[Package]:
    with job.package.open("rb") as file, package_open(file) as package:
        yield package


def _author_problem(job: PackageImport) -> str | None:
    user = job.user
    if not user.is_active or not user.can_author:
        return _("%(user)s may no longer import content; nothing was imported.") % {
            "user": user.get_username()
        }
    return None


def _percent(done: int, total: int) -> int:
    return min(99, done * 100 // total) if total else 0


def package_import_check(*, job: PackageImport) -> PackageImport:
    """Check every item without writing content; record the preview and the progress."""
    job = PackageImport.objects.select_related("user").get(pk=job.pk)
    if job.state != State.CHECKING:
        raise ImportRefused(f"This package was checked already (it is {job.get_state_display()}).")
    job.started = timezone.now()
    PackageImport.objects.filter(pk=job.pk).update(started=job.started, updated=job.started)
    with translation.override(job.language or settings.LANGUAGE_CODE):
        problem = _author_problem(job)
        if problem:
            return _finish_check(job, state=State.INVALID, problems=[problem])
        shown = [0]

        def progress(done: int, total: int) -> None:
            if _percent(done, total) != shown[0]:
                shown[0] = _percent(done, total)
                PackageImport.objects.filter(pk=job.pk).update(progress=shown[0], updated=timezone.now())

        try:
            with _job_package(job) as package:
                preview = _preview(_plan(job.user, package, progress=progress))
        except PackageError as error:
            return _finish_check(job, state=State.INVALID, problems=error.messages)
    job.kind, job.title, job.preview = preview["kind"], preview["title"], preview
    return _finish_check(job, state=State.CHECKED, problems=[])


def _finish_check(job: PackageImport, *, state: str, problems: list[str]) -> PackageImport:
    job.state, job.progress = state, 100
    job.error = "\n".join(problems)
    job.save(update_fields=["state", "progress", "error", "kind", "title", "preview", "updated"])
    return job


def _refusal(job: PackageImport) -> str:
    if job.state == State.DONE:
        return _("This package is imported already.")
    return _(
        "This package cannot be imported now: it is %(state)s. Only a package whose check found "
        "no problems can be imported."
    ) % {"state": job.get_state_display().lower()}


def _locked(job: PackageImport, user: Any) -> PackageImport:
    """The job, locked, if ``user`` is its teacher or an admin (inside a transaction)."""
    _author(user)
    job = PackageImport.objects.select_for_update().get(pk=job.pk)
    if job.user_id != user.pk and not user.is_admin:
        raise PermissionDenied(_("This is another teacher's import."))
    return job


def package_import_confirm(*, job: PackageImport, user: Any, choices: Mapping[str, str]) -> PackageImport:
    """Take the teacher's choice per item (missing ones take the preview's default) and queue
    the write; ``PackageChoiceError`` when the choices cannot be written."""
    with transaction.atomic():
        job = _locked(job, user)
        if job.state != State.CHECKED:
            raise ImportRefused(_refusal(job))
        items = [item for part in job.preview.get("sections", []) for item in part["items"]]
        chosen = {item["ref"]: choices.get(item["ref"]) or item["default"] for item in items}
        labels = {item["ref"]: item["label"] for item in items}
        messages = []
        for item in items:
            if chosen[item["ref"]] not in item["choices"]:
                messages.append(_('"%(item)s": choose one of the choices offered.') % {"item": item["label"]})
            elif chosen[item["ref"]] in (IMPORT, COPY):
                for ref in item["requires"]:
                    if chosen[ref] == SKIP:
                        messages.append(
                            _(
                                '"%(item)s" holds "%(other)s": import that too, use the existing one, '
                                'or skip "%(item)s" as well.'
                            )
                            % {"item": item["label"], "other": labels[ref]}
                        )
        if messages:
            raise PackageChoiceError(messages)
        if not any(choice in (IMPORT, COPY) for choice in chosen.values()):
            raise PackageChoiceError(
                [_("Nothing to import: every item is skipped or uses what is here already.")]
            )
        job.choices = chosen
        job.state, job.progress, job.started = State.IMPORTING, 0, None
        job.save(update_fields=["choices", "state", "progress", "started", "updated"])
        transaction.on_commit(partial(_enqueue_apply, job.pk))
    return job


class _Changed(Exception):
    pass


def package_import_apply(*, job: PackageImport) -> PackageImport:
    """Write the chosen items, all in one transaction, or nothing at all.

    The package is checked again and matched again: if the content here changed since
    the preview so that a choice no longer fits (the content to use instead is gone, or
    an item now matches something), nothing is written and the job FAILED says so.
    """
    with transaction.atomic():
        job = PackageImport.objects.select_for_update().get(pk=job.pk)
        if job.state != State.IMPORTING:
            raise ImportRefused(_refusal(job))
        job.started = timezone.now()
        job.save(update_fields=["started", "updated"])

    stored = imports.StoredFiles(job.pk, PackageImport)
    try:
        with transaction.atomic(), translation.override(job.language or settings.LANGUAGE_CODE):
            # Held to the end: a second run of the same job waits here, then finds it done.
            job = PackageImport.objects.select_for_update().select_related("user").get(pk=job.pk)
            if job.state != State.IMPORTING:
                raise ImportRefused(_refusal(job))
            imports.stored_files_delete(job.pk, PackageImport)  # a killed earlier run's, not swept yet
            problem = _author_problem(job)
            if problem:
                raise _Changed(problem)
            with _job_package(job) as package:
                job.result = _apply(job, package, stored)
            job.state, job.progress, job.error = State.DONE, 100, ""
            job.save(update_fields=["state", "progress", "error", "result", "updated"])
    except ImportRefused:
        raise
    except (_Changed, PackageError) as error:
        messages = error.messages if isinstance(error, PackageError) else [str(error)]
        return _apply_failed(job, stored, "\n".join(messages))
    except DatabaseError as error:
        logger.warning("Package import %s: the database refused the items", job.pk, exc_info=True)
        with translation.override(job.language or settings.LANGUAGE_CODE):
            message = _("The database refused the items (%(error)s); nothing was imported. Try again.") % {
                "error": error
            }
        return _apply_failed(job, stored, message)
    except Exception:
        imports.files_delete(stored, what=f"Package import {job.pk}")
        raise
    finally:
        cache.delete(imports.progress_key(job.pk, PackageImport))
        stored.forget()
    return job


def _apply(job: PackageImport, package: Package, stored: list[str]) -> dict[str, Any]:
    # The percentage lives in the cache: the job's row is locked by this transaction. The
    # check again is the first half of the work, the writing the second.
    key = imports.progress_key(job.pk, PackageImport)
    plan = _plan(
        job.user, package, progress=lambda done, total: cache.set(key, _percent(done, total) // 2, 3600)
    )
    plan.ctx.stored = stored
    before = {item["ref"]: item for part in job.preview.get("sections", []) for item in part["items"]}
    changed = _("The content here changed since the preview; nothing was imported. Check the package again.")
    for item in plan.items:
        choice, shown = job.choices.get(item.ref), before.get(item.ref)
        if shown is None or choice not in item.choices:
            raise _Changed(f'"{item.label}": {changed}')
        if choice == EXISTING and (shown["existing"] or {}).get("pk") != item.existing.pk:
            raise _Changed(f'"{item.label}": {changed}')
    writing = [item for item in plan.items if job.choices[item.ref] in (IMPORT, COPY)]
    _sections_plan(plan, writing)
    if plan.ctx.problems:
        raise PackageError(*plan.ctx.problems.lines())

    counts = {IMPORT: 0, COPY: 0, EXISTING: 0, SKIP: 0}
    written: dict[str, list[int]] = {}
    for done, item in enumerate(plan.items, 1):
        choice = job.choices[item.ref]
        counts[choice] += 1
        if choice == EXISTING:
            plan.ctx.resolved[(item.section, item.uid)] = item.existing
        elif choice in (IMPORT, COPY):
            row = SECTIONS[item.section].write(item, plan.ctx, copy=choice == COPY)
            plan.ctx.resolved[(item.section, item.uid)] = row
            written.setdefault(item.section, []).append(row.pk)
        cache.set(key, 50 + _percent(done, len(plan.items)) // 2, 3600)
    return {"counts": counts, "written": written}


def _apply_failed(job: PackageImport, stored: list[str], message: str) -> PackageImport:
    imports.files_delete(stored, what=f"Package import {job.pk}")
    return package_import_fail(job_id=job.pk, message=message)


def package_import_fail(*, job_id: int, message: str) -> PackageImport:
    """Record that a job failed (never over a finished import)."""
    PackageImport.objects.filter(pk=job_id).exclude(state=State.DONE).update(
        state=State.FAILED, error=message
    )
    return PackageImport.objects.get(pk=job_id)


def package_import_retry(*, job: PackageImport, user: Any) -> PackageImport:
    """ "Try again" for a FAILED import: check the stored package again from the start."""
    with transaction.atomic():
        job = _locked(job, user)
        if job.state != State.FAILED:
            raise ImportRefused(
                _("Only an import that failed can be tried again; this one is %(state)s.")
                % {"state": job.get_state_display().lower()}
            )
        job.state, job.progress, job.error, job.started = State.CHECKING, 0, "", None
        job.preview, job.choices, job.result = {}, {}, {}
        job.save(
            update_fields=["state", "progress", "error", "started", "preview", "choices", "result", "updated"]
        )
        transaction.on_commit(partial(_enqueue_check, job.pk))
    return job


def package_imports_sweep() -> int:
    """Fail the package imports whose worker died (as ``imports.imports_sweep``)."""
    return imports.imports_sweep(model=PackageImport)


def package_imports_requeue() -> int:
    """Queue again the package imports waiting too long (as ``imports.imports_requeue``)."""
    return imports.imports_requeue(
        model=PackageImport, enqueue_check=_enqueue_check, enqueue_apply=_enqueue_apply
    )
