"""App configuration: connects signal receivers, registers checks and Celery jobs, and
discovers each installed app's ``a2a_skills`` module."""

from django.apps import AppConfig


class A2AAppConfig(AppConfig):
    name = "a2a_app"
    verbose_name = "A2A agent"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Imported for their side effects: system checks, the catalogue's signal
        # receivers, the Celery jobs a worker runs.
        from a2a_app import checks, jobs  # noqa: F401
        from a2a_app.conf import a2a_settings
        from a2a_app.pages import checks as page_checks  # noqa: F401
        from a2a_app.skills import catalogue, registry  # noqa: F401

        if a2a_settings.CONFORMANCE_MODE:
            from a2a_app.skills import conformance  # noqa: F401  (registers its skill)
        registry.autodiscover()
