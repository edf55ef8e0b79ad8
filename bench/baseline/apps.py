from django.apps import AppConfig


class BaselineConfig(AppConfig):
    name = "bench.baseline"
    label = "bench_baseline"
    verbose_name = "Benchmark baseline"

    def ready(self) -> None:
        from django.conf import settings

        if getattr(settings, "BENCH_COUNT_QUERIES", False):
            from . import queries

            queries.install(log=getattr(settings, "BENCH_LOG_QUERIES", False))
