"""The demo restaurant site that shows a2a_app end to end."""
