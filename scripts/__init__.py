"""Developer tools run from the Makefile (not part of the a2a_app package)."""
