"""App configuration: wires signals and discovers each app's ``a2a_skills`` module."""

from django.apps import AppConfig


class A2AAppConfig(AppConfig):
    name = "a2a_app"
    verbose_name = "A2A agent"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from . import checks, registry, skills  # noqa: F401  (connect signals, register checks)
        from .conf import a2a_settings

        if a2a_settings.CONFORMANCE_MODE:
            from . import conformance  # noqa: F401  (registers the "conformance" skill)
        registry.autodiscover()
