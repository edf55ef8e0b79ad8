"""The demo site's home page: what the restaurant's agent can do and how to call it."""

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse

from a2a_app.bindings.card import base_url
from a2a_app.skills.catalogue import get_catalogue


def home(request: HttpRequest) -> HttpResponse:
    root = base_url(request)
    return render(
        request,
        "home.html",
        {
            "card_url": root + reverse("a2a_app:agent-card"),
            "jsonrpc_url": root + reverse("a2a_app:jsonrpc"),
            "skills": get_catalogue().enabled,
        },
    )
