"""Skills declared as Django forms: ``@skill(..., form=SomeForm)``.

- :mod:`~a2a_app.forms.collect` collects a form's fields across the turns of a task (data
  parts, text read by the interpreter, values known in the context), validates them with
  the form and calls the handler once it is valid;
- :mod:`~a2a_app.forms.interpreters` is the pluggable text interpreter
  (``A2A_APP["INTERPRETER"]``), :mod:`~a2a_app.forms.llm` an example adapter for a
  language model;
- :mod:`~a2a_app.forms.schema` describes a form for the agent card (JSON Schema and words);
- :mod:`~a2a_app.forms.generic` builds common skills from a queryset or a ModelForm.
"""
