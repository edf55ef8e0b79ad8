"""What site owners write against: the ``@skill`` registry, the handler's context and
outcomes, the catalogue of enabled skills (code plus admin rows), and message routing.
"""
