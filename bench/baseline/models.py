from django.db import models
from django.utils import timezone


class Row(models.Model):
    """What the baseline insert view stores: about what a2a_app stores per message."""

    message_id = models.CharField(max_length=200)
    body = models.JSONField()
    created_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return self.message_id
