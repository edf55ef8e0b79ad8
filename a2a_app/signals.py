"""Signals for site code. Each is sent after the transaction that caused it commits.

- ``task_status_changed(sender=Task, task, previous_state, state)``: a task changed state
  (also sent when a task is created, with ``previous_state=None``).
- ``artifact_added(sender=Task, task, artifact)``: a task produced an artifact
  (``artifact`` is an ``a2a_app.protocol.types.Artifact``).
- ``delivery_failed(sender=Delivery, delivery)``: a webhook delivery was given up for good.
"""

from django.dispatch import Signal

task_status_changed = Signal()
artifact_added = Signal()
delivery_failed = Signal()
