"""The reservation fields, and reading them from a data part.

A client that does not want to rely on free text sends
``{"date": "YYYY-MM-DD", "time": "HH:MM", "party_size": 4, "name": ..., "contact": ...}``;
the values end up in the same shape :func:`skills.parsing.parse_reservation` produces.
"""

from __future__ import annotations

import re
from datetime import date, datetime
from typing import Any

#: In the order the guest is asked for them.
FIELDS = ("date", "time", "party_size", "name", "contact")


def parse_reservation_data(data: dict[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
    """Reservation fields from a data part, and the raw values that could not be read.

    Accepts the documented keys (``date``, ``time``, ``party_size``, ``name``,
    ``contact``) and a few spellings clients use (``partySize``, ``guests``, ``email``,
    ``phone``, ``start`` as an ISO datetime).
    """
    found: dict[str, Any] = {}
    unreadable: dict[str, str] = {}

    start = data.get("start") or data.get("datetime")
    if isinstance(start, str):
        try:
            parsed = datetime.fromisoformat(start)
        except ValueError:
            unreadable["date"] = start
        else:
            found["date"] = parsed.date().isoformat()
            found["time"] = f"{parsed:%H:%M}"

    if "date" in data:
        try:
            found["date"] = date.fromisoformat(str(data["date"]).strip()).isoformat()
        except ValueError:
            unreadable["date"] = str(data["date"])
    if "time" in data:
        match = re.fullmatch(r"(\d{1,2})[:.](\d{2})(?::\d{2})?", str(data["time"]).strip())
        if match and int(match[1]) < 24 and int(match[2]) < 60:
            found["time"] = f"{int(match[1]):02d}:{match[2]}"
        else:
            unreadable["time"] = str(data["time"])

    for key in ("party_size", "partySize", "guests", "people"):
        if key in data:
            value = data[key]
            if isinstance(value, str) and value.strip().isdigit():
                value = int(value)
            if isinstance(value, int) and not isinstance(value, bool):
                found["party_size"] = value
            else:
                unreadable["party_size"] = str(value)
            break

    if isinstance(data.get("name"), str) and data["name"].strip():
        found["name"] = data["name"].strip()
    for key in ("contact", "email", "phone"):
        if isinstance(data.get(key), str) and data[key].strip():
            found["contact"] = data[key].strip()
            break
    return found, unreadable
