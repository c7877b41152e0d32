"""Thin views of the content app: an author's own pictures (symbols', quiz questions'),
through the permission rules."""

from __future__ import annotations

import hashlib

from django.http import Http404, HttpRequest
from django.http.response import HttpResponseBase
from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.views.decorators.http import require_GET

from .media import file_response
from .models import QuizQuestion, QuizQuestionOption, Symbol
from .permissions import content_visible_to


def symbol_picture_url(symbol: Symbol) -> str:
    """The author's URL of ``symbol``'s picture, as uploaded.

    ``v`` changes with the stored (random) name, so a new upload is not hidden behind the
    browser's cached copy; it says nothing about the picture.
    """
    version = hashlib.sha256(symbol.picture.name.encode()).hexdigest()[:10]
    return f"{reverse('content:symbol_picture', args=[symbol.pk])}?v={version}"


@require_GET
def symbol_picture(request: HttpRequest, pk: int) -> HttpResponseBase:
    """A symbol's picture as uploaded, for those who may see the symbol in the admin
    (``content_visible_to``); everyone else, anonymous users included, gets a 404.

    Players never come here: they get the wordless copy from their game or quiz.
    """
    symbol = get_object_or_404(content_visible_to(request.user, Symbol.objects.all()), pk=pk)
    if not symbol.picture:
        raise Http404("No picture.")
    return file_response(symbol.picture.name)


def question_picture_url(obj: QuizQuestion | QuizQuestionOption) -> str:
    """The author's URL of a quiz question's picture or of one of its options' (``v`` as above)."""
    version = hashlib.sha256(obj.picture.name.encode()).hexdigest()[:10]
    if isinstance(obj, QuizQuestionOption):
        return f"{reverse('content:question_option_picture', args=[obj.pk])}?v={version}"
    return f"{reverse('content:question_picture', args=[obj.pk])}?v={version}"


@require_GET
def question_picture(request: HttpRequest, pk: int) -> HttpResponseBase:
    """A quiz question's picture, for those who may see the question (404 for the others)."""
    question = get_object_or_404(content_visible_to(request.user, QuizQuestion.objects.all()), pk=pk)
    if not question.picture:
        raise Http404("No picture.")
    return file_response(question.picture.name)


@require_GET
def question_option_picture(request: HttpRequest, pk: int) -> HttpResponseBase:
    """An option's picture, for those who may see its question (404 for the others)."""
    visible = content_visible_to(request.user, QuizQuestion.objects.all())
    option = get_object_or_404(QuizQuestionOption.objects.filter(question__in=visible), pk=pk)
    if not option.picture:
        raise Http404("No picture.")
    return file_response(option.picture.name)
