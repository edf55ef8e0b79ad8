"""Skills declared with a Django form: fields collected across turns, read from text."""
