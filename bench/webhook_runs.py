"""Worker CPU per webhook delivery, in-process: the delivery functions without Celery.

``python -m bench.webhook_runs [--configs 200] [--events 2] [--mode per-config|many]``
creates ``configs`` tasks with one push config each and ``events`` pending deliveries
per config (in the database ``DATABASE_URL`` names, a ``bench_`` one), then delivers
them to a loopback receiver running in another process and prints the CPU time of this
process per delivery. ``per-config`` calls ``deliver(config_id)`` once per config (what
one Celery task per config did); ``many`` calls ``deliver_due()`` until nothing is due
(one run per 50 configs). ``--profile`` prints cProfile's top functions as well.

Run it from a checkout whose code it should measure (it measures whatever
``a2a_app`` imports); the two modes alternated in one sitting give a ratio.
"""

from __future__ import annotations

import argparse
import cProfile
import multiprocessing
import os
import pstats
import secrets
import time


def _receive(port_out: multiprocessing.Queue) -> None:
    from bench.webhooks import start_receiver

    receiver = start_receiver()
    port_out.put(receiver.url)
    while True:
        time.sleep(3600)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--configs", type=int, default=200)
    parser.add_argument("--events", type=int, default=2)
    parser.add_argument("--mode", choices=("per-config", "many"), default="many")
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    db_url = os.environ.get("DATABASE_URL", "")
    if "/bench_" not in db_url:
        raise SystemExit("set DATABASE_URL to a database whose name starts with bench_")
    os.environ.update(
        DJANGO_SETTINGS_MODULE="bench.settings",
        A2A_CONFORMANCE="1",
        DEBUG="false",
        BENCH_COUNT_QUERIES="false",
        SECRET_KEY=os.environ.get("SECRET_KEY") or secrets.token_urlsafe(50),
        SECURE_SSL_REDIRECT="false",
    )
    import django

    django.setup()
    from django.core.management import call_command
    from django.utils import timezone

    from a2a_app.models import Delivery, PushConfig, Task, TaskEvent
    from a2a_app.push import delivery
    from a2a_app.testing import record_dispatch

    call_command("migrate", verbosity=0)
    urls: multiprocessing.Queue = multiprocessing.Queue()
    receiver = multiprocessing.Process(target=_receive, args=(urls,), daemon=True)
    receiver.start()
    url = urls.get(timeout=30)
    try:
        Task.objects.filter(context_id="bench-webhook-runs").delete()
        config_ids = []
        for n in range(args.configs):
            task = Task.objects.create(
                context_id="bench-webhook-runs",
                skill_id="bench",
                state="TASK_STATE_COMPLETED",
                status_timestamp=timezone.now(),
            )
            config = PushConfig.objects.create(task=task, config_id=f"c{n}", url=url, token="b")
            config_ids.append(config.pk)
            events = [
                TaskEvent(task=task, sequence=s, kind="status", body={"statusUpdate": {}})
                for s in range(1, args.events + 1)
            ]
            for event in TaskEvent.objects.bulk_create(events):
                Delivery.objects.create(task=task, config=config, event=event, url=url)
        expected = args.configs * args.events
        profile = cProfile.Profile() if args.profile else None
        with record_dispatch():
            cpu, wall = time.process_time(), time.perf_counter()
            if profile:
                profile.enable()
            if args.mode == "per-config":
                for config_id in config_ids:
                    delivery.deliver(config_id)
            else:
                while delivery.deliver_due() != "idle":
                    pass
            if profile:
                profile.disable()
            cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        done = Delivery.objects.filter(task__context_id="bench-webhook-runs", status="delivered")
        delivered = done.count()
        print(
            f"{args.mode}: {delivered}/{expected} delivered, "
            f"{cpu / expected * 1000:.2f} ms CPU and {wall / expected * 1000:.2f} ms wall each"
        )
        if profile:
            pstats.Stats(profile).sort_stats("cumulative").print_stats(25)
        Task.objects.filter(context_id="bench-webhook-runs").delete()
    finally:
        receiver.terminate()


if __name__ == "__main__":
    main()
