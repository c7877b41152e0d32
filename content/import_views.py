from django.http import HttpResponse


def import_start(request):  # placeholder, replaced by the import flow
    return HttpResponse("")
