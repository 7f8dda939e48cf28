"""scripts/train_pawns.py's augmentation of pawn patches: another contrast and saturation left by the
normalisation, with the patch's difference to the art worked out again as vision.pawnnet does."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np

from vision.pawnnet import DEFAULT_CONFIG as PAWN_NET


def _train_pawns_script():
    path = Path(__file__).resolve().parents[2] / "scripts" / "train_pawns.py"
    spec = importlib.util.spec_from_file_location("train_pawns", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _patches(n=6, seed=0):
    """Pawn patches as stone_features cuts them: colour (a log) and its difference to the art, less
    the per-channel median of that difference."""
    rows = int(round((PAWN_NET.patch_back_mm + PAWN_NET.patch_front_mm) / PAWN_NET.step_mm)) + 1
    cols = int(round(2 * PAWN_NET.patch_u_mm / PAWN_NET.step_mm)) + 1
    rng = np.random.default_rng(seed)
    art = rng.normal(4.5, 0.4, (n, rows, cols, 3)).astype(np.float32)
    frame = art + rng.normal(0.1, 0.05, (n, 1, 1, 3)).astype(np.float32)
    frame[:, 8:14, 6:11] = rng.normal(5.2, 0.2, (n, 6, 5, 3))        # a pawn standing on the stone
    d = frame - art
    med = np.median(d.reshape(n, -1, 3), axis=1)[:, None, None, :]
    return np.concatenate([d - med, frame - med], axis=3).astype(np.float32)


def test_no_jitter_leaves_the_patches_as_they_are():
    jitter = _train_pawns_script().contrast_jitter
    x = _patches()
    assert np.allclose(jitter(x, np.random.default_rng(0), 0.0, 0.0), x, atol=1e-5)


def test_contrast_and_saturation_jitter_change_the_frame_not_the_art_and_keep_the_median_at_zero():
    jitter = _train_pawns_script().contrast_jitter
    x = _patches()
    out = jitter(x, np.random.default_rng(1), 0.3, 0.4)
    # the art (colour less difference) is what it was; only the frame's rendering changed
    assert np.allclose(out[..., 3:] - out[..., :3], x[..., 3:] - x[..., :3], atol=1e-4)
    # the residual white balance is taken out again: each channel's difference has median 0
    med = np.median(out[..., :3].reshape(len(x), -1, 3), axis=1)
    assert np.allclose(med, 0.0, atol=1e-5)
    # the pawn's contrast against its stone changed by patch (not one factor for all)
    def contrast(p):
        return p[:, 8:14, 6:11, 3:].mean(axis=(1, 2, 3)) - p[:, 20:, :, 3:].mean(axis=(1, 2, 3))
    ratio = contrast(out) / contrast(x)
    assert ratio.min() > 0.5 and ratio.max() < 1.5 and ratio.std() > 0.01


def test_crowded_observation_moves_pawns_together_and_keeps_each_players_pawns():
    import random
    from collections import Counter

    from simulator.games import Game

    crowded = _train_pawns_script().crowded_observation
    game = Game.new("keltis", "nwnz", 4, 11)
    obs = game.observe()   # the deal: every pawn in the start crowd, no stone crowded, no pair
    assert all(p.stone == "start" for p in obs.pawns)
    tiles = obs.tiles or {}
    stacked = pairs = 0
    for seed in range(40):
        out = crowded(obs, game.board, random.Random(seed))
        # every player keeps its big and small pawns; only the stones change
        assert Counter((p.player, p.big) for p in out.pawns) == Counter((p.player, p.big) for p in obs.pawns)
        assert out.tiles == obs.tiles and out.seats == obs.seats
        on = Counter(p.stone for p in out.pawns if p.stone != "start")
        moved = Counter(p.stone for p in out.pawns) - Counter(p.stone for p in obs.pawns)
        # pawns go onto path stones without a tile, never more than CROWD_MAX a stone
        assert all(game.board.stones[s].kind != "start" and not tiles.get(s) for s in moved)
        assert all(on[s] <= max(5, Counter(p.stone for p in obs.pawns)[s]) for s in on)
        stacked += max(on.values()) >= 3
        pairs += any(n >= 2 for n in Counter((p.stone, p.player) for p in out.pawns
                                             if p.stone != "start" and not p.big).values())
    # it does crowd: stones of 3+ pawns and one player's small pairs on most draws
    assert stacked >= 20 and pairs >= 20


def test_crowded_observation_first_row_share_zero_never_targets_the_first_row():
    """--first-row 0: the crowding edit gives no first-row stone pawns (session 19's quarter there taught
    the net phantoms beside the start crowd); the deal's pawns all stand in the crowd, so every moved
    pawn is on a target."""
    import random
    from collections import Counter

    from simulator.games import Game

    crowded = _train_pawns_script().crowded_observation
    game = Game.new("keltis", "nwnz", 4, 11)
    obs = game.observe()
    rows = Counter()
    for seed in range(40):
        out = crowded(obs, game.board, random.Random(seed), first_row=0.0)
        rows.update(game.board.stones[p.stone].row for p in out.pawns if p.stone != "start")
        assert Counter((p.player, p.big) for p in out.pawns) == Counter((p.player, p.big) for p in obs.pawns)
    assert rows and rows[1] == 0


def test_crowded_observation_more_rounds_build_more_stones_of_three_or_more():
    """--rounds LO HI (session 26): more target draws a frame give more stones of 3-5 pawns (the class the
    net misses most) than session 19's 1-3 draws; each player keeps its pawns, at most CROWD_MAX a stone."""
    import random
    from collections import Counter

    from simulator.games import Game

    script = _train_pawns_script()
    game = Game.new("keltis", "nwnz", 4, 11)
    obs = game.observe()

    def busy(rounds):
        n = 0
        for seed in range(40):
            out = script.crowded_observation(obs, game.board, random.Random(seed), first_row=0.1, rounds=rounds)
            assert Counter((p.player, p.big) for p in out.pawns) == Counter((p.player, p.big) for p in obs.pawns)
            on = Counter(p.stone for p in out.pawns if p.stone != "start")
            assert all(v <= script.CROWD_MAX for v in on.values())
            n += sum(v >= 3 for v in on.values())
        return n

    assert busy((4, 7)) > busy(None)
