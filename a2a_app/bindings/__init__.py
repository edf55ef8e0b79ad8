"""The HTTP edge, the only code that knows JSON-RPC, HTTP+JSON, SSE and the dialects.

``operations`` is the one operation table, with each dialect's adapters; ``jsonrpc``,
``rest`` and ``rest_v03`` are the views; ``http`` is their shared plumbing and call
sequence; ``sse`` frames streams; ``card`` and ``openapi`` describe the agent.
"""
