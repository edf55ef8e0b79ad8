"""The demo restaurant's tests: they run against the demo site (``a2a_site.settings``),
apart from a2a_app's own (``make test`` runs both)."""
