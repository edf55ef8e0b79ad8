"""The restaurant's data: dishes, tables, opening hours, reservations and catering requests.

Times are the restaurant's local time (``TIME_ZONE``); a reservation's ``start`` is an
aware datetime like every datetime in a ``USE_TZ`` project.
"""

from __future__ import annotations

import secrets
from datetime import datetime, timedelta
from typing import Any

from django.core.exceptions import ValidationError
from django.db import models
from django.utils.translation import gettext_lazy as _

#: How long a table is held for one reservation.
RESERVATION_DURATION = timedelta(hours=2)

# No 0/O, 1/I/L: references are read out on the phone.
_REFERENCE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"
REFERENCE_PREFIX = "TD-"
CATERING_PREFIX = "CT-"


def new_reference(prefix: str = REFERENCE_PREFIX) -> str:
    """A short reservation code such as ``TD-7K3Q9X`` (31^6, about 900 million codes)."""
    return prefix + "".join(secrets.choice(_REFERENCE_ALPHABET) for _ in range(6))


def new_catering_reference() -> str:
    """A catering request code such as ``CT-7K3Q9X``."""
    return new_reference(CATERING_PREFIX)


class MenuItem(models.Model):
    """A dish or drink on the menu."""

    class Category(models.TextChoices):
        # Declared in menu order: the menu is printed in this order.
        STARTER = "starter", _("Starter")
        PASTA = "pasta", _("Pasta")
        PIZZA = "pizza", _("Pizza")
        MAIN = "main", _("Main course")
        DESSERT = "dessert", _("Dessert")
        DRINK = "drink", _("Drink")

    name = models.CharField(_("name"), max_length=100, unique=True)
    name_de = models.CharField(
        _("German name"),
        max_length=100,
        blank=True,
        help_text=_("Only where the German name differs (e.g. Mineralwasser)."),
    )
    description = models.TextField(_("description"), blank=True)
    description_de = models.TextField(
        _("German description"),
        blank=True,
        help_text=_("Shown to guests who write German."),
    )
    category = models.CharField(_("category"), max_length=20, choices=Category.choices)
    price = models.DecimalField(
        _("price"), max_digits=6, decimal_places=2, help_text=_("In euros.")
    )
    allergens = models.JSONField(
        _("allergens"),
        default=list,
        blank=True,
        help_text=_('Lower-case allergen names, e.g. ["gluten", "milk", "nuts"].'),
    )
    tags = models.JSONField(
        _("tags"),
        default=list,
        blank=True,
        help_text=_(
            'Lower-case words guests search for, e.g. ["wine", "red wine", "fish", "alcohol"].'
        ),
    )
    vegetarian = models.BooleanField(_("vegetarian"), default=False)
    vegan = models.BooleanField(
        _("vegan"), default=False, help_text=_("Vegan dishes are vegetarian too.")
    )
    available = models.BooleanField(
        _("available"), default=True, help_text=_("Untick to hide it from the menu.")
    )
    order = models.PositiveIntegerField(
        _("order"), default=0, help_text=_("Position within the menu.")
    )

    class Meta:
        verbose_name_plural = _("menu items")
        ordering = ("order", "name")
        verbose_name = _("menu item")

    def __str__(self) -> str:
        return self.name

    def save(self, *args: Any, **kwargs: Any) -> None:
        # A dish marked vegan but not vegetarian would vanish from vegetarian searches.
        if self.vegan:
            self.vegetarian = True
        self.allergens = sorted({a.strip().lower() for a in self.allergens or () if a.strip()})
        self.tags = sorted({t.strip().lower() for t in self.tags or () if t.strip()})
        super().save(*args, **kwargs)

    def clean(self) -> None:
        if not isinstance(self.allergens, list) or not all(
            isinstance(a, str) for a in self.allergens
        ):
            raise ValidationError({"allergens": _("Give a list of allergen names.")})
        if not isinstance(self.tags, list) or not all(isinstance(t, str) for t in self.tags):
            raise ValidationError({"tags": _("Give a list of words.")})

    def display_name(self, lang: str = "en") -> str:
        """The name a guest writing ``lang`` reads (the Italian name unless a German one
        is set)."""
        return self.name_de if lang == "de" and self.name_de else self.name

    def display_description(self, lang: str = "en") -> str:
        return self.description_de if lang == "de" and self.description_de else self.description

    def as_dict(self, lang: str = "en") -> dict[str, Any]:
        """The dish as plain JSON, its name and description in ``lang``; the price is a
        string so no cent is lost to floats."""
        return {
            "id": self.pk,
            "name": self.display_name(lang),
            "description": self.display_description(lang),
            "category": self.category,
            "price": f"{self.price:.2f}",
            "currency": "EUR",
            "allergens": list(self.allergens),
            "vegetarian": self.vegetarian,
            "vegan": self.vegan,
            "tags": list(self.tags),
        }


class Table(models.Model):
    number = models.PositiveSmallIntegerField(_("number"), unique=True)
    seats = models.PositiveSmallIntegerField(_("seats"))

    class Meta:
        verbose_name = _("table")
        verbose_name_plural = _("tables")
        ordering = ("number",)

    def __str__(self) -> str:
        return f"Table {self.number} ({self.seats} seats)"


class OpeningHours(models.Model):
    """One opening period of a weekday; a day may have several (lunch and dinner).

    Periods end on the day they start: closing after midnight is not supported.
    """

    class Weekday(models.IntegerChoices):
        MONDAY = 0, _("Monday")
        TUESDAY = 1, _("Tuesday")
        WEDNESDAY = 2, _("Wednesday")
        THURSDAY = 3, _("Thursday")
        FRIDAY = 4, _("Friday")
        SATURDAY = 5, _("Saturday")
        SUNDAY = 6, _("Sunday")

    weekday = models.PositiveSmallIntegerField(_("weekday"), choices=Weekday.choices)
    opens = models.TimeField(_("opens"))
    closes = models.TimeField(_("closes"))

    class Meta:
        ordering = ("weekday", "opens")
        verbose_name = _("opening hours")
        verbose_name_plural = _("opening hours")
        constraints = [
            models.UniqueConstraint(
                fields=("weekday", "opens"), name="skills_openinghours_weekday_opens"
            ),
            models.CheckConstraint(
                condition=models.Q(closes__gt=models.F("opens")),
                name="skills_openinghours_closes_after_opens",
                violation_error_message=_("Closing time must be after opening time."),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.get_weekday_display()} {self.opens:%H:%M}–{self.closes:%H:%M}"


class Reservation(models.Model):
    class Status(models.TextChoices):
        CONFIRMED = "confirmed", _("Confirmed")
        CANCELLED = "cancelled", _("Cancelled")

    reference = models.CharField(
        _("reference"), max_length=12, unique=True, default=new_reference, editable=False
    )
    name = models.CharField(_("name"), max_length=200)
    contact = models.CharField(
        _("contact"), max_length=200, help_text=_("E-mail address or phone number.")
    )
    party_size = models.PositiveSmallIntegerField(_("party size"))
    start = models.DateTimeField(_("start"))
    duration = models.DurationField(_("duration"), default=RESERVATION_DURATION)
    table = models.ForeignKey(
        Table, verbose_name=_("table"), on_delete=models.PROTECT, related_name="reservations"
    )
    status = models.CharField(
        _("status"), max_length=20, choices=Status.choices, default=Status.CONFIRMED
    )
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        verbose_name = _("reservation")
        verbose_name_plural = _("reservations")
        ordering = ("start",)
        indexes = [models.Index(fields=("table", "start"), name="skills_reservation_table_start")]

    def __str__(self) -> str:
        return f"{self.reference}: {self.name}, {self.party_size}"

    @property
    def end(self) -> datetime:
        return self.start + self.duration

    def clean(self) -> None:
        if self.table_id and self.party_size and self.party_size > self.table.seats:
            raise ValidationError(
                {"table": _("This table seats only %(n)d.") % {"n": self.table.seats}}
            )


class CateringRequest(models.Model):
    """A catering order or a group too large for a table, waiting for a manager.

    Created by the ``catering-request`` skill, whose A2A task stays WORKING until a
    manager approves or declines the request in the admin (see :mod:`skills.catering`).
    """

    class Status(models.TextChoices):
        PENDING = "pending", _("Pending")
        APPROVED = "approved", _("Approved")
        DECLINED = "declined", _("Declined")
        # The agent's task had already ended (e.g. canceled) when a manager decided.
        CLOSED = "closed", _("Closed (task had ended)")

    reference = models.CharField(
        _("reference"), max_length=12, unique=True, default=new_catering_reference, editable=False
    )
    task_id = models.CharField(
        _("task id"), max_length=36, unique=True, help_text=_("The A2A task the agent waits on.")
    )
    date = models.DateField(_("date"))
    time = models.TimeField(_("time"), null=True, blank=True)
    guests = models.PositiveSmallIntegerField(_("guests"))
    name = models.CharField(_("name"), max_length=200, blank=True)
    contact = models.CharField(
        _("contact"), max_length=200, help_text=_("E-mail address or phone number.")
    )
    notes = models.TextField(
        _("notes"), blank=True, help_text=_("What the agent wrote, turn by turn.")
    )
    language = models.CharField(
        _("language"),
        max_length=2,
        choices=[("en", _("English")), ("de", _("German"))],
        default="en",
        help_text=_("The language the answer is written in."),
    )
    status = models.CharField(
        _("status"), max_length=20, choices=Status.choices, default=Status.PENDING
    )
    staff_note = models.TextField(
        _("staff note"),
        blank=True,
        help_text=_("Sent to the agent with the approval or the refusal."),
    )
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    decided_at = models.DateTimeField(_("decided at"), null=True, blank=True)

    class Meta:
        verbose_name_plural = _("catering requests")
        ordering = ("-created_at",)
        verbose_name = _("catering request")
        indexes = [models.Index(fields=("status", "date"), name="skills_catering_status_date")]

    def __str__(self) -> str:
        return f"{self.reference}: {self.guests} on {self.date:%Y-%m-%d}"


class Closure(models.Model):
    """Days the restaurant is closed although the weekly hours say open (holidays)."""

    first_day = models.DateField(_("first day"))
    last_day = models.DateField(_("last day"), help_text=_("The same day for a one-day closure."))
    reason = models.CharField(_("reason"), max_length=200, blank=True)
    reason_de = models.CharField(_("German reason"), max_length=200, blank=True)

    class Meta:
        verbose_name_plural = _("closures")
        ordering = ("first_day",)
        verbose_name = _("closure")
        constraints = [
            models.CheckConstraint(
                condition=models.Q(last_day__gte=models.F("first_day")),
                name="skills_closure_last_after_first",
                violation_error_message=_("The last day cannot be before the first day."),
            )
        ]

    def __str__(self) -> str:
        return f"{self.first_day:%Y-%m-%d}–{self.last_day:%Y-%m-%d} {self.reason}".strip()

    def reason_in(self, lang: str) -> str:
        return self.reason_de if lang == "de" and self.reason_de else self.reason


class RestaurantInfo(models.Model):
    """Where the restaurant is and how to reach it: one row, edited in the admin.

    Each text a guest reads has a German twin (``*_de``), shown to German writers when
    filled in.
    """

    address = models.TextField(_("address"))
    phone = models.CharField(_("phone"), max_length=50, blank=True)
    email = models.EmailField(_("e-mail"), blank=True)
    directions = models.TextField(_("directions"), blank=True)
    directions_de = models.TextField(_("directions (German)"), blank=True)
    parking = models.TextField(_("parking"), blank=True)
    parking_de = models.TextField(_("parking (German)"), blank=True)
    public_transport = models.TextField(_("public transport"), blank=True)
    public_transport_de = models.TextField(_("public transport (German)"), blank=True)
    accessibility = models.TextField(_("accessibility"), blank=True)
    accessibility_de = models.TextField(_("accessibility (German)"), blank=True)

    class Meta:
        verbose_name = _("restaurant information")
        verbose_name_plural = _("restaurant information")

    def __str__(self) -> str:
        return self.address.splitlines()[0] if self.address else "–"

    def text(self, topic: str, lang: str) -> str:
        """``topic``'s text ("parking", "directions"...) in ``lang``, else in English."""
        german = getattr(self, f"{topic}_de", "") if lang == "de" else ""
        return german or getattr(self, topic, "")

    @classmethod
    def current(cls) -> RestaurantInfo | None:
        """The row (the admin lets the owner keep one; the first counts)."""
        return cls.objects.order_by("pk").first()
