"""The baseline: the least a Django view can do, served exactly like a2a_app."""

from __future__ import annotations

import json
import os

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.csrf import csrf_exempt

from . import queries
from .models import Row


def bare_json(request: HttpRequest) -> HttpResponse:
    return JsonResponse({"ok": True, "state": "bare"})


@csrf_exempt
def bare_insert(request: HttpRequest) -> HttpResponse:
    if request.method != "POST":
        return JsonResponse({"error": "POST only"}, status=405)
    try:
        body = json.loads(request.body)
        message_id = body["messageId"]
    except (ValueError, KeyError, TypeError):
        return JsonResponse({"error": "bad request"}, status=400)
    row = Row.objects.create(message_id=message_id, body=body)
    return JsonResponse({"id": row.pk, "state": "stored"})


def stats(request: HttpRequest) -> HttpResponse:
    """The process's query and request counts (not counting this view); no query itself."""
    return JsonResponse({"pid": os.getpid(), **queries.read()})
