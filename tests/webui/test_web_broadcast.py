"""The broadcaster: patches rebuild the tracker's snapshots; the backlog and resume rules."""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from webui.broadcast import Broadcaster, apply_patch, diff_snapshots
from webui_fakes import FakeTracker, start_game

values = st.one_of(st.integers(-5, 50), st.text(max_size=5), st.none(), st.booleans())
items = st.dictionaries(st.sampled_from(["id", "text", "seat"]), values, max_size=3)
snapshots = st.fixed_dictionaries({
    "event_id": st.integers(0, 1000), "turn": st.sampled_from(["south", "west", None]),
    "moves": st.lists(items, max_size=6), "warnings": st.lists(items, max_size=3),
    "score_history": st.lists(items, max_size=4), "game": st.one_of(st.none(), items),
}, optional={"table": items, "status": items})


@settings(max_examples=150, deadline=None)
@given(snapshots, snapshots)
def test_a_patch_turns_one_snapshot_into_the_next(old, new):
    assert apply_patch(old, diff_snapshots(old, new)) == {**new, **{k: None for k in old if k not in new}}


@settings(max_examples=60, deadline=None)
@given(snapshots, st.lists(items, min_size=1, max_size=3))
def test_growing_lists_are_sent_as_appends(old, extra):
    new = {**old, "moves": old["moves"] + extra}
    patch = diff_snapshots(old, new)
    assert patch["append"] == {"moves": extra} and "moves" not in patch["set"]


def test_an_undo_replaces_the_list():
    old = {"moves": [{"id": 1}, {"id": 2}]}
    new = {"moves": [{"id": 1}]}
    assert diff_snapshots(old, new) == {"set": {"moves": [{"id": 1}]}, "append": {}}


def test_backlog_overflow_and_resume_points():
    tracker = FakeTracker()
    start_game(tracker)
    b = Broadcaster(tracker, backlog=2, follow=False)  # driven by hand: one poll_once() per batch
    _, first_id, first_seq = b.current()
    ids = [first_id]
    for i in range(3):
        tracker.play("south", f"m{i}", {"south": 1})
        msg = b.poll_once(0.5)
        assert msg is not None and msg.after_id == ids[-1]
        ids.append(msg.id)
    # the oldest message fell out of the backlog of 2: a client there must take a snapshot
    assert b.messages_after(first_seq, 0) is None
    assert b.resume_from(ids[0]) is None
    # the two kept messages are resume points, and so is the present
    seq = b.resume_from(ids[1])
    msgs, nxt = b.messages_after(seq, 0)
    assert [m.id for m in msgs] == ids[2:]
    assert b.resume_from(ids[-1]) == nxt
    assert b.messages_after(nxt, 0.05) == ([], nxt)


def test_camera_health_is_pushed_without_an_id_and_only_when_it_changes():
    tracker = FakeTracker()
    start_game(tracker)
    health = {"state": "running", "source": {"state": "running", "error": None}}
    b = Broadcaster(tracker, follow=False, status=lambda: health)
    _, last_id, seq = b.current()
    first = b.check_status()
    assert first is not None and b"event: status" in first.payload and b"id:" not in first.payload
    assert b.check_status() is None  # unchanged: nothing new
    health = {"state": "running", "source": {"state": "lost", "error": "no frame for 3.0 s"}}
    lost = b.check_status()
    assert b'"camera":"lost"' in lost.payload and b"no frame for 3.0 s" in lost.payload
    assert b.current()[1] == last_id  # the game's event id did not move
    assert b.resume_from(last_id) == b.current()[2]  # and resuming there skips nothing of the game
    msgs, _ = b.messages_after(seq, 0)
    assert [m.seq for m in msgs] == [first.seq, lost.seq]
