"""The hub's lean ingest (issue 20): a push's rows go to the append script as one argument, split there
by line; a field that could shift that split is refused before it reaches Redis."""

from __future__ import annotations

import pytest

from hub.streams import rows_blob
from hub.verify import GENESIS, PushedRow


def test_a_push_is_one_line_per_field_and_row() -> None:
    rows = [PushedRow(1, GENESIS, "a" * 64, '{"seq":1}'), PushedRow(2, "a" * 64, "b" * 64, '{"seq":2}')]
    blob = rows_blob(rows, ['{"p":1}', '{"p":2}'])
    assert blob.decode().split("\n") == ["1", GENESIS, "a" * 64, '{"seq":1}', '{"p":1}',
                                         "2", "a" * 64, "b" * 64, '{"seq":2}', '{"p":2}', ""]
    assert rows_blob([], []) == b""


@pytest.mark.parametrize("prev, text, public", [("a\nb", "{}", "{}"), (GENESIS, "{\n}", "{}"),
                                                (GENESIS, "{}", "{\n}")])
def test_a_line_break_in_a_field_is_refused_naming_the_row(prev: str, text: str, public: str) -> None:
    with pytest.raises(ValueError, match="row 7: a field holds a line break"):
        rows_blob([PushedRow(7, prev, "c" * 64, text)], [public])
