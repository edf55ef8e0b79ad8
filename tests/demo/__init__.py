"""Tests of the demo restaurant (the ``skills`` app and ``a2a_site``)."""
