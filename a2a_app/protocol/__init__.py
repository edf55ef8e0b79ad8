"""The A2A wire protocol without Django.

:mod:`.wire` reads wire JSON for every dialect; :mod:`.types` and :mod:`.params` are the
v1.0 objects and request params; :mod:`.errors`, :mod:`.jsonrpc_envelope` and
:mod:`.versions` are the errors, the JSON-RPC envelope and version negotiation;
:mod:`.v03` and :mod:`.legacy` serve v0.3 and pre-0.3 clients by converting to and from
v1.0.
"""
