"""Writing answers: compact strict JSON, with RawJSON text spliced in as it is."""

from __future__ import annotations

import json

import pytest

from a2a_app.protocol.encoding import RawJSON, decoded, dumps


def test_compact_and_unicode_kept():
    assert dumps({"a": [1, 2], "b": "çø"}) == '{"a":[1,2],"b":"çø"}'
    assert dumps({"b": "çø"}, ensure_ascii=True) == '{"b":"\\u00e7\\u00f8"}'


def test_nan_is_refused():
    with pytest.raises(ValueError):
        dumps({"x": float("nan")})


def test_other_objects_are_refused():
    with pytest.raises(TypeError, match="object is not JSON serializable"):
        dumps({"x": object()})


def test_raw_json_goes_in_as_it_is():
    page = RawJSON('[{"id": "t1", "metadata": {"k": null}}, {"id": "t2"}]')
    text = dumps({"jsonrpc": "2.0", "id": 7, "result": {"tasks": page, "totalSize": 2}})
    assert text == (
        '{"jsonrpc":"2.0","id":7,"result":{"tasks":'
        '[{"id": "t1", "metadata": {"k": null}}, {"id": "t2"}],"totalSize":2}}'
    )
    assert json.loads(text)["result"]["tasks"][0]["metadata"] == {"k": None}


def test_several_raw_values_each_in_its_place():
    text = dumps([RawJSON("1"), {"a": RawJSON('"x"')}, RawJSON("[]")])
    assert text == '[1,{"a":"x"},[]]'


def test_a_string_that_looks_like_a_placeholder_stays_a_string():
    # A client chooses the JSON-RPC id: even one shaped like a placeholder is written back
    # as the string it is, and the raw value still lands where it belongs.
    lookalike = "\x00raw 0123456789abcdef"
    text = dumps({"id": lookalike, "result": RawJSON("[1]")})
    assert json.loads(text) == {"id": lookalike, "result": [1]}


def test_decoded_reads_raw_values_anywhere():
    payload = {"tasks": RawJSON('[{"id": "t"}]'), "more": [RawJSON("2"), 3]}
    assert decoded(payload) == {"tasks": [{"id": "t"}], "more": [2, 3]}
    assert repr(RawJSON("x" * 100)).endswith("'...)")


def test_answers_with_and_without_raw_json_are_written_alike():
    from a2a_app.protocol.encoding import RawJSON, dumps

    plain = {"tasks": [{"id": "t1", "text": "Grüße"}], "totalSize": 1}
    assert dumps(plain) == '{"tasks":[{"id":"t1","text":"Grüße"}],"totalSize":1}'
    assert dumps(plain, ensure_ascii=True) == (
        '{"tasks":[{"id":"t1","text":"Gr\\u00fc\\u00dfe"}],"totalSize":1}'
    )
    raw = {"tasks": RawJSON('[{"id":"t1","text":"Grüße"}]'), "totalSize": 1}
    assert dumps(raw) == dumps(plain)
    with pytest.raises(TypeError, match="set is not JSON serializable"):
        dumps({"x": {1}})
    with pytest.raises(ValueError):
        dumps({"x": float("nan")})
