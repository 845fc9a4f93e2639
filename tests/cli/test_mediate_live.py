"""`parley mediate --save DIR` writes DIR/live.jsonl while the conversation runs (for the web console's
live view) and leaves only the finished run behind."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from parley.cli.app import app
from parley.protocol.events import Event
from parley.protocol.live_log import LIVE_FILE, MAX_LIVE_BYTES, LiveLog, read_live

runner = CliRunner()


def test_a_saved_conversation_leaves_its_run_and_no_live_file(tmp_path: Path) -> None:
    target = tmp_path / "runs" / "mediations" / "m1"
    result = runner.invoke(app, ["mediate", "hmo", "--seed", "1", "--quiet", "--save", str(target)])
    assert result.exit_code == 0, result.output
    assert {p.name for p in target.iterdir()} == {"trajectory.jsonl", "metrics.json"}


def test_a_failed_conversation_leaves_no_folder(tmp_path: Path) -> None:
    target = tmp_path / "m2"
    result = runner.invoke(app, ["mediate", "hmo", "--mediator", "nope", "--save", str(target)])
    assert result.exit_code != 0 and "Traceback" not in result.output
    assert not target.exists()


def test_the_live_log_is_read_back_line_by_line(tmp_path: Path) -> None:
    log = LiveLog(tmp_path, {"case": "hmo", "seed": 3})
    events = [
        Event(seq=i, kind="utterance", round=i, party="a", data={"text": f"turn {i}"}) for i in range(3)
    ]
    for event in events:
        log.add(event)
    read = read_live(tmp_path / LIVE_FILE)
    assert read.about["case"] == "hmo" and isinstance(read.about["pid"], int)
    assert [e.data["text"] for e in read.events] == ["turn 0", "turn 1", "turn 2"] and read.skipped == 0
    with (tmp_path / LIVE_FILE).open("a", encoding="utf-8") as handle:
        handle.write('{"seq": 3, "kind": "utter')  # a line still being written: left for the next read
    assert len(read_live(tmp_path / LIVE_FILE).events) == 3
    log.close(remove=True)
    assert not (tmp_path / LIVE_FILE).exists()


def test_a_huge_or_garbled_live_file_is_read_safely(tmp_path: Path) -> None:
    path = tmp_path / LIVE_FILE
    path.write_bytes(b"\xff\xfe garbage\n" + b"[" * 100_000 + b"\n" + b"x" * (MAX_LIVE_BYTES + 10) + b"\n")
    read = read_live(path)
    assert read.events == () and read.about == {} and read.skipped == 2 and read.size <= MAX_LIVE_BYTES
