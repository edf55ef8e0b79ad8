"""A2A v0.3, served by converting to and from v1.0: :mod:`.jsonrpc` (``message/send``, ...)
and :mod:`.rest` (HTTP+JSON under ``/v1/``), with what both write alike in :mod:`.common`."""
