"""Encryption at rest for webhook secrets (push-config tokens and credentials).

Fernet from ``cryptography``; ``A2A_APP["ENCRYPTION_KEYS"]`` lists keys newest first so
they can be rotated (old ones still decrypt). Without keys, one is derived from
``SECRET_KEY``, so rotating ``SECRET_KEY`` alone makes stored secrets unreadable: set
explicit keys in production.
"""

from __future__ import annotations

import base64
import hashlib
from functools import lru_cache
from typing import Any

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from django.conf import settings
from django.core.signals import setting_changed
from django.db import models

from a2a_app.conf import a2a_settings

PREFIX = "fernet:"

#: SECRET_KEY values published in code and examples: never a production key.
PUBLIC_SECRET_KEYS = frozenset(
    {
        "insecure-demo-key-change-me-in-production",  # the demo site's default
        "change-me",  # .env.example
        "changeme",
        "secret",
        "secret-key",
    }
)


def insecure_secret_key(key: str) -> str:
    """Why ``key`` must not be a production SECRET_KEY ("" when nothing is known against it).

    Public defaults, Django's ``startproject`` keys (``django-insecure-`` prefix), and
    keys as weak as Django's own deploy check calls weak (security.W009): shorter than
    50 characters or fewer than 5 different ones.
    """
    if not key:
        return "it is empty"
    if key in PUBLIC_SECRET_KEYS or key.lower().startswith("django-insecure"):
        return "it is a published default"
    if len(key) < 50 or len(set(key)) < 5:
        return "it is shorter than 50 characters or has fewer than 5 different ones"
    return ""


def invalid_encryption_keys(keys: Any) -> list[str]:
    """What is wrong with each entry of ``ENCRYPTION_KEYS`` (empty when all are Fernet keys)."""
    if isinstance(keys, str) or not isinstance(keys, (list, tuple)):
        return ["it must be a list of Fernet keys, newest first"]
    problems = []
    for index, key in enumerate(keys):
        try:
            Fernet(key)
        except (ValueError, TypeError):
            problems.append(f"entry {index} is not a Fernet key (32 url-safe base64 bytes)")
    return problems


@lru_cache(maxsize=1)
def _fernet() -> MultiFernet:
    keys = list(a2a_settings.ENCRYPTION_KEYS or ())
    if not keys:
        digest = hashlib.sha256(b"a2a_app.crypto:" + settings.SECRET_KEY.encode()).digest()
        keys = [base64.urlsafe_b64encode(digest).decode()]
    return MultiFernet([Fernet(key) for key in keys])


def _reset(**kwargs: Any) -> None:
    _fernet.cache_clear()


setting_changed.connect(_reset)


def encrypt(value: str) -> str:
    return PREFIX + _fernet().encrypt(value.encode()).decode()


def decrypt(value: str) -> str:
    if not value.startswith(PREFIX):
        return value
    try:
        return _fernet().decrypt(value.removeprefix(PREFIX).encode()).decode()
    except InvalidToken:
        raise ValueError("cannot decrypt a stored secret: was the key changed?") from None


class EncryptedTextField(models.TextField):
    """A text column stored encrypted; empty stays empty so "not set" is visible."""

    def from_db_value(self, value: str | None, expression: Any, connection: Any) -> str | None:
        return decrypt(value) if value else value

    def get_prep_value(self, value: Any) -> Any:
        value = super().get_prep_value(value)
        return encrypt(value) if value else value
