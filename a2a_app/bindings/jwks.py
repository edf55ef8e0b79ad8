"""The public keys that verify the signed agent card, as a JSON Web Key Set (RFC 7517).

Served at ``/.well-known/jwks.json`` (the ``jku`` of each card signature) while
``CARD_SIGNING_KEYS`` is set, and 404 otherwise. The body is made once per process;
clients revalidate with its ETag and cache it as long as the card.
"""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.utils.cache import get_conditional_response
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_safe

from a2a_app.card_signing import published_jwks, signing_enabled
from a2a_app.conf import a2a_settings


@csrf_exempt  # so that a POST gets its 405, not a CSRF 403
@require_safe
def jwks(request: HttpRequest) -> HttpResponse:
    if not signing_enabled():
        raise Http404("The agent card is not signed.")
    published = published_jwks()
    response = get_conditional_response(request, etag=published.etag) or HttpResponse(
        published.body, content_type="application/jwk-set+json"
    )
    response["ETag"] = published.etag
    response["Cache-Control"] = f"public, max-age={a2a_settings.CARD_MAX_AGE}"
    # Public keys, read by the same browser-based clients as the card.
    response["Access-Control-Allow-Origin"] = "*"
    return response
