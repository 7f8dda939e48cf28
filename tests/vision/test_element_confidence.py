"""The reader's per-stone pawn confidence (`element_confidence`, docs/formats-extensions.md): the frame-wide
`confidence.pawns` is the least sure stone's, so the turn decoder also gets each stone's own share read right
(issue 15 item 6, issue 17 item 1: per-field misread probabilities from the reader)."""
from __future__ import annotations

import pytest

from engine.board import bundled_board
from engine.errors import ObservationError
from engine.observation import parse_observation
from vision.pawnnet import DEFAULT_CONFIG, stone_confidence
from vision.tilenet import DEFAULT_CONFIG as TILE_NET
from vision.tilenet import spot_confidence

from vision_helpers import pawns_on_stones, render_case


def test_a_stone_is_stated_as_sure_as_stones_of_its_margin_are_read_right():
    cfg = DEFAULT_CONFIG
    bounds = [b for b, _share in cfg.stone_right]
    assert bounds == sorted(bounds)
    shares = [stone_confidence(cfg, m) for m in (0.0, *bounds, 0.99)]
    assert shares == sorted(shares), "a surer decision is never stated as less often right"
    assert stone_confidence(cfg, 0.0) < 0.5 < stone_confidence(cfg, 0.99) == cfg.stone_right_others
    for margin in (0.0, *bounds, 0.99):
        assert stone_confidence(cfg, margin, first_row=True) <= stone_confidence(cfg, margin)


@pytest.fixture(scope="module")
def read_case():
    # three players' pawns on one stone (as test_board_reader's crowded stone): read right, but a crowd is
    # where the net is least often right
    case = render_case(seed=5, pawns=[("c4", "black", False), ("c4", "white", True), ("c4", "grey", False)])
    return case, case.reader().read(case.image).observation


def test_the_reader_states_each_unsure_stone_and_the_share_of_the_rest(read_case):
    case, obs = read_case
    assert pawns_on_stones(obs) == pawns_on_stones(case.truth)
    got = obs.extra["element_confidence"]["pawns"]
    assert got["others"] == DEFAULT_CONFIG.stone_right_others
    board = bundled_board("nwnz")
    for stone, share in got["stones"].items():
        assert stone in board.stones and stone != "start"
        assert 0 <= share < got["others"]
    assert got["stones"]["c4"] < 0.5
    # a first-row stone is never as sure as the rest: the start crowd's pawns lean into its view
    first_row = {sid for sid, s in board.stones.items() if s.row == 1}
    assert first_row <= set(got["stones"])
    # every other path stone is as sure as the rest: a misread there costs the decoder far more than at c4
    assert len(got["stones"]) < len(board.stones) // 4


def test_the_reader_states_each_unsure_tile_spot_and_the_share_of_the_rest(read_case):
    _case, obs = read_case
    got = obs.extra["element_confidence"]["tiles"]
    assert got["others"] == TILE_NET.spot_right_others
    assert set(got["spots"]) <= set(obs.tiles)
    assert all(0 <= share < got["others"] for share in got["spots"].values())
    # a tile spot is stated by its margin as the dev stills measured it: below 0.7 about a coin toss
    assert spot_confidence(TILE_NET, 0.5) < spot_confidence(TILE_NET, 0.8) < spot_confidence(TILE_NET, 0.95)


def test_element_confidence_survives_the_json_round_trip(read_case):
    _case, obs = read_case
    again = parse_observation(obs.to_json())
    assert again.extra["element_confidence"] == obs.extra["element_confidence"]


@pytest.mark.parametrize("raw, field", [
    ({"pawns": {"others": 1.5}}, "element_confidence.pawns.others"),
    ({"pawns": {"others": 0.9, "stones": {"h1": "high"}}}, "element_confidence.pawns.stones.h1"),
    ({"pawns": {"stones": 0.4}}, "element_confidence.pawns.stones"),
    ({"pawns": [0.4]}, "element_confidence.pawns"),
    ([1], "element_confidence"),
])
def test_a_malformed_element_confidence_names_its_field(raw, field):
    data = {"format": "keltis-observation/1", "game": "keltis", "board": "nwnz", "usable": True, "reason": None,
            "pawns": [], "tiles": {}, "seats": {}, "discard_tops": {}, "element_confidence": raw}
    with pytest.raises(ObservationError) as err:
        parse_observation(data, source="frame 7")
    assert field in str(err.value) and "frame 7" in str(err.value)
