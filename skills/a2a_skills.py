"""The restaurant's A2A skills, one module per area, registered when imported here.

Discovered by ``a2a_app`` (it imports each app's ``a2a_skills`` module):

- :mod:`skills.menu_skills`: ``view-menu``;
- :mod:`skills.info_skills`: ``opening-hours``, ``location``;
- :mod:`skills.booking_skills`: ``make-reservation``, ``cancel-reservation``,
  ``change-reservation``, ``catering-request``.

The handlers only wire things together: reading input is a2a_app's (forms), the menu
filters live in :mod:`skills.menu`, the rules and the locking in :mod:`skills.booking`
and :mod:`skills.catering`, the wording in :mod:`skills.replies`.
"""

from __future__ import annotations

from . import booking_skills, info_skills, menu_skills

__all__ = ["booking_skills", "info_skills", "menu_skills"]  # imported to register their skills
