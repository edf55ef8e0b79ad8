"""Time-ordered ids (a2a_app.ids): their layout, their order, their random part, and that
new tasks and generated contexts get them."""

from __future__ import annotations

import time
import uuid
from unittest import mock

import pytest
from django.utils import timezone

from a2a_app import ids
from a2a_app.core import contexts
from a2a_app.models import Task
from tests.support import new_task


class TestUuid7:
    def test_layout_is_rfc_9562_version_7_with_the_time_in_milliseconds(self):
        before = time.time_ns() // 1_000_000
        value = ids.uuid7()
        after = time.time_ns() // 1_000_000
        assert value.version == 7 and value.variant == uuid.RFC_4122
        assert before <= int(value.hex[:12], 16) <= after

    def test_later_ids_sort_after_earlier_ones_as_uuids_and_as_text(self):
        made = []
        for _ in range(5):
            made.append(ids.uuid7())
            time.sleep(0.002)  # a new millisecond: within one, the order is random
        assert made == sorted(made)
        assert [str(u) for u in made] == sorted(str(u) for u in made)

    def test_ids_of_one_millisecond_differ_in_all_74_random_bits(self):
        with mock.patch("a2a_app.ids.time.time_ns", return_value=1_800_000_000_000_000_000):
            made = [ids.uuid7() for _ in range(2000)]
        assert len(set(made)) == 2000
        assert len({u.hex[:12] for u in made}) == 1  # the same millisecond
        random_bits = [(u.int >> 64 & 0xFFF) << 62 | u.int & (1 << 62) - 1 for u in made]
        seen_set = seen_clear = 0
        for bits in random_bits:
            seen_set |= bits
            seen_clear |= ~bits
        full = (1 << 74) - 1
        # Every one of the 74 positions is 1 in some id and 0 in another.
        assert seen_set & full == full and seen_clear & full == full

    def test_the_time_field_wraps_rather_than_spilling_into_the_version(self):
        far = (1 << 48) + 5  # milliseconds past what 48 bits hold (year 10889)
        with mock.patch("a2a_app.ids.time.time_ns", return_value=far * 1_000_000):
            value = ids.uuid7()
        assert value.version == 7 and int(value.hex[:12], 16) == 5


class TestTimeOrderedHead:
    def test_is_the_start_of_a_version_8_uuid_with_the_time_in_seconds(self):
        before = int(time.time())
        head = ids.time_ordered_head()
        after = int(time.time())
        assert len(head) == 24 and head == head.lower()
        value = uuid.UUID(hex=head + "00000000")
        assert value.version == 8 and value.variant == uuid.RFC_4122
        assert before <= int(head[:8], 16) <= after

    def test_keeps_58_random_bits(self):
        with mock.patch("a2a_app.ids.time.time", return_value=1_800_000_000.5):
            heads = [int(ids.time_ordered_head(), 16) for _ in range(2000)]
        assert len(set(heads)) == 2000
        # The random positions: 16 bits, then (after the version) 12, then (after the
        # variant) 30.
        mask = (0xFFFF << 48) | (0xFFF << 32) | ((1 << 30) - 1)
        seen_set = seen_clear = 0
        for head in heads:
            seen_set |= head
            seen_clear |= ~head
        assert seen_set & mask == mask and seen_clear & mask == mask
        assert bin(mask).count("1") == 58
        fixed = {head & ~mask & (1 << 96) - 1 for head in heads}
        assert fixed == {1_800_000_000 << 64 | 0x8 << 44 | 0b10 << 30}


class TestWhatGetsThem:
    @pytest.mark.django_db
    def test_a_new_task_and_its_generated_context_are_time_ordered(self, rpc, install):
        install(lambda ctx: ctx.complete("ok"))
        before_ms = time.time_ns() // 1_000_000
        task = new_task(rpc, "hello", metadata={"skillId": "job"})
        after_ms = time.time_ns() // 1_000_000
        task_id, context_id = uuid.UUID(task["id"]), uuid.UUID(task["contextId"])
        assert task_id.version == 7
        assert before_ms <= int(task_id.hex[:12], 16) <= after_ms
        assert context_id.version == 8 and contexts.is_generated(task["contextId"])
        assert before_ms // 1000 <= int(context_id.hex[:8], 16) <= after_ms // 1000

    @pytest.mark.django_db
    def test_the_models_default_is_version_7(self):
        task = Task.objects.create(context_id="c", skill_id="s", status_timestamp=timezone.now())
        assert task.pk.version == 7
