"""The A2A wire protocol without Django: types, errors, the JSON-RPC envelope, versions."""
