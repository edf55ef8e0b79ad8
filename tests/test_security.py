"""The card tells the truth about security, and what it declares is enforced.

The card's schemes are generated from ``AUTHENTICATION_CLASSES``; a walk over the schemes
the served card declares proves each one over both bindings (none → 401, bad → 401,
good → 200). Also: anonymous calls switched off, unknown credentials never anonymous,
CSRF with session authentication, and the guard against password guessing.
"""

from __future__ import annotations

import base64
from types import SimpleNamespace
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend
from django.test import Client, override_settings
from rest_framework import authentication, exceptions

from a2a_app.models import ApiKey, Task
from tests.conftest import user_message
from tests.support import binding_error, call_binding

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("conformance_mode")]

BINDINGS = ("jsonrpc", "rest")
API_KEY = "a2a_app.authentication.ApiKeyAuthentication"
BASIC = "a2a_app.authentication.BasicAuthentication"
BEARER = "tests.test_security.FixedBearer"
SESSION = "rest_framework.authentication.SessionAuthentication"


def with_a2a_settings(**overrides: Any):
    return override_settings(A2A_APP={**settings.A2A_APP, **overrides})


class FixedBearer(authentication.BaseAuthentication):
    """A site's own bearer class (think OAuth2), declared through the hook."""

    a2a_security_scheme = (
        "oauth",
        {"httpAuthSecurityScheme": {"scheme": "Bearer", "bearerFormat": "opaque"}},
    )
    TOKEN = "good-bearer-token"

    def authenticate(self, request):
        header = request.headers.get("Authorization", "")
        if not header.startswith("Bearer "):
            return None
        if header.removeprefix("Bearer ") != self.TOKEN:
            raise exceptions.AuthenticationFailed("Unknown bearer token")
        return get_user_model().objects.get(username="alice"), None

    def authenticate_header(self, request):
        return 'Bearer realm="a2a"'


class HostBearer(FixedBearer):
    """A bearer class that builds its card entry when asked (say, from its provider's
    metadata) and names the host the client asked in its challenge."""

    a2a_security_scheme = staticmethod(
        lambda: ("sso", {"httpAuthSecurityScheme": {"scheme": "Bearer", "bearerFormat": "JWT"}})
    )

    def authenticate_header(self, request):
        return f'Bearer realm="{request.get_host()}"'


class OfficeOnlyBackend(ModelBackend):
    """A site's authentication backend that decides by the request: sign-ins from the
    office's address only."""

    OFFICE = "192.0.2.10"

    def authenticate(self, request, username=None, password=None, **kwargs):
        if request is None or request.META.get("REMOTE_ADDR") != self.OFFICE:
            return None
        return super().authenticate(request, username, password, **kwargs)


@pytest.fixture
def alice():
    return get_user_model().objects.create_user("alice", password="alice-pw")


def card(client: Client) -> dict[str, Any]:
    return client.get("/.well-known/agent-card.json").json()


def basic(username: str, password: str) -> str:
    return "Basic " + base64.b64encode(f"{username}:{password}".encode()).decode()


def send(client, binding, headers=None, **extra):
    params = {"message": user_message("hello")}
    return call_binding(client, binding, "SendMessage", params, headers, **extra)


# --- what the card declares ---------------------------------------------------------------


class TestCardSchemes:
    def test_the_default_is_api_keys_only(self, client):
        with override_settings(A2A_APP={}):
            from a2a_app.conf import DEFAULTS

            assert DEFAULTS["AUTHENTICATION_CLASSES"] == [API_KEY]
            body = card(client)
        assert body["securitySchemes"] == {
            "apiKey": {
                "apiKeySecurityScheme": {"location": "header", "name": "X-API-Key"},
                # the v0.3 keys beside it (CARD_V03_COMPAT, the default)
                "type": "apiKey",
                "in": "header",
                "name": "X-API-Key",
            }
        }
        assert "securityRequirements" not in body and "security" not in body

    def test_one_scheme_per_class(self, client):
        classes = [
            API_KEY,
            BASIC,
            BEARER,
            SESSION,
            "rest_framework.authentication.TokenAuthentication",
        ]
        with with_a2a_settings(
            AUTHENTICATION_CLASSES=classes, API_KEY_HEADER="X-Agent-Key", CARD_V03_COMPAT=False
        ):
            body = card(client)
        assert body["securitySchemes"] == {
            "apiKey": {"apiKeySecurityScheme": {"location": "header", "name": "X-Agent-Key"}},
            "basic": {"httpAuthSecurityScheme": {"scheme": "Basic"}},
            "oauth": {"httpAuthSecurityScheme": {"scheme": "Bearer", "bearerFormat": "opaque"}},
            "token": {"httpAuthSecurityScheme": {"scheme": "Token"}},
        }

    def test_a_class_may_declare_its_scheme_with_a_callable(self, client):
        host_bearer = "tests.test_security.HostBearer"
        with with_a2a_settings(AUTHENTICATION_CLASSES=[host_bearer], CARD_V03_COMPAT=False):
            body = card(client)
        assert body["securitySchemes"] == {
            "sso": {"httpAuthSecurityScheme": {"scheme": "Bearer", "bearerFormat": "JWT"}}
        }

    def test_requirements_when_anonymous_calls_are_off(self, client):
        with with_a2a_settings(AUTHENTICATION_CLASSES=[API_KEY, BASIC], ALLOW_ANONYMOUS=False):
            body = card(client)
        assert body["securityRequirements"] == [
            {"schemes": {"apiKey": {"list": []}}},
            {"schemes": {"basic": {"list": []}}},
        ]
        assert body["security"] == [{"apiKey": []}, {"basic": []}]
        assert body["securitySchemes"]["basic"]["type"] == "http"
        assert body["securitySchemes"]["basic"]["scheme"] == "Basic"

    def test_the_owner_overrides(self, client):
        schemes = {"google": {"openIdConnectSecurityScheme": {"openIdConnectUrl": "https://x/"}}}
        requirements = [{"schemes": {"google": {"list": ["openid"]}}}]
        with with_a2a_settings(SECURITY_SCHEMES=schemes, SECURITY_REQUIREMENTS=requirements):
            body = card(client)
        assert body["securitySchemes"]["google"]["openIdConnectSecurityScheme"] == {
            "openIdConnectUrl": "https://x/"
        }
        assert body["securitySchemes"]["google"]["type"] == "openIdConnect"
        assert body["securityRequirements"] == requirements
        assert body["security"] == [{"google": ["openid"]}]


def test_v03_scheme_shapes():
    from a2a_app.protocol.v03.card import scheme_to_v03

    flows = {
        "authorizationCode": {
            "authorizationUrl": "https://a",
            "tokenUrl": "https://t",
            "scopes": {"read": "r"},
            "pkceRequired": True,
        },
    }
    assert scheme_to_v03({"oauth2SecurityScheme": {"flows": flows}}) == {
        "type": "oauth2",
        "flows": {
            "authorizationCode": {
                "authorizationUrl": "https://a",
                "tokenUrl": "https://t",
                "scopes": {"read": "r"},
            }
        },
    }
    assert scheme_to_v03({"mtlsSecurityScheme": {"description": "d"}}) == {
        "type": "mutualTLS",
        "description": "d",
    }
    assert scheme_to_v03(
        {"httpAuthSecurityScheme": {"scheme": "Bearer", "bearerFormat": "JWT"}}
    ) == {
        "type": "http",
        "scheme": "Bearer",
        "bearerFormat": "JWT",
    }


# --- the card's schemes, enforced ------------------------------------------------------------


def credentials(name: str, scheme: dict[str, Any], raw_key: str) -> tuple[dict, dict]:
    """(good, bad) headers for a scheme the card declares, built from the declaration."""
    if "apiKeySecurityScheme" in scheme:
        body = scheme["apiKeySecurityScheme"]
        assert body["location"] == "header"
        return {body["name"]: raw_key}, {body["name"]: raw_key[:-3] + "xyz"}
    http = scheme["httpAuthSecurityScheme"]
    if http["scheme"] == "Basic":
        return {"Authorization": basic("alice", "alice-pw")}, {
            "Authorization": basic("alice", "wrong")
        }
    assert http["scheme"] == "Bearer", f"no credential known for scheme {name}"
    return {"Authorization": f"Bearer {FixedBearer.TOKEN}"}, {"Authorization": "Bearer nope"}


@pytest.mark.parametrize("binding", BINDINGS)
def test_every_declared_scheme_is_enforced(client, alice, binding):
    _, raw_key = ApiKey.issue(alice, "walk")
    with with_a2a_settings(
        AUTHENTICATION_CLASSES=[API_KEY, BASIC, BEARER, SESSION], ALLOW_ANONYMOUS=False
    ):
        declared = card(client)
        schemes = declared["securitySchemes"]
        required = {name for r in declared["securityRequirements"] for name in r["schemes"]}
        assert required == set(schemes) == {"apiKey", "basic", "oauth"}
        response = send(client, binding)
        binding_error(response, binding, 401, "UNAUTHENTICATED")
        assert response["WWW-Authenticate"].split(", ")[0].startswith("ApiKey")
        assert 'Basic realm="api"' in response["WWW-Authenticate"]
        assert 'Bearer realm="a2a"' in response["WWW-Authenticate"]
        for name, scheme in schemes.items():
            good, bad = credentials(name, scheme, raw_key)
            refused = send(client, binding, bad)
            binding_error(refused, binding, 401, "UNAUTHENTICATED")
            assert refused.has_header("WWW-Authenticate"), name
            accepted = send(client, binding, good)
            assert accepted.status_code == 200, (name, accepted.content)
    assert set(Task.objects.values_list("owner", flat=True)) == {f"user:{alice.pk}"}
    assert Task.objects.count() == len(schemes)


@pytest.mark.parametrize("binding", BINDINGS)
class TestAnonymous:
    def test_allowed_by_default(self, client, binding):
        assert send(client, binding).status_code == 200

    def test_refused_when_the_owner_requires_a_scheme(self, client, binding):
        requirements = [{"schemes": {"apiKey": {"list": []}}}]
        with with_a2a_settings(SECURITY_REQUIREMENTS=requirements):
            response = send(client, binding)
        binding_error(response, binding, 401, "UNAUTHENTICATED")
        assert Task.objects.count() == 0

    def test_refused_before_the_params_are_read(self, client, binding):
        with with_a2a_settings(ALLOW_ANONYMOUS=False):
            response = call_binding(client, binding, "SendMessage", {"message": "not one"})
        binding_error(response, binding, 401, "UNAUTHENTICATED")
        if binding == "jsonrpc":
            assert response.json()["id"] == 7  # the request's id, not null

    @pytest.mark.parametrize(
        "authorization", ["Bearer unknown-token", "Token abc", "Digest x=1", "Bearer a2a_x"]
    )
    def test_unknown_credentials_are_never_anonymous(self, client, binding, authorization):
        response = send(client, binding, {"Authorization": authorization})
        binding_error(response, binding, 401, "UNAUTHENTICATED")
        assert Task.objects.count() == 0

    def test_with_no_classes_headers_mean_nothing(self, client, binding):
        with with_a2a_settings(AUTHENTICATION_CLASSES=[]):
            assert send(client, binding, {"Authorization": "Bearer x"}).status_code == 200


@pytest.mark.parametrize("binding", BINDINGS)
class TestWhatA401Says:
    """The message says what was wrong; WWW-Authenticate offers every configured scheme,
    in order, however the refusal came about."""

    CLASSES = [API_KEY, BASIC, "tests.test_security.HostBearer"]
    EVERY_SCHEME = (
        'ApiKey realm="a2a", header="X-API-Key", Basic realm="api", Bearer realm="testserver"'
    )

    def test_an_authorization_header_no_class_reads(self, client, binding):
        with with_a2a_settings(AUTHENTICATION_CLASSES=self.CLASSES):
            response = send(client, binding, {"Authorization": "Token abc"})
        error = binding_error(response, binding, 401, "UNAUTHENTICATED")
        assert error["message"] == (
            "The Authorization header carries a credential this agent does not accept"
        )
        assert response["WWW-Authenticate"] == self.EVERY_SCHEME

    def test_a_key_that_is_not_valid(self, client, binding):
        with with_a2a_settings(AUTHENTICATION_CLASSES=self.CLASSES):
            response = send(client, binding, {"X-API-Key": "a2a_not-a-key"})
        error = binding_error(response, binding, 401, "UNAUTHENTICATED")
        # One message for unknown, expired and revoked keys; the scheme tried comes first.
        assert error["message"] == "Invalid, expired or revoked API key"
        assert response["WWW-Authenticate"] == self.EVERY_SCHEME

    def test_nothing_presented_where_credentials_are_required(self, client, binding):
        with with_a2a_settings(AUTHENTICATION_CLASSES=self.CLASSES, ALLOW_ANONYMOUS=False):
            response = send(client, binding)
        error = binding_error(response, binding, 401, "UNAUTHENTICATED")
        assert error["message"] == "Authentication required"
        assert response["WWW-Authenticate"] == self.EVERY_SCHEME

    def test_a_refusal_of_the_service_challenges_like_the_binding(self, client, binding):
        # Anonymous calls are served, but this agent makes tasks for signed-in callers only:
        # the service refuses, and the answer says how to sign in, as the binding's would.
        classes = [API_KEY, "tests.test_security.HostBearer"]
        with with_a2a_settings(AUTHENTICATION_CLASSES=classes, ANONYMOUS_TASK_CREATION=False):
            response = send(client, binding)
        error = binding_error(response, binding, 401, "UNAUTHENTICATED")
        assert error["message"] == (
            "This agent creates tasks for authenticated callers only; send credentials"
        )
        assert response["WWW-Authenticate"] == (
            'ApiKey realm="a2a", header="X-API-Key", Bearer realm="testserver"'
        )
        assert Task.objects.count() == 0


def test_basic_is_opt_in(client, alice):
    with with_a2a_settings(AUTHENTICATION_CLASSES=[API_KEY]):
        response = send(client, "jsonrpc", {"Authorization": basic("alice", "alice-pw")})
    binding_error(response, "jsonrpc", 401, "UNAUTHENTICATED")


# --- CSRF with session authentication --------------------------------------------------------


@pytest.fixture
def browser(admin_user) -> Client:
    """A logged-in admin's browser: CSRF checks on, as in real life."""
    client = Client(enforce_csrf_checks=True)
    client.force_login(admin_user)
    return client


@pytest.fixture
def sessions():
    with with_a2a_settings(AUTHENTICATION_CLASSES=[API_KEY, SESSION]):
        yield


@pytest.mark.usefixtures("sessions")
@pytest.mark.parametrize("binding", BINDINGS)
class TestCsrf:
    CROSS_SITE = {"HTTP_ORIGIN": "https://evil.example", "HTTP_REFERER": "https://evil.example/"}

    def own_task(self, browser, admin_user) -> str:
        """A task of the admin's, made the legitimate way (same origin, with the token)."""
        browser.get("/admin/")  # sets the CSRF cookie
        token = browser.cookies["csrftoken"].value
        response = send(browser, "rest", {"X-CSRFToken": token, "Origin": "http://testserver"})
        assert response.status_code == 200, response.content
        task = Task.objects.get()
        assert task.owner == f"user:{admin_user.pk}"
        return str(task.pk)

    def test_a_cross_site_post_creates_nothing(self, browser, binding):
        response = send(browser, binding, **self.CROSS_SITE)
        error = binding_error(response, binding, 403, "PERMISSION_DENIED")
        assert "CSRF" in error["message"]
        assert Task.objects.count() == 0

    def test_a_cross_site_post_cancels_and_reads_nothing(self, browser, admin_user, binding):
        task_id = self.own_task(browser, admin_user)
        browser.cookies.pop("csrftoken")
        cancel = call_binding(browser, binding, "CancelTask", {"id": task_id}, **self.CROSS_SITE)
        binding_error(cancel, binding, 403, "PERMISSION_DENIED")
        assert Task.objects.get().state != "TASK_STATE_CANCELED"
        if binding == "jsonrpc":  # reads are POSTs in JSON-RPC
            read = call_binding(browser, binding, "GetTask", {"id": task_id}, **self.CROSS_SITE)
            binding_error(read, binding, 403, "PERMISSION_DENIED")
            assert task_id not in read.content.decode()

    def test_api_keys_need_no_csrf_token(self, browser, admin_user, binding):
        _, raw = ApiKey.issue(admin_user, "agent")
        response = send(Client(enforce_csrf_checks=True), binding, {"X-API-Key": raw})
        assert response.status_code == 200, response.content


def test_rest_reads_give_other_sites_nothing_to_read(browser, admin_user, sessions):
    """A cross-site GET runs, but without CORS headers the other site cannot read it."""
    response = call_binding(browser, "rest", "ListTasks", {}, HTTP_ORIGIN="https://evil.example")
    assert not response.has_header("Access-Control-Allow-Origin")


# --- guessing passwords --------------------------------------------------------------------


@pytest.fixture
def hashes(monkeypatch) -> list[str]:
    """The passwords checked (each one a PBKDF2 run)."""
    from django.contrib.auth.hashers import PBKDF2PasswordHasher

    checked: list[str] = []
    original = PBKDF2PasswordHasher.verify

    def verify(self, password, encoded):
        checked.append(password)
        return original(self, password, encoded)

    monkeypatch.setattr(PBKDF2PasswordHasher, "verify", verify)
    return checked


@pytest.mark.parametrize("binding", BINDINGS)
class TestPasswordGuessing:
    def test_guessers_are_refused_before_hashing(self, client, alice, hashes, binding):
        with with_a2a_settings(BASIC_AUTH_MAX_FAILURES=3, BASIC_AUTH_LOCKOUT_SECONDS=120):
            for guess in ("a", "b", "c"):
                response = send(client, binding, {"Authorization": basic("alice", guess)})
                binding_error(response, binding, 401, "UNAUTHENTICATED")
            assert hashes == ["a", "b", "c"]
            for password in ("d", "alice-pw"):  # even the right one, while locked out
                response = send(client, binding, {"Authorization": basic("alice", password)})
                error = binding_error(response, binding, 429, "TOO_MANY_AUTHENTICATION_FAILURES")
                assert response["Retry-After"] == "120"
                assert error["message"]
            assert hashes == ["a", "b", "c"]
        assert Task.objects.count() == 0

    def test_per_address_as_well_as_per_user(self, client, alice, hashes, binding):
        get_user_model().objects.create_user("bob", password="bob-pw")
        with with_a2a_settings(BASIC_AUTH_MAX_FAILURES=2):
            for user in ("x1", "x2"):  # two names, same address
                send(client, binding, {"Authorization": basic(user, "pw")})
            response = send(client, binding, {"Authorization": basic("bob", "bob-pw")})
            binding_error(response, binding, 429, "TOO_MANY_AUTHENTICATION_FAILURES")
            other = Client(REMOTE_ADDR="10.0.0.9")
            assert (
                send(other, binding, {"Authorization": basic("bob", "bob-pw")}).status_code == 200
            )

    def test_a_user_name_guessed_from_many_addresses_is_locked_too(self, alice, hashes, binding):
        with with_a2a_settings(BASIC_AUTH_MAX_FAILURES=3):
            for n, guess in enumerate(("a", "b", "c")):
                guesser = Client(REMOTE_ADDR=f"198.51.100.{n}")
                response = send(guesser, binding, {"Authorization": basic("alice", guess)})
                binding_error(response, binding, 401, "UNAUTHENTICATED")
            fourth = Client(REMOTE_ADDR="198.51.100.9")
            response = send(fourth, binding, {"Authorization": basic("alice", "alice-pw")})
            error = binding_error(response, binding, 429, "TOO_MANY_AUTHENTICATION_FAILURES")
            assert error["message"].startswith("Too many failed sign-ins; try again later")
            assert response["Retry-After"] == "300"  # BASIC_AUTH_LOCKOUT_SECONDS' default
        assert hashes == ["a", "b", "c"]

    def test_the_lockout_ends_after_its_time(self, client, alice, binding, monkeypatch):
        # Django's local-memory cache reads the clock through these two modules.
        now = [1_800_000_000.0]
        clock = SimpleNamespace(time=lambda: now[0])
        monkeypatch.setattr("django.core.cache.backends.base.time", clock)
        monkeypatch.setattr("django.core.cache.backends.locmem.time", clock)
        with with_a2a_settings(BASIC_AUTH_MAX_FAILURES=2, BASIC_AUTH_LOCKOUT_SECONDS=120):
            for guess in ("a", "b"):
                send(client, binding, {"Authorization": basic("alice", guess)})
            right = {"Authorization": basic("alice", "alice-pw")}
            now[0] += 119
            binding_error(
                send(client, binding, right), binding, 429, "TOO_MANY_AUTHENTICATION_FAILURES"
            )
            now[0] += 2  # 121 s after the first failure: the window has closed
            assert send(client, binding, right).status_code == 200

    def test_the_sites_backends_see_the_request(self, alice, binding, settings):
        settings.AUTHENTICATION_BACKENDS = ["tests.test_security.OfficeOnlyBackend"]
        right = {"Authorization": basic("alice", "alice-pw")}
        office = Client(REMOTE_ADDR=OfficeOnlyBackend.OFFICE)
        assert send(office, binding, right).status_code == 200
        elsewhere = send(Client(REMOTE_ADDR="198.51.100.1"), binding, right)
        binding_error(elsewhere, binding, 401, "UNAUTHENTICATED")

    def test_successes_do_not_count(self, client, alice, binding):
        with with_a2a_settings(BASIC_AUTH_MAX_FAILURES=2):
            for _ in range(4):
                ok = send(client, binding, {"Authorization": basic("alice", "alice-pw")})
                assert ok.status_code == 200


# --- system checks ------------------------------------------------------------------------------


class Undeclared(authentication.BaseAuthentication):
    def authenticate(self, request):
        return None


@pytest.mark.parametrize(
    ("overrides", "ids"),
    [
        ({}, []),
        ({"AUTHENTICATION_CLASSES": [API_KEY, "tests.test_security.Undeclared"]}, ["a2a_app.W030"]),
        ({"AUTHENTICATION_CLASSES": [API_KEY, SESSION, BEARER]}, []),
        (
            {"AUTHENTICATION_CLASSES": ["rest_framework.authentication.BasicAuthentication"]},
            ["a2a_app.W031"],
        ),
        ({"AUTHENTICATION_CLASSES": [], "ALLOW_ANONYMOUS": False}, ["a2a_app.E030"]),
        ({"API_KEY_CACHE_SECONDS": 0}, []),
        ({"API_KEY_CACHE_SECONDS": 0.5}, []),
        ({"API_KEY_CACHE_SECONDS": -1}, ["a2a_app.E031"]),
        ({"API_KEY_CACHE_SECONDS": "5"}, ["a2a_app.E031"]),
        ({"API_KEY_CACHE_SECONDS": None}, ["a2a_app.E031"]),
    ],
)
def test_checks(overrides, ids):
    from a2a_app.checks import check_authentication

    with with_a2a_settings(**overrides):
        assert [m.id for m in check_authentication()] == ids


def test_the_official_sdk_reads_the_declared_schemes(client):
    """a2a-sdk 1.x parses the card's schemes and requirements (v0.3 keys beside them)."""
    from a2a.client.card_resolver import parse_agent_card

    with with_a2a_settings(AUTHENTICATION_CLASSES=[API_KEY, BASIC], ALLOW_ANONYMOUS=False):
        parsed = parse_agent_card(card(client))
    api_key = parsed.security_schemes["apiKey"].api_key_security_scheme
    assert (api_key.location, api_key.name) == ("header", "X-API-Key")
    assert parsed.security_schemes["basic"].http_auth_security_scheme.scheme == "Basic"
    assert [list(r.schemes) for r in parsed.security_requirements] == [["apiKey"], ["basic"]]


def test_the_openapi_document_declares_the_same_schemes(client):
    with with_a2a_settings(AUTHENTICATION_CLASSES=[API_KEY, BASIC]):
        optional = client.get("/a2a/rest/openapi.json").json()
        with with_a2a_settings(ALLOW_ANONYMOUS=False):
            required = client.get("/a2a/rest/openapi.json").json()
    schemes = {
        "apiKey": {"type": "apiKey", "in": "header", "name": "X-API-Key"},
        "basic": {"type": "http", "scheme": "Basic"},
    }
    assert optional["components"]["securitySchemes"] == schemes
    assert optional["security"] == [{}, {"apiKey": []}, {"basic": []}]
    assert required["security"] == [{"apiKey": []}, {"basic": []}]
    responses = required["paths"]["/message:send"]["post"]["responses"]
    assert {"401", "403", "429"} <= set(responses)
