"""App configuration of the demo restaurant."""

from django.apps import AppConfig


class SkillsConfig(AppConfig):
    name = "skills"
    verbose_name = "Restaurant"
    # Pinned here so the app's migrations do not depend on the site's DEFAULT_AUTO_FIELD.
    default_auto_field = "django.db.models.BigAutoField"
