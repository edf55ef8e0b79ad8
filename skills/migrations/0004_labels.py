"""Field and model names of the demo's admin, marked for translation: no schema change."""

import datetime
import django.db.models.deletion
import skills.models
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("skills", "0003_menu"),
    ]

    operations = [
        migrations.AlterModelOptions(
            name="cateringrequest",
            options={
                "ordering": ("-created_at",),
                "verbose_name": "catering request",
                "verbose_name_plural": "catering requests",
            },
        ),
        migrations.AlterModelOptions(
            name="closure",
            options={
                "ordering": ("first_day",),
                "verbose_name": "closure",
                "verbose_name_plural": "closures",
            },
        ),
        migrations.AlterModelOptions(
            name="menuitem",
            options={
                "ordering": ("order", "name"),
                "verbose_name": "menu item",
                "verbose_name_plural": "menu items",
            },
        ),
        migrations.AlterModelOptions(
            name="reservation",
            options={
                "ordering": ("start",),
                "verbose_name": "reservation",
                "verbose_name_plural": "reservations",
            },
        ),
        migrations.AlterModelOptions(
            name="table",
            options={
                "ordering": ("number",),
                "verbose_name": "table",
                "verbose_name_plural": "tables",
            },
        ),
        migrations.AlterField(
            model_name="cateringrequest",
            name="contact",
            field=models.CharField(
                help_text="E-mail address or phone number.", max_length=200, verbose_name="contact"
            ),
        ),
        migrations.AlterField(
            model_name="cateringrequest",
            name="created_at",
            field=models.DateTimeField(auto_now_add=True, verbose_name="created at"),
        ),
        migrations.AlterField(
            model_name="cateringrequest",
            name="date",
            field=models.DateField(verbose_name="date"),
        ),
        migrations.AlterField(
            model_name="cateringrequest",
            name="decided_at",
            field=models.DateTimeField(blank=True, null=True, verbose_name="decided at"),
        ),
        migrations.AlterField(
            model_name="cateringrequest",
            name="guests",
            field=models.PositiveSmallIntegerField(verbose_name="guests"),
        ),
        migrations.AlterField(
            model_name="cateringrequest",
            name="language",
            field=models.CharField(
                choices=[("en", "English"), ("de", "German")],
                default="en",
                help_text="The language the answer is written in.",
                max_length=2,
                verbose_name="language",
            ),
        ),
        migrations.AlterField(
            model_name="cateringrequest",
            name="name",
            field=models.CharField(blank=True, max_length=200, verbose_name="name"),
        ),
        migrations.AlterField(
            model_name="cateringrequest",
            name="notes",
            field=models.TextField(
                blank=True, help_text="What the agent wrote, turn by turn.", verbose_name="notes"
            ),
        ),
        migrations.AlterField(
            model_name="cateringrequest",
            name="reference",
            field=models.CharField(
                default=skills.models.new_catering_reference,
                editable=False,
                max_length=12,
                unique=True,
                verbose_name="reference",
            ),
        ),
        migrations.AlterField(
            model_name="cateringrequest",
            name="staff_note",
            field=models.TextField(
                blank=True,
                help_text="Sent to the agent with the approval or the refusal.",
                verbose_name="staff note",
            ),
        ),
        migrations.AlterField(
            model_name="cateringrequest",
            name="status",
            field=models.CharField(
                choices=[
                    ("pending", "Pending"),
                    ("approved", "Approved"),
                    ("declined", "Declined"),
                    ("closed", "Closed (task had ended)"),
                ],
                default="pending",
                max_length=20,
                verbose_name="status",
            ),
        ),
        migrations.AlterField(
            model_name="cateringrequest",
            name="task_id",
            field=models.CharField(
                help_text="The A2A task the agent waits on.",
                max_length=36,
                unique=True,
                verbose_name="task id",
            ),
        ),
        migrations.AlterField(
            model_name="cateringrequest",
            name="time",
            field=models.TimeField(blank=True, null=True, verbose_name="time"),
        ),
        migrations.AlterField(
            model_name="menuitem",
            name="allergens",
            field=models.JSONField(
                blank=True,
                default=list,
                help_text='Lower-case allergen names, e.g. ["gluten", "milk", "nuts"].',
                verbose_name="allergens",
            ),
        ),
        migrations.AlterField(
            model_name="menuitem",
            name="available",
            field=models.BooleanField(
                default=True, help_text="Untick to hide it from the menu.", verbose_name="available"
            ),
        ),
        migrations.AlterField(
            model_name="menuitem",
            name="category",
            field=models.CharField(
                choices=[
                    ("starter", "Starter"),
                    ("pasta", "Pasta"),
                    ("pizza", "Pizza"),
                    ("main", "Main course"),
                    ("dessert", "Dessert"),
                    ("drink", "Drink"),
                ],
                max_length=20,
                verbose_name="category",
            ),
        ),
        migrations.AlterField(
            model_name="menuitem",
            name="description",
            field=models.TextField(blank=True, verbose_name="description"),
        ),
        migrations.AlterField(
            model_name="menuitem",
            name="name",
            field=models.CharField(max_length=100, unique=True, verbose_name="name"),
        ),
        migrations.AlterField(
            model_name="menuitem",
            name="order",
            field=models.PositiveIntegerField(
                default=0, help_text="Position within the menu.", verbose_name="order"
            ),
        ),
        migrations.AlterField(
            model_name="menuitem",
            name="price",
            field=models.DecimalField(
                decimal_places=2, help_text="In euros.", max_digits=6, verbose_name="price"
            ),
        ),
        migrations.AlterField(
            model_name="menuitem",
            name="tags",
            field=models.JSONField(
                blank=True,
                default=list,
                help_text='Lower-case words guests search for, e.g. ["wine", "red wine", "fish", "alcohol"].',
                verbose_name="tags",
            ),
        ),
        migrations.AlterField(
            model_name="menuitem",
            name="vegan",
            field=models.BooleanField(
                default=False, help_text="Vegan dishes are vegetarian too.", verbose_name="vegan"
            ),
        ),
        migrations.AlterField(
            model_name="menuitem",
            name="vegetarian",
            field=models.BooleanField(default=False, verbose_name="vegetarian"),
        ),
        migrations.AlterField(
            model_name="openinghours",
            name="closes",
            field=models.TimeField(verbose_name="closes"),
        ),
        migrations.AlterField(
            model_name="openinghours",
            name="opens",
            field=models.TimeField(verbose_name="opens"),
        ),
        migrations.AlterField(
            model_name="openinghours",
            name="weekday",
            field=models.PositiveSmallIntegerField(
                choices=[
                    (0, "Monday"),
                    (1, "Tuesday"),
                    (2, "Wednesday"),
                    (3, "Thursday"),
                    (4, "Friday"),
                    (5, "Saturday"),
                    (6, "Sunday"),
                ],
                verbose_name="weekday",
            ),
        ),
        migrations.AlterField(
            model_name="reservation",
            name="contact",
            field=models.CharField(
                help_text="E-mail address or phone number.", max_length=200, verbose_name="contact"
            ),
        ),
        migrations.AlterField(
            model_name="reservation",
            name="created_at",
            field=models.DateTimeField(auto_now_add=True, verbose_name="created at"),
        ),
        migrations.AlterField(
            model_name="reservation",
            name="duration",
            field=models.DurationField(
                default=datetime.timedelta(seconds=7200), verbose_name="duration"
            ),
        ),
        migrations.AlterField(
            model_name="reservation",
            name="name",
            field=models.CharField(max_length=200, verbose_name="name"),
        ),
        migrations.AlterField(
            model_name="reservation",
            name="party_size",
            field=models.PositiveSmallIntegerField(verbose_name="party size"),
        ),
        migrations.AlterField(
            model_name="reservation",
            name="reference",
            field=models.CharField(
                default=skills.models.new_reference,
                editable=False,
                max_length=12,
                unique=True,
                verbose_name="reference",
            ),
        ),
        migrations.AlterField(
            model_name="reservation",
            name="start",
            field=models.DateTimeField(verbose_name="start"),
        ),
        migrations.AlterField(
            model_name="reservation",
            name="status",
            field=models.CharField(
                choices=[("confirmed", "Confirmed"), ("cancelled", "Cancelled")],
                default="confirmed",
                max_length=20,
                verbose_name="status",
            ),
        ),
        migrations.AlterField(
            model_name="reservation",
            name="table",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.PROTECT,
                related_name="reservations",
                to="skills.table",
                verbose_name="table",
            ),
        ),
        migrations.AlterField(
            model_name="table",
            name="number",
            field=models.PositiveSmallIntegerField(unique=True, verbose_name="number"),
        ),
        migrations.AlterField(
            model_name="table",
            name="seats",
            field=models.PositiveSmallIntegerField(verbose_name="seats"),
        ),
    ]
