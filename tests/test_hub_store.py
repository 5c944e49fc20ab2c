"""The hub's store on a real redis-server: idempotent by seq, contiguous, chained, verified, durable."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from hub.streams import HubStore
from hub.verify import RowError, check_row, head_valid
from tests.hub_servers import Redis
from tests.hub_tables import SimTable


@pytest.fixture(scope="module")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Redis]:
    server = Redis(tmp_path_factory.mktemp("redis"))
    server.start()
    try:
        yield server
    finally:
        server.stop()


def pushed(table: SimTable, game: str, after: int = 0) -> list[dict[str, object]]:
    return [r.to_json() for r in table.rows(game) if r.seq > after]


def test_rows_are_stored_once_in_order_and_resends_are_counted_as_duplicates(redis_server: Redis,
                                                                              tmp_path: Path) -> None:
    store = HubStore(redis_server.url)
    table = SimTable(tmp_path, seed=1)
    table.write(9)
    rows = [check_row(r) for r in pushed(table, "game-001")]
    first = store.append("t-dup", "game-001", rows[:6])
    again = store.append("t-dup", "game-001", rows[3:])  # a resend after a lost ack overlaps
    assert (first.outcome, first.top, first.added, first.duplicates) == ("ok", 6, 6, 0)
    assert (again.outcome, again.top, again.added, again.duplicates) == ("ok", 10, 4, 3)
    held = store.rows("t-dup", "game-001")
    assert [r["seq"] for r in held] == list(range(1, 11))
    assert [r["hash"] for r in held] == [r.hash for r in table.rows("game-001")]
    table.close()


def test_a_gap_or_a_broken_chain_is_refused_and_nothing_after_it_is_stored(redis_server: Redis,
                                                                           tmp_path: Path) -> None:
    store = HubStore(redis_server.url)
    table = SimTable(tmp_path, seed=2)
    table.write(5)
    rows = [check_row(r) for r in pushed(table, "game-001")]
    gap = store.append("t-gap", "game-001", [rows[0], rows[2]])
    assert (gap.outcome, gap.top, gap.added) == ("gap", 1, 1)
    other = SimTable(tmp_path / "other", seed=3)  # a valid row 2 of another chain
    other.write(3)
    foreign = check_row(pushed(other, "game-001")[1])
    chain = store.append("t-gap", "game-001", [foreign])
    assert (chain.outcome, chain.top) == ("chain", 1)
    assert store.top("t-gap", "game-001") == 1
    table.close()
    other.close()


def test_an_altered_row_or_a_forged_head_does_not_verify(tmp_path: Path) -> None:
    table = SimTable(tmp_path, seed=4)
    table.write(3)
    raw = pushed(table, "game-001")
    altered = dict(raw[2], body={"text": "blue move T1", "accepted": True})
    with pytest.raises(RowError, match="row 3: its hash does not match"):
        check_row(altered)
    with pytest.raises(RowError, match="missing field 'prev'"):
        check_row({k: v for k, v in raw[1].items() if k != "prev"})
    record = table.games[-1]
    seq, digest, sig = record._db.execute("SELECT seq, hash, signature FROM head").fetchone()
    key = record._meta("public_key")
    assert key is not None
    assert head_valid(key, seq, digest, sig)
    assert not head_valid(key, seq, raw[1]["hash"], sig)  # type: ignore[arg-type]
    other = SimTable(tmp_path / "other", seed=5)
    other_key = other.games[-1]._meta("public_key")
    assert other_key is not None and not head_valid(other_key, seq, digest, sig)
    table.close()
    other.close()


def test_acknowledged_rows_survive_a_redis_kill(tmp_path: Path) -> None:
    server = Redis(tmp_path / "redis")
    server.start()
    table = SimTable(tmp_path / "t", seed=6)
    table.write(20)
    try:
        result = HubStore(server.url).append("t-aof", "game-001", [check_row(r) for r in pushed(table, "game-001")])
        assert result.top == 21
        server.kill()  # SIGKILL: only what appendfsync always wrote survives
        server.start()
        held = HubStore(server.url).rows("t-aof", "game-001")
        assert [r["hash"] for r in held] == [r.hash for r in table.rows("game-001")]
    finally:
        server.stop()
        table.close()


def test_delayed_broadcasts_are_taken_once_and_only_when_due(redis_server: Redis) -> None:
    a, b = HubStore(redis_server.url), HubStore(redis_server.url)
    a.delay(1000.0, {"table": "1", "event": "rows", "payload": [1]})
    a.delay(2000.0, {"table": "1", "event": "rows", "payload": [2]})
    assert a.due(999.0) == []
    first, second = a.due(1500.0), b.due(1500.0)
    assert [i["payload"] for i in first] == [[1]] and second == []
    assert [i["payload"] for i in b.due(3000.0)] == [[2]]


def test_due_broadcasts_go_out_as_one_message_per_table_in_row_order() -> None:
    from hub.namespaces import coalesce

    def row(table: str, seq: int) -> dict[str, object]:
        return {"table": table, "event": "rows", "payload": [{"game": "g", "seq": seq}]}

    items = [row("1", 2), row("2", 1), row("1", 1), {"table": "1", "event": "status", "payload": {"turn": 1}},
             {"table": "1", "event": "status", "payload": {"turn": 2}}, row("1", 3)]
    out = coalesce(items)  # type: ignore[arg-type]
    assert out == [("1", "rows", [{"game": "g", "seq": s} for s in (1, 2, 3)]),
                   ("2", "rows", [{"game": "g", "seq": 1}]), ("1", "status", {"turn": 2})]


def test_each_new_signed_head_is_witnessed_once(redis_server: Redis) -> None:
    store = HubStore(redis_server.url)
    store.witness("t-w", "g", 3, "a" * 64, "s3")
    store.witness("t-w", "g", 3, "a" * 64, "s3")  # the same head again, after a reconnect
    store.witness("t-w", "g", 5, "b" * 64, "s5")
    assert [(h["seq"], h["signature"]) for h in store.heads("t-w", "g")] == [("3", "s3"), ("5", "s5")]
