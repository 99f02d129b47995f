"""Messages to clients: the encoder the hot path uses writes the JSON the standard library reads."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from nardy.server.ws.wire import encode

values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@given(st.dictionaries(st.text(), values, max_size=6))
def test_a_message_reads_back_as_itself(message: dict[str, object]) -> None:
    assert json.loads(encode(message)) == message


def test_int_keys_become_strings_as_with_the_standard_library() -> None:
    assert json.loads(encode({"scores": {1: 2}})) == json.loads(json.dumps({"scores": {1: 2}}))
