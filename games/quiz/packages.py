"""Quizzes in Talia packages (``content/packages``, ``docs/packages.md``).

A quiz travels ready to publish: its items as they are (prompt, answer key, points),
the pool it was generated from (so "Replace item" works in the other Talia too), and
the content its items ask about. Two things in a quiz belong to one installation, and
the package turns them into something that travels:

- **Content keys** (``symbol:12``, ``knowledge:3``, ``know:7``: what progress follows)
  become ``symbol:<uid>`` and the symbol itself goes into the package's ``symbols``
  (likewise ``knowledge_questions`` and ``know_questions``). Any other key (a card of a
  game, content the teacher no longer sees) becomes ``unlinked:<n>``, which no progress
  follows. On import a ``symbol:<uid>`` becomes the key of the symbol it was imported as
  (or used instead); one whose content was skipped becomes ``unlinked:<uid>``.
- **Pictures** (stored file names in the pool and in the items' keys) become the
  package's picture paths, and on import the stored names of the imported pictures.

The section is registered with the package format in ``QuizConfig.ready``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from django.db.models import QuerySet
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from content.models import KnowledgeQuestion, KnowQuestion, Symbol
from content.packages.schema import Reader
from content.packages.sections import Exporter, ImportContext, Item, Section, section_register
from content.packages.services import PackageExportError, package_export
from content.permissions import content_visible_to
from content.resources import ExportFile
from games.engines import quiz as engine

from . import selectors, services
from .answers import answer_text
from .models import KIND_LABELS, Quiz, QuizItem

__all__ = ["QuizSection", "quiz_package_export", "quiz_section_register"]

MAX_QUIZ_ITEMS = 500
SEED_LIMIT = 2**63 - 1
#: The content keys of a quiz that progress follows, and the package's parts they go to.
CONTENT_KEY = re.compile(r"^(symbol|knowledge|know):(\d+)$")
PACKAGE_KEY = re.compile(r"^(symbol|knowledge|know):([0-9a-f-]{36})$")
KEY_SECTIONS = {
    "symbol": ("symbols", Symbol),
    "knowledge": ("knowledge_questions", KnowledgeQuestion),
    "know": ("know_questions", KnowQuestion),
}


def _map_keys(
    item_key: Mapping[str, Any], keys: Callable[[str], str], pictures: Callable[[str], str]
) -> dict[str, Any]:
    """An item's answer key with its content keys and picture names mapped."""
    mapped = dict(item_key)
    if isinstance(mapped.get("subjects"), list):
        mapped["subjects"] = [keys(str(key)) for key in mapped["subjects"]]
    if isinstance(mapped.get("symbol_subjects"), dict):
        mapped["symbol_subjects"] = {k: keys(str(v)) for k, v in mapped["symbol_subjects"].items()}
    if isinstance(mapped.get("pictures"), dict):
        mapped["pictures"] = {k: pictures(str(v)) if v else "" for k, v in mapped["pictures"].items()}
    return mapped


def _map_options(options: Mapping[str, Any], keys: Callable[[str], str]) -> dict[str, Any]:
    """The quiz's options with the subjects the teacher set aside (replaced or dropped) mapped."""
    mapped = dict(options)
    if isinstance(mapped.get("set_aside"), list):
        mapped["set_aside"] = [keys(str(key)) for key in mapped["set_aside"]]
    return mapped


def _map_pool(
    pool: Mapping[str, Any], keys: Callable[[str], str], pictures: Callable[[str], str]
) -> dict[str, Any]:
    def entries(part: str, picture: bool = False) -> list[dict[str, Any]]:
        mapped = []
        for entry in pool.get(part, []):
            entry = {**entry, "key": keys(str(entry.get("key", "")))}
            if picture:
                entry["picture"] = pictures(str(entry.get("picture") or "")) if entry.get("picture") else ""
            if "options" in entry:  # a teacher's question: its options may have pictures
                entry["options"] = [
                    {**option, "picture": pictures(str(option["picture"])) if option.get("picture") else ""}
                    for option in entry["options"]
                ]
            mapped.append(entry)
        return mapped

    return {
        "symbols": entries("symbols", picture=True),
        "knowledge": entries("knowledge"),
        "know": entries("know"),
        "periods": list(pool.get("periods", [])),
        "themes": list(pool.get("themes", [])),
        "questions": entries("questions", picture=True),
    }


class _ExportKeys:
    """A quiz's content keys as the package writes them (one per quiz)."""

    def __init__(self, exporter: Exporter) -> None:
        self.exporter = exporter
        self.unlinked: dict[str, str] = {}

    def __call__(self, key: str) -> str:
        match = CONTENT_KEY.match(key)
        if match:
            section, model = KEY_SECTIONS[match.group(1)]
            row = content_visible_to(self.exporter.user, model.objects.filter(pk=int(match.group(2)))).first()
            if row is not None:
                return f"{match.group(1)}:{self.exporter.ref(section, row)}"
        if key not in self.unlinked:
            self.unlinked[key] = f"unlinked:{len(self.unlinked) + 1}"
        return self.unlinked[key]


def _strings(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _string_map(value: Any) -> bool:
    return isinstance(value, dict) and all(isinstance(v, str) for v in value.values())


def _objects(value: Any, *fields: str) -> bool:
    return isinstance(value, list) and all(
        isinstance(v, dict) and all(isinstance(v.get(f), str | int) for f in fields) for v in value
    )


def _item_shape_problem(kind: str, prompt: dict[str, Any], key: dict[str, Any]) -> str:
    """What is wrong with an item's shape (the pages and grading read these fields), or ""."""
    if not _strings(key.get("subjects", [])):
        return _('its key\'s "subjects" must be a list of texts.')
    for name in ("pictures", "symbol_subjects", "names"):
        if not _string_map(key.get(name, {})):
            return _('its key\'s "%(name)s" must map texts to texts.') % {"name": name}
    options = prompt.get("options", [])
    if not isinstance(options, list) or not all(
        isinstance(o, str | int) or (isinstance(o, dict) and isinstance(o.get("id"), str)) for o in options
    ):
        return _('its prompt\'s "options" must be a list of options with an "id".')
    if any(isinstance(o, dict) and not isinstance(o.get("picture", ""), str) for o in options):
        return _("its options' pictures must be texts.")
    if not isinstance(prompt.get("picture", ""), str):
        return _('its prompt\'s "picture" must be a text.')
    if not _objects(prompt.get("groups", []), "id", "label") or not _objects(
        prompt.get("symbols", []), "id", "name"
    ):
        return _('its prompt\'s "groups" and "symbols" must be lists of objects with an "id".')
    if kind not in (engine.KNOW, engine.PICTURE_NAME_TYPED) and "answer" not in key:
        return _("its key has no answer.")
    if kind == engine.CONNECT and not _string_map(key.get("answer")):
        return _("its key's answer must map each symbol to its group.")
    if kind in (engine.PERIODS, engine.KNOWLEDGE) and not isinstance(key.get("answer"), list):
        return _("its key's answer must be a list.")
    if kind == engine.KNOW and not _strings(key.get("best_answers", [])):
        return _('its key\'s "best_answers" must be a list of texts.')
    if kind == engine.PICTURE_NAME_TYPED and (
        not isinstance(key.get("name"), str) or not _strings(key.get("alternatives", []))
    ):
        return _("its key must give the name and the alternative names.")
    return ""


#: The fields of a pool's entries and what each holds (``games.engines.quiz.Pool``).
_TEXT, _TEXTS, _NUMBER, _OPTIONS = "text", "texts", "number", "options"
#: The fields of a teacher's question's options (``games.engines.quiz.OptionEntry``).
OPTION_FIELDS = {"text": str, "picture": str, "correct": bool, "date": str, "match": str}
POOL_FIELDS = {
    "symbols": {
        "key": _TEXT,
        "name": _TEXT,
        "alternatives": _TEXTS,
        "periods": _TEXTS,
        "themes": _TEXTS,
        "description": _TEXT,
        "outline": _TEXT,
        "picture": _TEXT,
        "weight": _NUMBER,
        "date": _TEXT,
    },
    "knowledge": {
        "key": _TEXT,
        "category": _TEXT,
        "front": _TEXT,
        "answer": "answer",
        "back": _TEXT,
        "weight": _NUMBER,
    },
    "know": {"key": _TEXT, "question": _TEXT, "best_answers": _TEXTS, "weight": _NUMBER},
    "periods": {"key": _TEXT, "label": _TEXT},
    "themes": {"key": _TEXT, "label": _TEXT},
    "questions": {
        "key": _TEXT,
        "kind": _TEXT,
        "text": _TEXT,
        "options": _OPTIONS,
        "picture": _TEXT,
        "explanation": _TEXT,
        "weight": _NUMBER,
    },
}


def _fits(value: Any, kind: str) -> bool:
    if kind == _TEXT:
        return isinstance(value, str)
    if kind == _TEXTS:
        return _strings(value)
    if kind == _NUMBER:
        return isinstance(value, int | float) and not isinstance(value, bool) and value > 0
    if kind == _OPTIONS:
        return isinstance(value, list) and all(
            isinstance(option, dict)
            and all(
                name in OPTION_FIELDS and isinstance(v, OPTION_FIELDS[name]) for name, v in option.items()
            )
            for option in value
        )
    return (isinstance(value, int) and not isinstance(value, bool)) or _strings(value)  # an answer


def _pool_fits(pool: dict[str, Any]) -> bool:
    """Whether ``pool`` has the parts and fields a quiz's pool has, each of its type (a
    replacement item is generated from it)."""
    if set(pool) - set(POOL_FIELDS):
        return False
    for part, fields in POOL_FIELDS.items():
        entries = pool.get(part, [])
        if not isinstance(entries, list):
            return False
        for entry in entries:
            if not isinstance(entry, dict) or set(entry) - set(fields) or "key" not in entry:
                return False
            if not all(_fits(value, fields[name]) for name, value in entry.items()):
                return False
    try:
        selectors.pool_from_dict(pool)
    except (TypeError, ValueError, KeyError, AttributeError):
        return False
    return True


def _pool_pictures(pool: dict[str, Any]) -> list[str]:
    """The pictures a pool names: its symbols', its questions' and their options'."""
    found = [str(e.get("picture")) for part in ("symbols", "questions") for e in pool.get(part, [])]
    found += [str(o.get("picture")) for e in pool.get("questions", []) for o in e.get("options", [])]
    return [name for name in found if name and name != "None"]


def _whole(value: Any, maximum: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= maximum


#: A quiz's options (``Quiz.options``) and the values each may take.
OPTION_CHECKS: dict[str, Callable[[Any], bool]] = {
    "total": lambda v: _whole(v, MAX_QUIZ_ITEMS),
    "counts": lambda v: (
        v is None
        or (isinstance(v, dict) and all(k in KIND_LABELS and _whole(n, MAX_QUIZ_ITEMS) for k, n in v.items()))
    ),
    "language": lambda v: v is None or (isinstance(v, str) and len(v) <= 12),
    "set_aside": _strings,
    "replacements": lambda v: _whole(v, 100_000),
    "time_limit_minutes": lambda v: v is None or _whole(v, 600),
    services.SELF_MARKED: lambda v: isinstance(v, bool),
}


def _options_problem(options: dict[str, Any]) -> str:
    for name, value in options.items():
        check = OPTION_CHECKS.get(name)
        if check is None:
            return _('"options" has a field quizzes do not have: %(name)s.') % {"name": name[:40]}
        if not check(value):
            return _('"options": "%(name)s" has a value quizzes do not take.') % {"name": name}
    return ""


class QuizSection(Section):
    name = "quizzes"
    model = Quiz
    noun = gettext_lazy("quiz")
    title = gettext_lazy("Quizzes")
    fields = ("uid", "title", "source", "source_description", "seed", "options", "pool", "items")

    # Export -------------------------------------------------------------------------------

    def entry(self, row: Quiz, exporter: Exporter) -> dict[str, Any]:
        keys = _ExportKeys(exporter)
        return {
            "uid": str(row.uid),
            "title": row.title,
            "source": row.source,
            "source_description": row.source_description,
            "seed": row.seed,
            "options": _map_options(row.options or {}, keys),
            "pool": _map_pool(row.pool or {}, keys, exporter.picture),
            "items": [
                {
                    "kind": item.kind,
                    "prompt": item.prompt,
                    "key": _map_keys(item.key, keys, exporter.picture),
                    "points": item.points,
                }
                for item in row.items.order_by("position")
            ],
        }

    # Import -------------------------------------------------------------------------------

    def visible(self, ctx: ImportContext) -> QuerySet[Any]:
        return Quiz.objects.filter(owner=ctx.user)

    def read(self, reader: Reader, ctx: ImportContext) -> dict[str, Any]:
        entry: dict[str, Any] = {
            "uid": reader.uid(),
            "title": reader.text("title", max_length=160, blank=False),
            "source": reader.choice("source", Quiz.Source.values),
            "source_description": reader.text("source_description", max_length=300),
            "seed": reader.integer("seed", minimum=-SEED_LIMIT, maximum=SEED_LIMIT),
            "options": reader.object("options"),
            "pool": reader.object("pool"),
            "items": [],
        }
        for index, value in enumerate(reader.list("items", max_items=MAX_QUIZ_ITEMS)):
            part = Reader(
                value, f"{reader.where}, items[{index}]", ctx.problems, ("kind", "prompt", "key", "points")
            )
            entry["items"].append(
                {
                    "kind": part.choice("kind", KIND_LABELS),
                    "prompt": part.object("prompt"),
                    "key": part.object("key"),
                    "points": part.integer("points", minimum=0, maximum=100),
                }
            )
        if not entry["items"] and "items" in reader.data:
            ctx.problems.add(reader.where, _('"items" must hold at least one item.'))
        return entry

    def label(self, entry: dict[str, Any]) -> str:
        return str(entry.get("title", ""))

    def check(self, entry: dict[str, Any], where: str, ctx: ImportContext) -> None:
        problem = _options_problem(entry["options"])
        if problem:
            ctx.problems.add(where, problem)
        if not _pool_fits(entry["pool"]):
            ctx.problems.add(
                where, _('"pool" is not the pool of a quiz: its parts or their fields are wrong.')
            )
            return
        for entry_picture in _pool_pictures(entry["pool"]):
            ctx.picture(entry_picture, where)
        for index, data in enumerate(entry["items"]):
            at = f"{where}, items[{index}]"
            problem = _item_shape_problem(data["kind"], data["prompt"], data["key"])
            if not problem:
                item = QuizItem(
                    kind=data["kind"], prompt=data["prompt"], key=data["key"], points=data["points"]
                )
                try:
                    answer_text(item)
                    engine.grade(item.as_engine_item(), None)
                except Exception:  # a hostile item must not break the pages that show it
                    problem = _("it cannot be shown or graded: its prompt and key do not fit its kind.")
            if problem:
                ctx.problems.add(at, problem)
                continue
            for path in data["key"].get("pictures", {}).values():
                if path:
                    ctx.picture(path, at)

    def by_name(self, entry: dict[str, Any], ctx: ImportContext) -> Any:
        return self.visible(ctx).filter(title=entry["title"]).order_by("pk").first()

    def link(self, row: Any) -> str:
        return reverse("quiz:detail", args=[row.pk])

    def write(self, item: Item, ctx: ImportContext, *, copy: bool) -> Quiz:
        entry = item.entry

        def keys(key: str) -> str:
            match = PACKAGE_KEY.match(key)
            if not match:
                return key
            section, _model = KEY_SECTIONS[match.group(1)]
            row = ctx.resolved.get((section, match.group(2)))
            return f"{match.group(1)}:{row.pk}" if row is not None else f"unlinked:{match.group(2)}"

        def pictures(path: str) -> str:
            return ctx.picture_store(path, "quizzes")

        items = [
            engine.Item(
                kind=data["kind"],
                prompt=data["prompt"],
                key=_map_keys(data["key"], keys, pictures),
                points=data["points"],
            )
            for data in entry["items"]
        ]
        return services.quiz_create_imported(
            owner=ctx.user,
            uid=ctx.new_uid(Quiz, item, copy=copy),
            title=entry["title"],
            source=entry["source"],
            source_description=entry["source_description"],
            seed=entry["seed"],
            options=_map_options(entry["options"], keys),
            pool=_map_pool(entry["pool"], keys, pictures),
            items=items,
        )


def quiz_package_export(*, user: Any, quiz: Quiz) -> ExportFile:
    """A package of one built quiz (the caller checked it is ``user``'s)."""
    if quiz.state != "done":
        raise PackageExportError(_("The quiz is not built yet; export it once it is."))
    return package_export(user=user, kind="quiz", title=quiz.title, rows={"quizzes": [quiz]})


def quiz_section_register() -> None:
    section_register(QuizSection(), kinds={"quiz": gettext_lazy("Quiz")})
