"""Extractors that read one kind of form field from a guest's plain text.

Each works on a :class:`~a2a_app.forms.extractors.base.Work` (the text with the spans
earlier extractors used blanked out) and blanks the span it uses in turn, so the digits
of a date are not read again as a phone number or a count.
"""
