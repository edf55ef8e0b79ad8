"""The service layer: every A2A operation once, for every binding, with no HTTP.

Operations (``service``, ``sending``, ``streams``, ``push_configs``) take parsed requests and
a caller and return v1.0 wire results; ``updates`` is the only writer of a task;
``store`` and ``rows`` read and write the tables; ``runner`` is what a worker does;
``dispatch`` is the one way out to the background (Celery). See docs/architecture.md.
"""
