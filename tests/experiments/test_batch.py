"""The batch layer (issue 20): the resumable task store, mapping tasks in this process and in worker
processes, and refusing what is no Dask scheduler address."""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from parley.errors import ScenarioError
from parley.experiments import task_store
from parley.experiments.batch import (
    check_address,
    connect,
    dataclass_key,
    map_specs,
    map_tasks,
    record_from_row,
    record_row,
    run_tasks,
)
from parley.experiments.task_store import STORE_FILE, MemoryStore, TaskStore


@dataclass(frozen=True, slots=True)
class Square:
    """A task: square a number (rows hold awkward floats too)."""

    number: int

    @property
    def key(self) -> str:
        return f"square-{self.number}"


def square(task: Square) -> list[dict[str, object]]:
    value = float(task.number)
    return [{"n": task.number, "square": value * value, "nan": math.nan, "inf": -math.inf}]


def cube(number: int) -> list[dict[str, object]]:
    return [{"n": number, "cube": number**3}]


def _store(directory: Path, **config: object) -> TaskStore:
    return TaskStore(directory, experiment="squares", config=config or {"runs": 3})


def _lines(store: TaskStore) -> list[bytes]:
    return store.path.read_bytes().splitlines(keepends=True)


def _keys(store: TaskStore) -> list[str]:
    return [json.loads(line)["key"] for line in _lines(store)[1:]]


# -- the store ------------------------------------------------------------------------------------------


def test_a_store_keeps_rows_exactly_and_as_strict_json(tmp_path: Path) -> None:
    store = _store(tmp_path)
    assert store.recover() == set()
    store.store([("a", square(Square(3))), ("b", [])])
    assert store.recover() == {"a", "b"}
    (row,) = store.results({"a"})["a"]
    assert row["square"] == 9.0 and math.isnan(row["nan"]) and row["inf"] == -math.inf
    assert store.results({"b", "unknown"}) == {"b": []}
    for line in _lines(store):  # strict JSON: no bare NaN or Infinity
        json.loads(line, parse_constant=lambda name: pytest.fail(f"{name} in the store"))
    assert json.loads(_lines(store)[0]) == {
        "parley_batch": 1,
        "experiment": "squares",
        "config": {"runs": 3},
    }


def test_a_torn_last_line_is_dropped_and_its_task_runs_again(tmp_path: Path) -> None:
    store = _store(tmp_path)
    run_tasks([Square(n) for n in range(4)], square, store)
    whole = store.path.read_bytes()
    with store.path.open("ab") as handle:  # a crash half-way through the next write
        handle.write(b'{"key":"square-9","rows":[{"n":9,"squ')
    assert _store(tmp_path).recover() == {f"square-{n}" for n in range(4)}
    assert store.path.read_bytes() == whole  # rewritten without the torn line
    run_tasks([Square(n) for n in range(6)], square, store)
    assert sorted(_keys(store)) == [f"square-{n}" for n in range(6)]


def test_a_record_without_its_newline_counts_as_torn(tmp_path: Path) -> None:
    store = _store(tmp_path)
    store.recover()
    store.store([("a", [{"x": 1}])])
    store.path.write_bytes(store.path.read_bytes().rstrip(b"\n"))  # the newline never made it
    assert store.recover() == set()
    store.store([("a", [{"x": 2}])])
    assert store.results({"a"}) == {"a": [{"x": 2}]} and _keys(store) == ["a"]


def test_a_second_copy_of_a_task_is_ignored_then_dropped(tmp_path: Path) -> None:
    store = _store(tmp_path)
    store.recover()
    store.store([("a", [{"copy": 1}]), ("b", [{"copy": 1}])])
    store.store([("a", [{"copy": 2}])])
    assert store.results({"a", "b"}) == {"a": [{"copy": 1}], "b": [{"copy": 1}]}  # the first copy wins
    assert store.recover() == {"a", "b"}
    assert _keys(store) == ["a", "b"]


def test_a_store_of_another_configuration_is_refused_in_one_line(tmp_path: Path) -> None:
    _store(tmp_path, runs=3, split="tuning").recover()
    with pytest.raises(ScenarioError) as refused:
        _store(tmp_path, runs=5, split="tuning").recover()
    message = str(refused.value)
    assert "\n" not in message and "runs 3 (now 5)" in message and "another --store" in message
    assert "split" not in message  # only what differs
    other = TaskStore(tmp_path, experiment="cubes", config={"runs": 3, "split": "tuning"})
    with pytest.raises(ScenarioError, match="another experiment"):
        other.recover()
    assert _store(tmp_path, runs=3, split="tuning").recover() == set()  # the same one opens


def test_a_long_configuration_difference_stays_one_short_line(tmp_path: Path) -> None:
    _store(tmp_path, **{f"option{i}": "x" * 500 for i in range(10)}).recover()
    with pytest.raises(ScenarioError) as refused:
        _store(tmp_path, **{f"option{i}": "y\n" * 500 for i in range(10)}).recover()
    message = str(refused.value)
    assert "\n" not in message and len(message) < 1_000 and "and 6 more" in message


@pytest.mark.parametrize(
    "first_line",
    [b"not json\n", b'{"rows": []}\n', b"[1, 2]\n", b"\xff\xfe\x00garbage\n", b'{"parley_batch": 99}\n'],
    ids=["text", "a record", "a list", "binary", "another version"],
)
def test_a_file_that_is_no_store_is_refused_in_one_line(tmp_path: Path, first_line: bytes) -> None:
    (tmp_path / STORE_FILE).write_bytes(first_line + b'{"key":"a","rows":[]}\n')
    with pytest.raises(ScenarioError, match="is not a parley task store") as refused:
        _store(tmp_path).recover()
    assert "\n" not in str(refused.value)


def test_a_header_torn_by_a_crash_is_written_again(tmp_path: Path) -> None:
    (tmp_path / STORE_FILE).write_bytes(b'{"parley_batch":1,"experi')
    store = _store(tmp_path)
    assert store.recover() == set()
    assert json.loads(_lines(store)[0])["experiment"] == "squares"


def test_garbage_lines_are_skipped_and_their_tasks_run_again(tmp_path: Path) -> None:
    store = _store(tmp_path)
    store.recover()
    store.store([("good", [{"x": 1}])])
    garbage = [
        b"\x00\xff\xfe not utf-8\n",
        b"[" * 100_000 + b"\n",  # nested deeper than the parser allows
        b'{"key": 7, "rows": []}\n',
        b'{"key": "k", "rows": [1, 2]}\n',
        b'{"key": "k", "rows": {"a": 1}}\n',
        b"NaN\n",
        b'{"key": "bad", "rows": [{"x": NaN}]}\n',  # not strict JSON: a bare NaN
        b"\n",
    ]
    with store.path.open("ab") as handle:
        handle.writelines(garbage)
    assert store.recover() == {"good"}
    assert _keys(store) == ["good"]


def test_an_overlong_line_is_skipped_unread(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(task_store, "MAX_LINE_BYTES", 1_000)
    store = _store(tmp_path)
    store.recover()
    with store.path.open("ab") as handle:
        handle.write(b'{"key":"huge","rows":[{"text":"' + b"x" * 50_000 + b'"}]}\n')
        handle.write(b"y" * 20_000)  # and a huge torn tail with no newline at all
    store.store([("after", [{"x": 1}])])
    assert store.recover() == {"after"}
    assert store.path.stat().st_size < 1_000


@pytest.mark.parametrize(
    "key",
    [
        "plain",
        "caf\u00e9",
        "cafe\u0301",
        "\u0441ase",
        "zero\u200bwidth",
        "line\nbreak",
        "tab\tkey",
        "",
        "\u202eevil",
    ],
)
def test_any_text_is_a_key_of_its_own(tmp_path: Path, key: str) -> None:
    """Homoglyphs, zero-width and combining characters make other keys: nothing is normalised."""
    store = _store(tmp_path)
    store.recover()
    store.store([(key, [{"key": key}]), ("plain" if key != "plain" else "other", [])])
    assert key in store.recover()
    assert store.results({key}) == {key: [{"key": key}]}
    assert len(_lines(store)) == 3  # a newline in a key never splits a record


def test_two_batches_cannot_write_to_one_store_at_once(tmp_path: Path) -> None:
    store = _store(tmp_path)
    with store.writing(), pytest.raises(ScenarioError, match="another batch is writing"):
        run_tasks([Square(1)], square, _store(tmp_path))
    run_tasks([Square(1)], square, store)
    assert _keys(store) == ["square-1"]


# -- running --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("jobs", [1, 2])
def test_every_task_runs_once_and_rows_come_back_in_task_order(tmp_path: Path, jobs: int) -> None:
    tasks = [Square(n) for n in (5, 3, 9, 3, 1, 0, 7, 2, 8, 6, 4)]  # 3 twice: one key, run once
    progress: list[int] = []
    store = _store(tmp_path)
    rows = map_tasks(tasks, square, store, jobs=jobs, on_progress=progress.append)
    assert [r[0]["n"] for r in rows] == [t.number for t in tasks]
    assert sorted(_keys(store)) == sorted({t.key for t in tasks})
    assert sum(progress) == len({t.key for t in tasks})
    progress.clear()
    again = map_tasks(tasks, square, _store(tmp_path), jobs=jobs, on_progress=progress.append)
    assert progress == [10] and json.dumps(again, default=str) == json.dumps(rows, default=str)


def test_memory_and_disk_stores_give_the_same_rows(tmp_path: Path) -> None:
    tasks = [Square(n) for n in range(5)]
    in_memory = map_tasks(tasks, square)
    on_disk = map_tasks(tasks, square, _store(tmp_path))
    assert repr(in_memory) == repr(on_disk)  # NaN and -inf included, as floats
    assert MemoryStore().results({"a"}) == {}


def test_specs_without_a_key_are_keyed_by_their_fields(tmp_path: Path) -> None:
    rows = map_specs([3, 1, 2], cube, _store(tmp_path), key=str, jobs=2)
    assert [r[0]["cube"] for r in rows] == [27, 1, 8]
    assert dataclass_key(Square(4)) == "4"
    with pytest.raises(TypeError):
        dataclass_key(4)


@dataclass(frozen=True, slots=True)
class Record:
    name: str
    score: float
    pairs: tuple[tuple[str, float], ...] = ()


def test_records_round_trip_through_rows(tmp_path: Path) -> None:
    record = Record("a", math.nan, (("x", 1.5), ("y", math.inf)))
    store = _store(tmp_path)
    store.recover()
    store.store([("a", [record_row(record)])])
    (row,) = store.results({"a"})["a"]
    back = record_from_row(Record, row)
    assert back.pairs == record.pairs and math.isnan(back.score) and isinstance(back.pairs[0], tuple)
    with pytest.raises(TypeError):
        record_row(Record)


# -- the scheduler address ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "address",
    [
        "",
        "   ",
        "nonsense://127.0.0.1:8786",
        "ucx://127.0.0.1:8786",
        "tcp://[::1",
        "tcp://127.0.0.1",
        "tcp://127.0.0.1:abc",
        "tcp://127.0.0.1:99999",
        "tcp://127.0.0.1:0",
        "tcp://127.0.0.1:8786\u200b",
        "tcp://127.0.0.1:8786\n",
        "x" * 10_000,
    ],
)
def test_what_is_no_scheduler_address_is_refused_before_connecting(address: str) -> None:
    with pytest.raises(ScenarioError, match="--scheduler") as refused:
        check_address(address)
    assert "\n" not in str(refused.value).replace(repr(address), "")


def test_an_unreachable_scheduler_is_one_error() -> None:
    pytest.importorskip("distributed")
    with pytest.raises(ScenarioError, match=re.escape("cannot reach the Dask scheduler 'tcp://127.0.0.1:1'")):
        connect("tcp://127.0.0.1:1", timeout=0.5)
