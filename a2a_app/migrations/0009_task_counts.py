"""Task counts for ListTasks' ``totalSize``, kept by triggers on the task table.

The triggers run in the transaction of every statement that inserts, deletes or changes
the caller scope, context or state of tasks, whoever sends it (the ORM, raw SQL,
``bulk_create``, COPY), so the counts are exact without any writer's help. The
migration counts the tasks already there (see :mod:`a2a_app.core.task_counts`).

PostgreSQL: inserts and deletes are counted once per statement from its transition
table (a retention sweep deleting 100,000 tasks adds a handful of rows, not 100,000
upserts); changes of state are counted per row, only when a counted column changed. A
caller-wide count goes to the writing connection's slot, ``pg_backend_pid() % 16``:
concurrent writers of one caller update different rows instead of queueing on one row
until commit. A context's count has one row (slot 0): one conversation's tasks are
rarely written concurrently. SQLite (one writer at a time): one row per key, per-row
triggers; a decrement only updates a row that exists, so that Django's test flush
(``DELETE FROM`` each table in any order) leaves no negative counts. Other databases get
no triggers: ListTasks counts with COUNT(*) there.
"""

from django.db import migrations, models

SLOTS = 16
COLUMNS = "per_context, owner, context_id, state, slot, tasks"
KEY = "per_context, owner, context_id, state, slot"

# Each counted task is +1 (or -1) on its context's row and, for a caller that is not
# anonymous, on the caller-wide row. Rows are upserted in key order, so that two
# transactions take their row locks in the same order.
_PG_UPSERT = f"""
    INSERT INTO a2a_app_taskcount AS c ({COLUMNS})
    SELECT k.per_context, k.owner, k.context_id, k.state,
           CASE WHEN k.per_context THEN 0 ELSE pg_backend_pid() % {SLOTS} END, sum(k.tasks)
    FROM ({{rows}}) AS k (per_context, owner, context_id, state, tasks)
    WHERE k.per_context OR k.owner <> ''
    GROUP BY 1, 2, 3, 4, 5 HAVING sum(k.tasks) <> 0 ORDER BY 1, 2, 3, 4, 5
    ON CONFLICT ({KEY}) DO UPDATE SET tasks = c.tasks + EXCLUDED.tasks;
"""


def _pg_both(table: str, sign: int) -> str:
    return (
        f"SELECT true, owner, context_id, state, {sign} FROM {table} "
        f"UNION ALL SELECT false, owner, '', state, {sign} FROM {table}"
    )


_PG_ROW_CHANGE = (
    "VALUES (true, OLD.owner, OLD.context_id, OLD.state, -1), "
    "(false, OLD.owner, '', OLD.state, -1), "
    "(true, NEW.owner, NEW.context_id, NEW.state, 1), "
    "(false, NEW.owner, '', NEW.state, 1)"
)

POSTGRESQL = f"""
CREATE FUNCTION a2a_task_count_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    {_PG_UPSERT.format(rows=_pg_both("new_tasks", 1))}
    RETURN NULL;
END $$;
CREATE FUNCTION a2a_task_count_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    {_PG_UPSERT.format(rows=_pg_both("old_tasks", -1))}
    RETURN NULL;
END $$;
CREATE FUNCTION a2a_task_count_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    {_PG_UPSERT.format(rows=_PG_ROW_CHANGE)}
    RETURN NULL;
END $$;
CREATE FUNCTION a2a_task_count_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM a2a_app_taskcount;
    RETURN NULL;
END $$;
CREATE TRIGGER a2a_task_count_insert AFTER INSERT ON a2a_app_task
    REFERENCING NEW TABLE AS new_tasks
    FOR EACH STATEMENT EXECUTE FUNCTION a2a_task_count_insert();
CREATE TRIGGER a2a_task_count_delete AFTER DELETE ON a2a_app_task
    REFERENCING OLD TABLE AS old_tasks
    FOR EACH STATEMENT EXECUTE FUNCTION a2a_task_count_delete();
CREATE TRIGGER a2a_task_count_update AFTER UPDATE OF owner, context_id, state ON a2a_app_task
    FOR EACH ROW WHEN (OLD.owner IS DISTINCT FROM NEW.owner
        OR OLD.context_id IS DISTINCT FROM NEW.context_id OR OLD.state IS DISTINCT FROM NEW.state)
    EXECUTE FUNCTION a2a_task_count_update();
CREATE TRIGGER a2a_task_count_truncate AFTER TRUNCATE ON a2a_app_task
    FOR EACH STATEMENT EXECUTE FUNCTION a2a_task_count_truncate();
"""

POSTGRESQL_REVERSE = """
DROP TRIGGER IF EXISTS a2a_task_count_insert ON a2a_app_task;
DROP TRIGGER IF EXISTS a2a_task_count_delete ON a2a_app_task;
DROP TRIGGER IF EXISTS a2a_task_count_update ON a2a_app_task;
DROP TRIGGER IF EXISTS a2a_task_count_truncate ON a2a_app_task;
DROP FUNCTION IF EXISTS a2a_task_count_insert();
DROP FUNCTION IF EXISTS a2a_task_count_delete();
DROP FUNCTION IF EXISTS a2a_task_count_update();
DROP FUNCTION IF EXISTS a2a_task_count_truncate();
"""

_SQLITE_ADD = f"""
    INSERT INTO a2a_app_taskcount ({COLUMNS}) VALUES (1, NEW.owner, NEW.context_id, NEW.state, 0, 1)
        ON CONFLICT ({KEY}) DO UPDATE SET tasks = tasks + 1;
    INSERT INTO a2a_app_taskcount ({COLUMNS}) SELECT 0, NEW.owner, '', NEW.state, 0, 1
        WHERE NEW.owner <> '' ON CONFLICT ({KEY}) DO UPDATE SET tasks = tasks + 1;
"""
_SQLITE_REMOVE = """
    UPDATE a2a_app_taskcount SET tasks = tasks - 1 WHERE per_context = 1 AND owner = OLD.owner
        AND context_id = OLD.context_id AND state = OLD.state AND slot = 0;
    UPDATE a2a_app_taskcount SET tasks = tasks - 1 WHERE per_context = 0 AND OLD.owner <> ''
        AND owner = OLD.owner AND context_id = '' AND state = OLD.state AND slot = 0;
"""
SQLITE = [
    f"CREATE TRIGGER a2a_task_count_insert AFTER INSERT ON a2a_app_task BEGIN {_SQLITE_ADD} END;",
    f"CREATE TRIGGER a2a_task_count_delete AFTER DELETE ON a2a_app_task BEGIN {_SQLITE_REMOVE} END;",
    "CREATE TRIGGER a2a_task_count_update AFTER UPDATE OF owner, context_id, state ON a2a_app_task "
    "WHEN OLD.owner IS NOT NEW.owner OR OLD.context_id IS NOT NEW.context_id "
    f"OR OLD.state IS NOT NEW.state BEGIN {_SQLITE_REMOVE} {_SQLITE_ADD} END;",
]
SQLITE_REVERSE = [
    "DROP TRIGGER IF EXISTS a2a_task_count_insert;",
    "DROP TRIGGER IF EXISTS a2a_task_count_delete;",
    "DROP TRIGGER IF EXISTS a2a_task_count_update;",
]


def install_triggers(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    statements = {"postgresql": [POSTGRESQL], "sqlite": SQLITE}.get(vendor, [])
    for sql in statements:
        schema_editor.execute(sql, params=None)
    if statements:
        from a2a_app.core import task_counts

        task_counts.rebuild(using=schema_editor.connection.alias)


def drop_triggers(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    for sql in {"postgresql": [POSTGRESQL_REVERSE], "sqlite": SQLITE_REVERSE}.get(vendor, []):
        schema_editor.execute(sql, params=None)


class Migration(migrations.Migration):
    dependencies = [
        ("a2a_app", "0008_activity"),
    ]

    operations = [
        migrations.CreateModel(
            name="TaskCount",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("per_context", models.BooleanField()),
                ("owner", models.CharField(blank=True, max_length=200)),
                ("context_id", models.CharField(blank=True, max_length=200)),
                ("state", models.CharField(max_length=32)),
                ("slot", models.PositiveSmallIntegerField(default=0)),
                ("tasks", models.BigIntegerField(default=0)),
            ],
            options={
                "constraints": [
                    models.UniqueConstraint(
                        fields=("per_context", "owner", "context_id", "state", "slot"),
                        name="a2a_taskcount_key",
                    )
                ],
            },
        ),
        migrations.RunPython(install_triggers, drop_triggers),
    ]
