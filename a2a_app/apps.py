"""App configuration: connects signal receivers (the transition log, metrics when on),
registers checks and Celery jobs, discovers each installed app's ``a2a_skills`` module,
and has ``migrate`` make the ``Skill`` rows of the registered handlers."""

from django.apps import AppConfig
from django.db.models.signals import post_migrate


class A2AAppConfig(AppConfig):
    name = "a2a_app"
    verbose_name = "A2A agent"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Imported for their side effects: system checks, the catalogue's signal
        # receivers, the Celery jobs a worker runs.
        from a2a_app import checks, jobs, signals  # noqa: F401
        from a2a_app import logging as a2a_logging
        from a2a_app.conf import a2a_settings
        from a2a_app.metrics import checks as metrics_checks  # noqa: F401
        from a2a_app.pages import checks as page_checks  # noqa: F401
        from a2a_app.skills import catalogue, registry  # noqa: F401

        if a2a_settings.CONFORMANCE_MODE:
            from a2a_app.skills import conformance  # noqa: F401  (registers its skill)
        registry.autodiscover()
        signals.task_status_changed.connect(
            a2a_logging.log_transition, dispatch_uid="a2a_app.log_transition"
        )
        if a2a_settings.METRICS_ENABLED:
            from a2a_app import metrics

            metrics.install()
        # After our own migrations only (sender=self), like contenttypes and auth do.
        post_migrate.connect(
            catalogue.on_post_migrate, sender=self, dispatch_uid="a2a_app.skill_rows"
        )
