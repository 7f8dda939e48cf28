"""`keltis-cam sim ...` from the command line."""
from __future__ import annotations

import contextlib
import json

import cv2
import pytest

from engine.observation import load_observation
from keltis_cam.cli import main
from camera.session import open_session


def test_sim_render_writes_a_frame_and_says_where(tmp_path, capsys):
    out = tmp_path / "f" / "frame.jpg"
    assert main(["sim", "render", "--board", "nwnz", "--seed", "3", "--size", "640x360", "--out", str(out)]) == 0
    said = capsys.readouterr().out
    assert str(out) in said and "written to" in said
    img = cv2.imread(str(out))
    assert img.shape == (360, 640, 3)
    obs = load_observation(out.with_suffix(".json"))
    assert obs.usable and obs.board == "nwnz" and len(obs.seats) == 3


def test_sim_session_card_game(tmp_path, capsys):
    out = tmp_path / "s"
    assert main(["sim", "session", "--game", "keltis-card", "--players", "2", "--seed", "2", "--size", "320x180",
                 "--max-moves", "3", "--out", str(out)]) == 0
    assert "session written to" in capsys.readouterr().out
    s = open_session(out)
    assert s.info.game == "keltis-card" and s.info.board is None and len(s.events()) == 3 + 1
    assert "final" in s.events()[-1] and set(s.events()[-1]["final"]["totals"]) == set(s.info.seats)
    # A second run into the same folder is refused unless asked to overwrite.
    assert main(["sim", "session", "--game", "keltis-card", "--players", "2", "--seed", "2", "--size", "320x180",
                 "--max-moves", "3", "--out", str(out)]) == 2
    assert "not empty" in capsys.readouterr().err


def test_sim_frames_writes_a_data_set(tmp_path, capsys):
    out = tmp_path / "d"
    assert main(["sim", "frames", "--n", "3", "--seed", "9", "--size", "320x180", "--out", str(out)]) == 0
    lines = [json.loads(x) for x in (out / "index.jsonl").read_text().splitlines()]
    assert [x["index"] for x in lines] == [0, 1, 2]
    for x in lines:
        truth = json.loads((out / x["truth"]).read_text())
        assert truth["usable"] == x["usable"]
        assert truth["render"]["calibration"]["camera"]["size"] == [320, 180]
        assert (out / x["file"]).stat().st_size > 1000


@pytest.mark.parametrize("argv, field", [
    (["sim", "render", "--size", "big"], None),
    (["sim", "render", "--progress", "1.5", "--size", "320x180"], "--progress"),
    (["sim", "session", "--players", "5", "--out", "x"], None),
    (["sim", "session", "--rules", "{oops", "--out", "x", "--size", "320x180"], "--rules"),
    (["sim", "session", "--rules", '{"no_such_rule": 1}', "--out", "x", "--size", "320x180"], "no_such_rule"),
])
def test_bad_arguments_get_a_clear_error(argv, field, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    # argparse rejects malformed values itself (SystemExit 2); the handlers return 2 with the field named.
    with pytest.raises(SystemExit) if field is None else contextlib.nullcontext() as ctx:
        code = main(argv)
    if field is None:
        assert ctx.value.code == 2
    else:
        assert code == 2 and field in capsys.readouterr().err


def test_sim_frames_view_play_area_keeps_every_card_in_the_picture(tmp_path, capsys):
    out = tmp_path / "d"
    assert main(["sim", "frames", "--n", "3", "--seed", "1809", "--size", "320x180", "--view", "play-area",
                 "--out", str(out)]) == 0
    lines = [json.loads(x) for x in (out / "index.jsonl").read_text().splitlines()]
    assert all(x["view"] == "play-area" and x["cards_in_view"] for x in lines)
    assert json.loads((out / "dataset.json").read_text())["view"] == "play-area"


def test_replay_check_compares_the_final_scores_of_a_simulated_session(tmp_path, capsys):
    """A simulated session ends its truth/events.jsonl with the scores when filming stopped, so
    `replay --check` compares the tracked totals with them (not only the moves)."""
    import json

    out = tmp_path / "s"
    assert main(["sim", "session", "--game", "keltis", "--board", "base", "--players", "2", "--seed", "4",
                 "--size", "320x180", "--max-moves", "6", "--out", str(out)]) == 0
    capsys.readouterr()
    code = main(["replay", str(out), "--observer", "truth", "--check", "--json"])
    check = json.loads(capsys.readouterr().out)["check"]
    assert code == 0 and check["ok"], check
    assert check["final_totals"]["match"] and set(check["final_totals"]["true"]) == {"south", "north"}


def test_frames_drawn_from_a_components_folder_and_a_second_art_style(tmp_path, capsys):
    """`sim components --style alt` writes another printing of the components (typeface, card colours,
    cream); `--art DIR` draws the frame's cards from a components folder's pictures: the default
    export gives the very same frame as the built-in art, the alt set other cards (and nothing else)."""
    import cv2
    import numpy as np

    from simulator.render import SPRITES

    default, alt = tmp_path / "default", tmp_path / "alt"
    assert main(["sim", "components", str(default), "--boards", "nwnz"]) == 0
    assert main(["sim", "components", str(alt), "--boards", "nwnz", "--style", "alt"]) == 0
    assert "(style alt)" in capsys.readouterr().out
    a = cv2.imread(str(default / "card-red-7.png"), cv2.IMREAD_UNCHANGED).astype(int)
    b = cv2.imread(str(alt / "card-red-7.png"), cv2.IMREAD_UNCHANGED).astype(int)
    assert a.shape == b.shape and np.abs(a - b).mean() > 5

    def render(name, *art):
        out = tmp_path / f"{name}.jpg"
        try:
            assert main(["sim", "render", "--game", "keltis-card", "--players", "2", "--seed", "5", "--size",
                         "1152x648", "--no-distractors", "--out", str(out), *art]) == 0
        finally:
            SPRITES.use_art(None)
        return cv2.imread(str(out)).astype(int), json.loads(out.with_suffix(".json").read_text())

    import json

    built_in, truth = render("built-in")
    same, _ = render("same", "--art", str(default))
    other, _ = render("other", "--art", str(alt))
    cards = np.zeros(built_in.shape[:2], np.uint8)
    for c in truth["render"]["cards"]:
        cv2.fillConvexPoly(cards, np.round(np.array(c["quad"])).astype(np.int32), 1)
    cards = cards > 0
    assert np.array_equal(built_in, same)
    assert np.abs(built_in - other)[cards].mean() > 5 and np.abs(built_in - other)[~cards].mean() < 1
    assert main(["sim", "render", "--art", str(tmp_path / "nowhere"), "--out", str(tmp_path / "x.jpg")]) == 2
