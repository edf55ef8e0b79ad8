"""Pages for people: the agent page (what the agent does, how to connect, a console that
talks to it) and ``/llms.txt``. Opt-in: ``path("", include("a2a_app.pages.urls"))``.

Both are drawn from the public agent card as :mod:`a2a_app.bindings.card` builds it, so
they show exactly what the card shows (the same skills, names, examples and endpoints).
"""
