"""A quiz's answers in words: the preview and marking pages and the printed answer key say them alike."""

from __future__ import annotations

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from games.engines import quiz as engine

from .models import QuizItem

COLOUR_LABELS = {
    "red": gettext_lazy("red"),
    "yellow": gettext_lazy("yellow"),
    "green": gettext_lazy("green"),
    "blue": gettext_lazy("blue"),
    "white": gettext_lazy("white"),
}


def knowledge_label(category: str, value: str) -> str:
    """A Knowledge? answer as a player reads it (a colour by its name in the page's language)."""
    return str(COLOUR_LABELS.get(value, value)) if category == "colour" else value


def answer_text(item: QuizItem) -> str:
    """The right answer in words, for the preview and the answer key."""
    key, prompt = item.key, item.prompt
    if item.kind in (engine.PICTURE_NAME, engine.NAME_PICTURE, engine.TEXT_SYMBOL):
        ids = [str(o["id"]) if isinstance(o, dict) else str(o) for o in prompt.get("options", [])]
        letter = engine.option_letter(ids.index(key["answer"])) if key["answer"] in ids else key["answer"]
        return f"{letter}) {key.get('name', '')}"
    if item.kind == engine.PICTURE_NAME_TYPED:
        extra = key.get("alternatives") or []
        return key["name"] + (f" ({_('also')}: {', '.join(extra)})" if extra else "")
    if item.kind == engine.PERIODS:
        labels = {o["id"]: o["label"] for o in prompt.get("options", [])}
        return ", ".join(labels.get(p, p) for p in key["answer"])
    if item.kind == engine.KNOWLEDGE:
        return " / ".join(knowledge_label(prompt.get("category", ""), a) for a in key["answer"])
    if item.kind == engine.KNOW:
        return " / ".join(key.get("best_answers") or []) or _("(no best answer: the teacher marks)")
    if item.kind == engine.CONNECT:
        groups = {g["id"]: g["label"] for g in prompt.get("groups", [])}
        names = key.get("names", {})
        return "; ".join(f"{names.get(s, s)} → {groups.get(g, g)}" for s, g in key["answer"].items())
    if item.kind in (engine.PERIOD, engine.CHOICE):
        for index, option in enumerate(prompt.get("options", [])):
            if option["id"] == key["answer"]:
                words = option.get("text") or option.get("label") or _("(the picture)")
                return f"{engine.option_letter(index)}) {words}"
        return str(key["answer"])
    if item.kind == engine.CHRONOLOGY:
        names, dates = key.get("names", {}), key.get("dates", {})
        return "; ".join(
            f"{number}. {names.get(event, event) or _('(the picture)')} ({dates.get(event, '')})"
            for number, event in enumerate(key["answer"], start=1)
        )
    if item.kind == engine.MATCHING:
        rights = {side["id"]: (index, side["text"]) for index, side in enumerate(prompt.get("right", []))}
        names = key.get("names", {})
        pairs = []
        for left, right in key["answer"].items():
            index, text = rights.get(right, (0, right))
            pairs.append(
                f"{names.get(left, left) or _('(the picture)')} → {engine.option_letter(index)}) {text}"
            )
        return "; ".join(pairs)
    return ""


def explanation(item: QuizItem) -> str:
    """The teacher's explanation of a question of theirs, shown once the answer may be."""
    return str(item.key.get("explanation") or "")
