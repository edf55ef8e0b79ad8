"""``manage.py a2a_card_keys``: make a key that signs the agent card, show the public keys.

``generate`` writes a new EC P-256 private key (PEM) and prints the
``CARD_SIGNING_KEYS`` entry that uses it; ``jwks`` prints the public keys of the
configured entries, as ``/.well-known/jwks.json`` serves them.
"""

from __future__ import annotations

import json
import os
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from a2a_app import card_signing


class Command(BaseCommand):
    help = "Generate an agent-card signing key (EC P-256), or print the public JWKS."

    def add_arguments(self, parser: CommandParser) -> None:
        actions = parser.add_subparsers(dest="action", required=True)
        generate = actions.add_parser(
            "generate", help="A new private key: PEM on stdout, or in --out (mode 0600)."
        )
        generate.add_argument("--kid", help="The key id (default: the key's RFC 7638 thumbprint).")
        generate.add_argument("--out", help="Write the PEM to this new file.")
        actions.add_parser("jwks", help="Print the public keys of CARD_SIGNING_KEYS.")

    def handle(self, *args: Any, action: str, **options: Any) -> None:
        if action == "jwks":
            try:
                keys = card_signing.jwks()
            except card_signing.SigningKeyError as exc:
                raise CommandError(str(exc)) from exc
            if not keys["keys"]:
                raise CommandError(f"{card_signing.SETTING} is empty: no key signs the card.")
            self.stdout.write(json.dumps(keys, indent=2))
            return
        key = card_signing.new_key()
        kid = options["kid"] or card_signing.thumbprint(key)
        pem = card_signing.private_pem(key)
        out = options["out"]
        if out is None:
            self.stdout.write(pem, ending="")
            source = "<the PEM above>"
        else:
            try:
                # O_EXCL: never overwrite a key that may be signing cards today.
                fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            except OSError as exc:
                raise CommandError(f"cannot create {out}: {exc.strerror}") from exc
            with os.fdopen(fd, "w") as file:
                file.write(pem)
            source = f"{card_signing.FILE_PREFIX}{os.path.abspath(out)}"
        # The hint goes to stderr, so that `generate > key.pem` writes only the key.
        entry = json.dumps({"kid": kid, "private_key": source})
        self.stderr.write(f"Add first in {card_signing.SETTING} (newest first): {entry}")
