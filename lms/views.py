"""Site pages about people: the home page; the health check for load balancers."""

from django.db import connection
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.views.decorators.cache import never_cache


def home(request: HttpRequest) -> HttpResponse:
    return render(request, "home.html")


@never_cache
def healthz(request: HttpRequest) -> JsonResponse:
    """200 when the database answers; for load balancers and `make run`'s wait."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return JsonResponse({"status": "ok"})
