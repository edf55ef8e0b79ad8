"""a2a_app: turn a Django site into an A2A (Agent2Agent) v1.0 agent.

Site code usually needs only ``a2a_app.skills.registry.skill`` and ``a2a_app.context``.
"""

__version__ = "0.1.0"
