"""The demo site's URLs as deployed, plus the baseline views under /bench/.

The site's patterns are spliced in (not included) so that a2a_app's endpoints resolve
exactly as in production, one ``include`` deep; the baseline views sit in an include of
their own, first: a bare view pays for URL resolving no less and no more than a view of
a pluggable app, which is always reached through an ``include``.
"""

from django.urls import include, path

from a2a_site.urls import urlpatterns as site_urlpatterns
from bench.baseline import views

baseline_urlpatterns = [
    path("json", views.bare_json),
    path("insert", views.bare_insert),
    path("stats", views.stats),
]

urlpatterns = [path("bench/", include(baseline_urlpatterns)), *site_urlpatterns]
