"""Webhooks: delivering a task's events to its push notification configs.

``delivery`` (a worker's job, in order, with retries), ``senders`` (the HTTP POST), the
SSRF guard ``ssrf`` (pure Python) and its ``policy`` from settings.
"""
