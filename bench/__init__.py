"""The benchmark suite of a2a_app: ``make bench`` (see docs/performance.md)."""
