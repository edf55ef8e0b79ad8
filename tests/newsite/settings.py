"""Settings of the minimal project: a2a_app on SQLite, as a new site would start."""

import os

SECRET_KEY = "tests-only"
DEBUG = False
ALLOWED_HOSTS = ["testserver"]
INSTALLED_APPS = [
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "rest_framework",
    "a2a_app",
]
DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": os.environ.get("TEST_PROJECT_DB", ":memory:"),
    }
}
ROOT_URLCONF = "tests.newsite.urls"
USE_TZ = True
A2A_APP = {
    "NAME": "Minimal",
    "PUSH_NOTIFICATIONS": os.environ.get("TEST_PROJECT_PUSH", "1") == "1",
}
