"""``{% lti_roster school_class %}``: the class as the LMS lists it, for the class dashboard."""

from __future__ import annotations

from typing import Any

from django import template

from lms.lti.selectors import class_roster

register = template.Library()


@register.inclusion_tag("lms/lti/_roster.html", takes_context=True)
def lti_roster(context: dict[str, Any], school_class: Any) -> dict[str, Any]:
    roster = class_roster(school_class)
    return {
        "school_class": school_class,
        "roster": roster,
        "request": context.get("request"),
        "csrf_token": context.get("csrf_token"),
    }
