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

from django.utils.translation import gettext_noop

from . import booking_skills, info_skills, menu_skills

__all__ = ["booking_skills", "info_skills", "menu_skills"]  # imported to register their skills

# The skills' names as a guest reads them in the router's direct replies ("Ich helfe
# Ihnen gern bei: Tisch reservieren, ..."): a2a_app translates a name with gettext, and
# marking them here keeps their German in this app's catalogue (makemessages).
SKILL_NAMES = (
    gettext_noop("View menu"),
    gettext_noop("Book a table"),
    gettext_noop("Opening hours"),
    gettext_noop("Location and directions"),
    gettext_noop("Cancel a reservation"),
    gettext_noop("Change a reservation"),
    gettext_noop("Catering and large groups"),
)
