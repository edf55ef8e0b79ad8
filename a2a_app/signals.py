"""Signals for site code. Each is sent after the transaction that caused it commits.

- ``task_status_changed(sender=Task, task, previous_state, state)``: a task changed state
  (also sent when a task is created, with ``previous_state=None``).
- ``artifact_added(sender=Task, task, artifact)``: a task produced an artifact
  (``artifact`` is an ``a2a_app.protocol.types.Artifact``).
- ``delivery_failed(sender=Delivery, delivery)``: a webhook delivery was given up for good.

Events for observers (metrics, logs); nothing in a2a_app depends on who listens:

- ``request_handled(sender=<binding: "jsonrpc" or "rest">, operation, version, error,
  duration)``: an A2A request was answered. ``operation`` is the v1.0 method name ("" when
  the request failed before one was known), ``version`` the protocol version of the
  method called ("1.0", "0.3"), ``error`` the ``A2AError`` answered or None,
  ``duration`` seconds until the answer (for a stream: until it started).
- ``stream_opened(sender=<binding>, operation)`` / ``stream_closed(sender=<binding>,
  operation)``: an SSE answer started / ended (each opened stream is closed once).
- ``handler_finished(sender=SkillContext, skill, task_id, outcome, duration)``: a skill
  handler returned (inline or in a worker); ``outcome`` is the outcome's class name
  ("Completed", "Failed", ...) or "Canceled", ``duration`` seconds.
- ``delivery_attempted(sender=Delivery, delivery)``: one webhook POST was tried;
  ``delivery.status`` says what came of it (delivered, pending: retried later, failed:
  given up) and ``delivery.attempts`` which attempt it was. Sent as soon as the attempt
  is recorded.
- ``sweep_finished(sender=None, counts)``: the periodic sweep ran; ``counts`` maps what it
  did ("resubmitted", "recovered", "failed", "webhook_configs") to how many.
"""

from django.dispatch import Signal

task_status_changed = Signal()
artifact_added = Signal()
delivery_failed = Signal()

request_handled = Signal()
stream_opened = Signal()
stream_closed = Signal()
handler_finished = Signal()
delivery_attempted = Signal()
sweep_finished = Signal()
