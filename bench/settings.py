"""Settings of the servers under benchmark: the demo site plus a bench-only baseline app.

``DJANGO_SETTINGS_MODULE=bench.settings`` with the same environment as the site
(``DATABASE_URL``, ``A2A_CONFORMANCE=1``, ``DEBUG=false``, ...). What it adds:

* ``bench.baseline``: a bare Django view returning a JsonResponse (``/bench/json``) and
  one that parses a JSON body and inserts one row (``/bench/insert``), served by the
  same process, middleware and database as a2a_app: the baseline of every ratio.
* a rate limit on GetExtendedAgentCard (the ``rate-limited`` case);
* counters (``BENCH_COUNT_QUERIES``, on by default): every database query and every
  request of the process is counted; ``/bench/stats`` reads them (see
  ``bench.baseline.queries``).
"""

from a2a_site.settings import *  # noqa: F403
from a2a_site.settings import A2A_APP, INSTALLED_APPS, MIDDLEWARE, env

INSTALLED_APPS = [*INSTALLED_APPS, "bench.baseline"]
ROOT_URLCONF = "bench.urls"
WSGI_APPLICATION = "bench.wsgi.application"
ASGI_APPLICATION = "bench.asgi.application"

# The rate-limited case: an operation no other case calls, refused every time,
# so that its requests measure what a refused request costs.
A2A_APP = {**A2A_APP, "RATE_LIMITS": {"GetExtendedAgentCard": "0/day"}}

BENCH_COUNT_QUERIES = env.bool("BENCH_COUNT_QUERIES", default=True)
BENCH_LOG_QUERIES = env.bool("BENCH_LOG_QUERIES", default=False)
if BENCH_COUNT_QUERIES:
    MIDDLEWARE = ["bench.baseline.queries.RequestCounter", *MIDDLEWARE]
