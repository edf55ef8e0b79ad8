"""Skill rows follow the code: ``edited_fields`` names what the owner overrode.

A row written before this migration cannot say which of its values the owner typed and
which were copied from the code by ``a2a_skills --sync``. The safe reading: a value that
differs from what the handler declares today is the owner's (kept), one that equals it
follows the code from now on. Rows of handlers not registered now keep every value.
"""

from django.db import migrations, models

import a2a_app.models

CODE_FIELDS = (
    "name",
    "description",
    "tags",
    "examples",
    "input_modes",
    "output_modes",
    "access",
    "permission",
)


def mark_edited_fields(apps, schema_editor):
    # The live registry: what the handlers declare in the code being migrated to.
    from a2a_app.skills import registry

    Skill = apps.get_model("a2a_app", "Skill")
    for row in Skill.objects.using(schema_editor.connection.alias).all():
        spec = registry.get(row.handler)
        if spec is None:
            continue
        declared = {
            f: list(v) if isinstance(v, tuple) else v
            for f, v in ((f, getattr(spec, f)) for f in CODE_FIELDS)
        }
        edited = [f for f in CODE_FIELDS if getattr(row, f) != declared[f]]
        if {"access", "permission"} & set(edited):
            edited = [f for f in CODE_FIELDS if f in {*edited, "access", "permission"}]
        row.edited_fields = edited
        row.save(update_fields=["edited_fields"])


class Migration(migrations.Migration):
    dependencies = [
        ("a2a_app", "0005_taskadmin"),
    ]

    operations = [
        migrations.AddField(
            model_name="skill",
            name="edited_fields",
            field=models.JSONField(
                blank=True,
                default=a2a_app.models.all_code_fields,
                help_text=(
                    "The fields whose value here wins over the one declared in code; the "
                    "others follow the code. Set by the admin when a field is changed."
                ),
            ),
        ),
        migrations.RunPython(mark_edited_fields, migrations.RunPython.noop, elidable=True),
    ]
