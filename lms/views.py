"""Site pages about people: the home page; the health check for load balancers."""

from django.db import connection
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.views.decorators.cache import never_cache

from lms.classes.selectors import homework_of


def home(request: HttpRequest) -> HttpResponse:
    """The start page; a student sees the homework waiting for them (open or due soon), so
    "homework will appear here" is never said beside homework that already has."""
    waiting = []
    user = request.user
    if user.is_authenticated and not getattr(user, "can_author", False):
        waiting = [item for item in homework_of(user) if item.state in ("due_soon", "open")]
    return render(request, "home.html", {"homework_waiting": waiting})


@never_cache
def healthz(request: HttpRequest) -> JsonResponse:
    """200 when the database answers; for load balancers and `make run`'s wait."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return JsonResponse({"status": "ok"})
