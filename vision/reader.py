"""The board reader: the stages joined into the board part of an observed state (FORMATS §2).

    frame ─ usable (320×180) ─┬─ not usable → Observation(usable=False, reason, hands)
                              └─ registration (calibration/) → BoardModel (once per registration:
                                 pose, board view maps, art, tile templates, pawn silhouettes)
                                 → board view → appearance (normalise, difference)
                                 → tiles → expected background → pawns → Observation

With the learned readers' weights in vision/models/ (scripts/train_pawns.py), tiles are read by
vision.tilenet and pawns by vision.pawnnet (one patch per tile spot / stone, cut by maps built once
per registration) and the hand-set tiles/pawns stages and their templates are skipped; without the
weights (or with players the classifier does not know) the hand-set stages run as before.

`Reader.read(image)` keeps the last registration's BoardModel and rebuilds it only when the
registration changes (`register_every` frames, or when asked); the per-frame work is one remap,
the gain map, the tile comparison and the pawn search around stones that differ from the art.
Every stage's CPU time is kept in `FrameReading.timings` (ms) for `keltis-cam eval` and the bench.
"""
from __future__ import annotations

import logging
import math
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Mapping, Sequence

from calibration.camera_check import DEFAULT_CONFIG as CAMERA_CHECK
from calibration.registration import BoardResolution, RegistrationConfig, board_resolution, register_board
from engine.observation import Observation, PawnObservation, SeatObservation

from .alignment import (AlignmentConfig, AlignmentModel, board_offset_px, build_alignment_model, check_alignment,
                        measure_slide, shifted_registration, slid_calibration)
from .appearance import AppearanceConfig, difference, normalise_buffers, normalised_log, prepare_view
from .cardart import card_art
from .cards import CardConfig, distinct_values, paper_points, paper_white, read_seat_cards, seat_reading
from .numerals import numeral_model_for
from .components import Components, load_components
from .geometry import BoardView, GeometryConfig, Pose, board_view, estimate_pose
from .stagecli import read_image  # noqa: F401  (re-exported: the reader's way to read a file)
from .pawns import (PawnConfig, PawnDetection, beyond_crowd, build_stone_kernels, crowd_distances, pawn_coloured,
                    pile_mask, read_pawns)
from .tiles import (TileConfig, TileReading, build_fine_templates, build_spot_templates, paint_expected, read_tiles,
                    refine_tiles)
from .pawnnet import (COLOURS, PatchMaps, PawnNetConfig, build_patch_maps, load_mlp, load_pawn_net, read_stone_pawns,
                      stone_confidence)
from .tilenet import TileMaps, TileNetConfig, build_tile_maps, read_spot_tiles, spot_confidence
from .changes import ChangeConfig, RegionWatch
from .discards import DiscardConfig, build_table_view, discard_tops, read_discards
from .seatview import build_seat_views
from .wishstones import WishStoneConfig, count_held, find_tokens, token_kinds
from .usable import (UsableConfig, UsableModel, build_usable_model, judge_small, judge_usable, sharpness, small_image,
                     update_reference)

log = logging.getLogger("keltis.vision")
PAWNS_PER_PLAYER = (1, 4)   # big, small (FORMATS §2)
#: Stage timings are this process's CPU time: on a shared machine wall time measures the neighbours.
_clock = time.process_time


def one_pawn_paths(board: Any, stones: Sequence[str]) -> list[str | None] | None:
    """Each stone's path (its colour) where a player may have only one pawn on a path (RULES §1: the base board's
    five straight paths), else None (NWNZ: any number of a player's pawns may use one path)."""
    if getattr(board, "ruleset", None) != "base":
        return None
    return [board.stones[s].color if board.stones[s].kind != "start" else None for s in stones]


@dataclass(frozen=True)
class ReaderConfig:
    """The configs of every stage the reader runs."""

    # a marker a little off its place (or a registration from three markers) still reads: the board view
    # is checked against the art anyway
    registration: RegistrationConfig = RegistrationConfig(max_reprojection_px=5.0)
    geometry: GeometryConfig = GeometryConfig()
    appearance: AppearanceConfig = AppearanceConfig()
    tiles: TileConfig = TileConfig()
    pawns: PawnConfig = PawnConfig()
    pawn_net: PawnNetConfig = PawnNetConfig()
    use_pawn_net: bool = True    # the learned pawn reader when its weights exist (else vision.pawns)
    crowd_rule_for_net: bool = True   # the start crowd's reach (reader._outside_crowd) also over the learned reader
    # ... but a learned reader's pawn the network is at least this sure of (P(big) for a big pawn, P(at least n) for
    # a stone's n-th small one: vision.pawnnet.pawn_evidence) is the stone's, never the crowd's, and does not swell
    # it: the rule judges a stone by the crowd's size alone, and early in an NWNZ game (12-14 pawns on the start) it
    # swallowed every pawn stepped onto d1 / f1 however plainly seen (session 32's whole games lost NWNZ turns to it).
    # The crowd's own pawns leaning in are read less surely: of the sightings the rule drops on dev, those at >= 0.98
    # were right 2 of 2 on four still caches, 25 of 25 on the kept NWNZ games' stills and 4 of 4 on the kept base
    # games' (sampled); at 0.9-0.98 3 of 4, 3 of 16, 12 of 12; below 0.9 5 of 17, 24 of 90, 16 of 48. The dev caches
    # summed read 613 pawn errors off, 595 / 587 / 586 at 0.9 / 0.95 / 0.98; 0.95 let test_board_reader.py's dim
    # warm 4-player start read a grey phantom on d1 at 0.951.
    # 0 = off (docs/vision.md, session 33 (wt33-p1row))
    crowd_keep_sure: float = 0.98
    # ... and a big pawn it is at least this sure of (P(big)): the crowd's big pawns leaning into d1 / f1 are read
    # far less surely than its small ones. Of the big-pawn sightings the rule drops (crowd_keep_sure 0; five still
    # caches incl. F84500's 500 stills, and sessions 32's and 33's kept NWNZ games' stills), those at 0.8-0.98 were
    # right 39 of 39, at 0.6-0.8 16 of 24 (the crowd's own up to 0.77); small ones at 0.85-0.98 only 18 of 51.
    # 0.85 keeps a margin above the crowd's. Pawn errors, stills 820 -> 817 / 818 / 818 at 0.8 / 0.85 / 0.9, the
    # kept games' stills 420 -> 384 / 389 / 398; session 33's kept NWNZ games 30 -> 31/35 turns, session 32's
    # 30 -> 32/34. 0 = off (docs/vision.md, session 34 (wt34-pstart))
    crowd_keep_sure_big: float = 0.85
    # ... and a sighting the rule drops is the stone's when its player would keep at most this many pawns on the
    # start with it counted there (its last pawn, and a start pawn of its size left): the crowd's pawns leaning
    # onto d1 / f1 are read in their own colours, and a colour with one pawn left in the crowd has one pawn to lean
    # in, not five. Of the sightings the rule dropped in the kept NWNZ games' readings (5 re-read), a player
    # keeping <= 2 on the start: right 20 of 20 (one pawn: nwnz-4p-84813's grey small on f1, 0.50-0.63, read
    # nowhere for 20 readings); 3: 0 of 16; 4-5: 35 of 265. No still of seven caches (F84500, D83790, ...) has a
    # dropped sighting of a player keeping <= 2, so they read as before. 0 = off (docs/vision.md, session 36
    # (wt36-pevid))
    crowd_keep_last: int = 1
    # the sightings the start-crowd rule took into the crowd, passed on in the reading (extra "crowd_dropped":
    # stone, player, size and the network's evidence; docs/formats-extensions.md) for the tracker to weigh across
    # readings instead of the rule's all-or-nothing drop; the pawns list is unchanged either way. Costs a list per
    # frame. (docs/tracking.md, session 36 (wt36-pevid))
    report_crowd_dropped: bool = False
    tile_net: TileNetConfig = TileNetConfig()
    use_tile_net: bool = True    # the learned tile reader when its weights exist (else vision.tiles)
    usable: UsableConfig = UsableConfig()
    cards: CardConfig = CardConfig()
    wish: WishStoneConfig = WishStoneConfig()
    discards: DiscardConfig = DiscardConfig()
    alignment: AlignmentConfig = AlignmentConfig()
    changes: ChangeConfig = ChangeConfig()   # a live reading reads again only the seats and piles that changed
    register_every: int = 0      # re-register every n frames (0: only the first frame or when asked)
    # A camera hung too high (issue 20, session 31): below this many px per board mm at the board's worst corner
    # the pawn reader's errors rise (docs/vision.md, session 31's table); the camera check warns at the same floor
    # (calibration.camera_check). Below it the reader can cap its pawns' and tiles' confidences at the shares read
    # right measured there, for the decoder to lean on its priors: off, it gained no turn on the game that
    # showed the problem (nwnz-4p-83863: 1/11 visible turns exact at caps 0.75, 0.5 and without).
    min_board_px_per_mm: float = CAMERA_CHECK.min_board_px_per_mm
    low_resolution_confidence: bool = False  # cap the confidences below the floor (off: as before session 31)
    low_resolution_pawn_share: float = 0.75  # path stones read right below 1.25 px/mm (dev 84040: 40 of 54)
    low_resolution_tile_share: float = 0.85  # tile spots read right there (dev 84040: 122 of 141)
    follow_table: bool = True    # check every read frame against the registration (vision.alignment)
    keep_more_markers: bool = True   # (session 31) no re-registration from fewer markers while others still match


DEFAULT_READER_CONFIG = ReaderConfig()


@dataclass(frozen=True, eq=False)
class BoardModel:
    """Everything about one registration that frames share (built once)."""

    board: Any
    components: Components
    registration: Any
    pose: Pose
    view: BoardView
    art: Any = field(repr=False)          # board art in the view, float32 BGR
    log_art: Any = field(repr=False)
    spots: Mapping[str, Any] = field(repr=False, default_factory=dict)
    kernels: Mapping[str, Any] = field(repr=False, default_factory=dict)
    fine: Any = field(repr=False, default=None)
    patches: PatchMaps | None = field(repr=False, default=None)
    tile_maps: TileMaps | None = field(repr=False, default=None)
    board_thickness: float = 3.0
    build_ms: float = 0.0


def board_model(config: ReaderConfig, calibration: Mapping[str, Any], registration: Any, board: Any,
                components: Components, *, pawn_net: bool = False, tile_net: bool = False) -> BoardModel:
    """Pose, view, art and templates of one registration (see the module docstring). With both learned
    readers (`pawn_net`, `tile_net`: their weights are loaded) the hand-set readers' templates are not
    built."""
    t0 = _clock()
    pose, view, art, log_art, sigma = prepare_view(config.geometry, config.appearance, calibration, registration, board,
                                            components)
    spots: Mapping[str, Any] = {}
    kernels: Mapping[str, Any] = {}
    fine = None
    if not (pawn_net and tile_net):
        spots = build_spot_templates(config.tiles, board, components, art, config.appearance.offset, view.ppm,
                                     view.lifted, sigma)
        fine = build_fine_templates(config.tiles, board, components, pose, view.ppm, config.appearance.offset,
                                    config.geometry.board_thickness_mm)
    if not pawn_net:
        kernels = build_stone_kernels(config.pawns, board, view, components)
    patches = (build_patch_maps(config.pawn_net, board, view, log_art, pose, config.geometry.board_thickness_mm)
               if pawn_net else None)
    tile_maps = (build_tile_maps(config.tile_net, board, view, log_art, pose, config.geometry.board_thickness_mm)
                 if tile_net else None)
    return BoardModel(board, components, registration, pose, view, art, log_art, spots, kernels, fine, patches,
                      tile_maps, config.geometry.board_thickness_mm, (_clock() - t0) * 1000)


def _named_shares(shares: Mapping[str, float], others: float, unit: str) -> dict[str, Any]:
    """One element_confidence group (docs/formats-extensions.md): the elements less sure than the rest by
    name under `unit`, and the rest's share."""
    return {"others": others, unit: {e: c for e, c in shares.items() if c < others}}


@dataclass
class FrameReading:
    """One frame read: the observation plus what the stages found (for overlays and evaluation)."""

    observation: Observation
    timings: dict[str, float] = field(default_factory=dict)
    tiles: TileReading | None = None
    detections: list[PawnDetection] = field(default_factory=list)
    usable_reason: str | None = None
    #: the registration's board resolution (px per board mm; None without a registration)
    resolution: BoardResolution | None = None


def capped_confidence(confidence: Mapping[str, float], element: Mapping[str, Any], pawn_share: float,
                      tile_share: float) -> tuple[dict[str, float], dict[str, Any]]:
    """The frame's pawn and tile confidences (FORMATS §2 `confidence`, and `element_confidence`) capped at
    these shares read right: what a reading below the resolution floor says (ReaderConfig.min_board_px_per_mm).
    A group without element confidences gets one stating the cap for every element."""
    conf = dict(confidence)
    out = {k: dict(v) for k, v in element.items()}
    for group, unit, cap in (("pawns", "stones", pawn_share), ("tiles", "spots", tile_share)):
        if group in conf:
            conf[group] = round(min(float(conf[group]), cap), 3)
        g = out.get(group)
        if g is None:
            if group in conf:
                out[group] = {"others": cap, unit: {}}
            continue
        g["others"] = min(float(g.get("others", 1.0)), cap)
        g[unit] = {e: min(float(c), cap) for e, c in (g.get(unit) or {}).items()}
    return conf, out


def net_detections(board: Any, found: Sequence[Any]) -> list[PawnDetection]:
    """The learned reader's pawns (vision.pawnnet.StonePawns per stone) as detections at their stones' centres,
    each with the network's evidence for it."""
    dets = []
    for sp in found:
        s = board.stones[sp.stone]
        for k, (player, big) in enumerate(sp.pawns):
            ev = sp.evidence[k] if k < len(sp.evidence) else 0.0
            dets.append(PawnDetection(sp.stone, player, big, s.x, s.y, 1.0, 0.0, ev))
    return dets


class Reader:
    """Reads frames of one table (one calibration, one board, one set of players)."""

    def __init__(self, calibration: Mapping[str, Any], *, game: str = "keltis", board: Any = None,
                 seats: Mapping[str, str] | None = None, components: Components | None = None,
                 config: ReaderConfig = DEFAULT_READER_CONFIG):
        self.calibration = calibration
        self.game = game
        self.board = board
        self.seats = dict(seats) if seats else None
        self.components = components or load_components()
        self.config = config
        self.model: BoardModel | None = None
        self.usable_model: UsableModel | None = None
        self.alignment: AlignmentModel | None = None
        self._markers_off: tuple[int, ...] = ()
        self.realigned: list[dict[str, Any]] = []   # each time the reader followed a bumped table
        self.registration = None
        self.resolution: BoardResolution | None = None   # the registration's px per board mm (board_resolution)
        self.registrations = 0                            # how many registrations were adopted so far
        self._paths_model: Any = None                     # the board model _paths was made for
        self._paths: list[str | None] | None = None       # its stones' one-pawn paths (one_pawn_paths)
        self.seat_views: dict[str, Any] = {}
        self.token_views: dict[str, Any] = {}           # the seats seen for the wish stones, where not seat_views
        self.paper = None
        self.table_view = None
        self.discard_tops: dict[str, str | None] = {}
        self.watch: RegionWatch | None = None           # what changed since each seat was read (incremental reads)
        self._view_buffer = None                          # the board view and its normalisation, per frame:
        self._norm_buffers = None                         # allocated once per board view (normalised_view)
        self._kept: dict[str, tuple[Any, float, Any]] = {}   # seat -> (SeatObservation, confidence, cream) last read
        self._piles_kept = False                        # self.discard_tops is an incremental reading to keep
        self.reread: tuple[str, ...] = ()               # the regions the last incremental reading read again
        self.numeral_model = numeral_model_for(self.components)   # a folder without weights is taught once
        self.frames = 0
        self.sharpness_reference: float | None = None   # the table's sharpness on settled frames (usable)
        players = list(self.seats.values()) if self.seats else list(self.components.pawn_bgr())
        bgr = self.components.pawn_bgr()
        import numpy as np

        self.references = {p: np.log(np.array(bgr[p], np.float32) + config.appearance.offset) for p in players
                           if p in bgr}
        # the learned pawn reader knows the four player colours only
        self.pawn_net = load_pawn_net(config.pawn_net.weights) if config.use_pawn_net else None
        if self.pawn_net is not None and not all(p in COLOURS for p in self.references):
            self.pawn_net = None
        self.tile_net = load_mlp(config.tile_net.weights) if config.use_tile_net else None

    def warm_up(self) -> dict[str, float]:
        """Build now what the first reading would build that no frame changes (session 36, wt36-warm): the
        card art at the art's resolution (faces, corner crops, middles: what every seat view's card_art
        scales), the piles' card art (a fixed resolution), the card figures for the art's size, the wish
        tokens' ring-averaged pictures, this board's art decoded, numpy.ma (np.unique imports it). Each is a
        module cache keyed as the reading asks for it, so the reading finds it and its result is the same.
        What needs the registration (the board model, the views, the seat views' card art at the seen
        resolution) stays with the first reading. Returns each part's CPU ms."""
        import numpy.ma  # noqa: F401  (imported by np.unique on first use: ~20-100 ms)

        from .cardart import CORNER_MARGIN_MM, _corner_crops, _middles
        from .cards import sized_for
        from .wishstones import _token_art

        done: dict[str, float] = {}

        def part(name: str, build: Any) -> None:
            t0 = time.thread_time()   # (a warm-up in the background: this thread's CPU, not the process's)
            build()
            done[name] = (time.thread_time() - t0) * 1000

        comps = self.components
        if comps.has_cards:
            part("card faces", lambda: _corner_crops(comps, CORNER_MARGIN_MM))
            part("card middles", lambda: _middles(comps))
            part("pile card art", lambda: sized_for(self.config.cards,
                                                    card_art(comps, self.config.discards.card_ppm, 1.2).size))
        if self.board is not None and self.game == "keltis":
            kinds = token_kinds(self.board.name)
            part("token art", lambda: [_token_art(comps, "tile-wish-any" if k == "any" else f"wish-{k}")
                                       for k in kinds])
            # last: the card faces above pass through the component pictures' cache (64 pictures)
            part("board art", lambda: comps.image(f"board-{self.board.name}"))
        return done

    def _registration_of(self, image: Any) -> Any:
        """The registration of a frame; when one marker does not fit the others (pushed aside since
        the calibration) and at least three remain, the registration without it."""
        reg = register_board(self.config.registration, self.calibration, image)
        if reg.ok or reg.homography is None or len(reg.marker_ids) < 4 or not reg.marker_errors:
            return reg
        worst = max(reg.marker_errors, key=reg.marker_errors.get)
        markers = dict(self.calibration["markers"])
        markers["items"] = [m for m in markers["items"] if int(m["id"]) != worst]
        again = register_board(self.config.registration, {**self.calibration, "markers": markers}, image)
        return again if again.ok else reg

    def _register(self, image: Any, timings: dict[str, float]) -> None:
        t0 = _clock()
        reg = self._registration_of(image)
        timings["registration"] = (_clock() - t0) * 1000
        self._adopt(reg, image, timings)

    def _adopt(self, reg: Any, image: Any, timings: dict[str, float]) -> None:
        """Use `reg` from now on: build everything that depends on it once."""
        self.registration = reg
        if reg.homography is not None:
            board_mm = tuple(self.board.size_mm) if self.board is not None and self.game == "keltis" else None
            self.resolution = board_resolution(reg, board_mm)
            self.registrations += 1
        self.model = None
        self.usable_model = None
        self.alignment = None
        self._markers_off: tuple[int, ...] = ()
        self.sharpness_reference = None
        if reg.ok:
            t1 = _clock()
            if self.board is not None and self.game == "keltis":
                self.model = board_model(self.config, self.calibration, reg, self.board, self.components,
                                         pawn_net=self.pawn_net is not None, tile_net=self.tile_net is not None)
            self.usable_model = build_usable_model(self.config.usable, self.calibration, reg, self.board,
                                                   self.components, players=tuple(self.seats) if self.seats else None)
            self.seat_views, self.token_views = {}, {}
            if self.components.has_cards:
                in_play = tuple(self.seats) if self.seats else None
                sv_cfg = self.config.cards.view
                self.seat_views = build_seat_views(sv_cfg, self.calibration, reg, in_play)
                tp = self.config.wish.view_ppm
                if self.board is not None and self.game == "keltis" and tp is not None and \
                        tp * 0.5 != sv_cfg.ppm * sv_cfg.half:
                    self.token_views = build_seat_views(replace(sv_cfg, ppm=tp, half=0.5), self.calibration, reg,
                                                        in_play)
                quiet = float((self.components.catalogue.get("marker") or {}).get("quiet_zone", 0.25))
                self.paper = paper_points(self.calibration, reg, quiet)
                board_size = tuple(self.board.size_mm) if self.board is not None and self.game == "keltis" else None
                self.table_view = build_table_view(self.config.discards, self.calibration, reg, board_size, in_play)
            self.watch = RegionWatch(self.config.changes, reg.image_size, self.seat_views, self.table_view)
            self._kept, self._piles_kept = {}, False
            board_mm = tuple(self.board.size_mm) if self.board is not None and self.game == "keltis" else None
            self.alignment = build_alignment_model(self.config.alignment, reg, image, board_mm)
            timings["model"] = (_clock() - t1) * 1000

    def _follow_table(self, image: Any, timings: dict[str, float]) -> None:
        """The cheap check that the registration still holds (vision.alignment); when the camera, the
        table or a marker was bumped, register again; when the board slid, move its frame."""
        t0 = _clock()
        cfg = self.config.alignment
        check = check_alignment(cfg, self.alignment, image)
        timings["alignment"] = (_clock() - t0) * 1000
        board_mm = tuple(self.board.size_mm) if self.board is not None and self.game == "keltis" else (0.0, 0.0)
        if check.markers_off and check.markers_off != self._markers_off:
            reg = self._registration_of(image)
            # a registration from fewer markers while some of the current one's still match is a marker
            # covered (a hand), not a camera moved: kept out (two markers place a far board degrees off)
            fewer = (self.config.keep_more_markers and len(reg.marker_ids) < len(self.registration.marker_ids)
                     and set(self.registration.marker_ids) - set(check.markers_off))
            if reg.ok and not fewer and board_offset_px(reg, self.registration, board_mm) > cfg.moved_px:
                self._adopt(reg, image, timings)
                self._note(f"the table or the camera moved: registered again from markers {list(reg.marker_ids)}")
                return
            # covered (a cup, a sleeve) or one marker pushed: the others still hold the board
            self._markers_off = check.markers_off
        elif not check.markers_off:
            self._markers_off = ()
        if self.board is not None and check.board_moved(cfg):
            dx, dy = measure_slide(cfg, self.alignment, self.registration, image, board_mm, check.shift_mm)
            # the markers stayed: in the board's frame they moved, and the pose follows from them
            self.calibration = slid_calibration(self.calibration, (dx, dy))
            reg = self._registration_of(image)
            if not reg.ok:   # the markers of the last registration are gone meanwhile: move its frame
                reg = shifted_registration(self.registration, (dx, dy))
            self._adopt(reg, image, timings)
            self._note(f"the board slid {max(abs(dx), abs(dy)):.0f} mm on the table: re-aligned")

    def _note(self, why: str) -> None:
        log.info("%s", why)
        self.realigned.append({"frame": self.frames, "why": why})

    def read(self, image: Any, *, reregister: bool = False, previous: Any = None,
             incremental: bool = False, small: Any = None) -> FrameReading:
        """The observed state one frame shows (see the module docstring). `previous`: the frame before it
        in a stream (any size; a live pipeline passes its 320×180 preview), which tells a moving arm.
        `small`: this very frame already at the usable stage's size (a live pipeline's preview of it),
        which spares scaling the frame down again (~14 ms for a 2304×1296 frame here).
        `incremental` (a live pipeline's readings of one table): seats and discard piles that look as
        they did when last read keep that reading (vision.changes); `reread` names those read again."""
        import cv2
        import numpy as np

        timings: dict[str, float] = {}
        board_name = self.board.name if (self.board is not None and self.game == "keltis") else None
        every = self.config.register_every
        if self.registration is not None and tuple(self.registration.image_size) != (image.shape[1], image.shape[0]):
            reregister = True   # a picture of another size (a full-resolution still after video frames)
        if reregister or self.registration is None or (every and self.frames % every == 0):
            self._register(image, timings)
        self.frames += 1
        reg = self.registration
        if not reg.ok:
            # no markers, or not the table: too dark is the likelier reason when nothing is bright
            t0 = _clock()
            reason = judge_usable(self.config.usable, None, image).reason or "no-board"
            timings["usable"] = (_clock() - t0) * 1000
            self.registration = None   # try again next frame
            return FrameReading(Observation(self.game, board_name, False, reason,
                                            extra={"detail": reg.reason}), timings, usable_reason=reason)
        t0 = _clock()
        unusable = self.judge_unusable(image, previous, small=small)
        timings["usable"] = (_clock() - t0) * 1000
        if unusable is not None:
            return FrameReading(unusable, timings, usable_reason=unusable.reason)
        if self.config.follow_table and self.alignment is not None and "registration" not in timings:
            self._follow_table(image, timings)
        seats, card_conf = self._read_cards(image, timings, incremental)
        if self.model is None:
            return FrameReading(Observation(self.game, board_name, True, None, None, None, seats,
                                            dict(self.discard_tops), confidence=card_conf), timings)
        m = self.model
        cfg = self.config
        log_norm, gain = self.normalised_view(image, timings)
        t2 = _clock()
        use_pawn_net = m.patches is not None
        tiles = None
        spots_conf = None
        if not use_pawn_net or m.tile_maps is None:
            # the hand-set tile reader (also the expected background of the hand-set pawn reader)
            tiles = read_tiles(cfg.tiles, log_norm, m.spots)
            tiles = refine_tiles(cfg.tiles, m.fine, image, gain, cfg.appearance.offset, tiles, m.spots)
        if m.tile_maps is not None:
            codes, margins = read_spot_tiles(self.tile_net, m.tile_maps, log_norm, m.board.tile_set, image, gain,
                                             cfg.tile_net)
            conf = min(margins.values(), default=1.0) / cfg.tile_net.sure_margin
            # each spot's own share read right beside the frame's least sure one (element_confidence)
            spots_conf = _named_shares({sid: spot_confidence(cfg.tile_net, mg) for sid, mg in margins.items()},
                                       cfg.tile_net.spot_right_others, "spots")
            reading = TileReading(codes, {}, {}, margins, round(max(0.3, min(1.0, conf)), 3))
            if tiles is None:
                tiles = reading
            else:   # the hand-set reading stays for the hand-set pawn reader's background
                old_tiles = tiles
                tiles = TileReading(codes, old_tiles.piles, old_tiles.chosen, margins, reading.confidence)
        t3 = _clock()
        stones_conf = None
        if use_pawn_net:
            dets, net_conf, stones_conf = self._net_detections(log_norm, image, gain)
        else:
            expected = m.log_art.copy()
            paint_expected(expected, m.spots, tiles)
            fg = pawn_coloured(cfg.pawns, difference(cfg.appearance, log_norm, expected), log_norm, self.references)
            known = (pile_mask(m.board, m.view, m.components, tiles.piles)
                     if tiles.piles and any(tiles.piles.values()) else None)
            dets = read_pawns(cfg.pawns, fg, log_norm, m.kernels, m.board, self.references, m.view.ppm, known)
            net_conf = None
        t4 = _clock()
        timings.update(tiles=(t3 - t2) * 1000, pawns=(t4 - t3) * 1000)
        dropped: list[PawnDetection] = []
        pawns, pawn_conf = self._pawn_list(dets, crowd=net_conf is None or cfg.crowd_rule_for_net, dropped=dropped)
        if net_conf is not None:
            pawn_conf = min(pawn_conf, net_conf)
        extra = {}
        if cfg.report_crowd_dropped and dropped:
            extra["crowd_dropped"] = [{"stone": d.stone, "player": d.player, "big": bool(d.big),
                                       "evidence": round(float(d.evidence), 3)} for d in dropped]
        element = {"pawns": stones_conf, "tiles": spots_conf}
        if any(v is not None for v in element.values()):
            extra["element_confidence"] = {k: v for k, v in element.items() if v is not None}
        confidence = {"pawns": round(pawn_conf, 3), "tiles": round(tiles.confidence, 3), **card_conf}
        if self.caps_confidence:
            confidence, element = capped_confidence(confidence, extra.get("element_confidence") or {},
                                                    cfg.low_resolution_pawn_share, cfg.low_resolution_tile_share)
            extra["element_confidence"] = element
        obs = Observation(self.game, board_name, True, None, tuple(pawns), dict(tiles.tiles), seats,
                          dict(self.discard_tops), confidence=confidence, extra=extra)
        return FrameReading(obs, timings, tiles, dets, resolution=self.resolution)

    def _paths_of(self, m: Any) -> list[str | None] | None:
        """one_pawn_paths of the board model's stones, once per model (not per frame)."""
        if self._paths_model is not m:
            self._paths_model, self._paths = m, one_pawn_paths(m.board, m.patches.stones)
        return self._paths

    @property
    def below_floor(self) -> bool:
        """The registration gives the board fewer px per mm at its worst corner than the floor
        (ReaderConfig.min_board_px_per_mm): the camera hangs too far (the observer's `too_far`, the page)."""
        return self.resolution is not None and self.resolution.worst_corner < self.config.min_board_px_per_mm

    @property
    def caps_confidence(self) -> bool:
        """The reader caps its pawn and tile confidences below the floor (low_resolution_confidence on)."""
        return self.config.low_resolution_confidence and self.below_floor

    def normalised_view(self, image: Any, timings: dict[str, float] | None = None) -> tuple[Any, Any]:
        """The frame's board view in the art's colours, as logs (blurred as the stages expect), and the
        (gain, offset) maps (vision.appearance); needs a registration (`read` makes one). The arrays are
        the reader's buffers: valid until its next frame (copy them to keep them)."""
        import numpy as np

        m = self.model
        cfg = self.config
        t0 = _clock()
        # the per-frame arrays are the reader's own, allocated once per board view (vision.appearance)
        if self._view_buffer is None or self._view_buffer.shape[:2] != m.view.size_px[::-1]:
            w, h = m.view.size_px
            self._view_buffer = np.empty((h, w, 3), np.uint8)
            self._norm_buffers = normalise_buffers((h, w, 3))
        view = m.view.warp(image, out=self._view_buffer if image.ndim == 3 and image.dtype == np.uint8 else None)
        t1 = _clock()
        log_norm, gain = normalised_log(cfg.appearance, view, m.art, m.view.ppm, self._norm_buffers)
        if timings is not None:
            timings.update(warp=(t1 - t0) * 1000, normalise=(_clock() - t1) * 1000)
        return log_norm, gain

    def _net_detections(self, log_norm: Any, image: Any = None, gain: Any = None
                        ) -> tuple[list[PawnDetection], float, dict[str, Any]]:
        """The learned reader's pawns as detections at their stones, its confidence, and each stone's
        (`element_confidence`: the stones less sure than the rest by name, and the rest's share read right;
        `image`, `gain`: the frame and the appearance stage's maps, for patches cut from the frame)."""
        m = self.model
        found = read_stone_pawns(self.config.pawn_net, self.pawn_net, m.patches, log_norm, list(self.references),
                                 PAWNS_PER_PLAYER, image=image, gain=gain,
                                 first_row=[m.board.stones[s].row == 1 for s in m.patches.stones],
                                 paths=self._paths_of(m))
        dets = net_detections(m.board, found)
        margin = min((sp.margin for sp in found), default=1.0)
        cfg = self.config.pawn_net
        stones = _named_shares({sp.stone: stone_confidence(cfg, sp.margin, m.board.stones[sp.stone].row == 1)
                                for sp in found}, cfg.stone_right_others, "stones")
        return dets, max(0.3, min(1.0, margin / cfg.sure_margin)), stones

    def _read_cards(self, image: Any, timings: dict[str, float], incremental: bool = False
                    ) -> tuple[dict[str, SeatObservation], dict[str, float]]:
        """Every seat in play's rows, points row and wish cards (vision.cards); when `incremental`, only
        those of seats (and the piles) that changed since they were last read."""
        if not self.seat_views:
            return {}, {}
        t0 = _clock()
        again: set[str] | None = None
        if incremental and self.watch is not None:
            again, _counts = self.watch.changed(image)
            timings["changes"] = (_clock() - t0) * 1000
        elif self._kept or self._piles_kept:   # a reading of its own: what incremental ones kept is no longer current
            self._kept, self._piles_kept = {}, False
            if self.watch is not None:
                self.watch.forget()
        card_game = self.game != "keltis"
        seats: dict[str, SeatObservation] = {}
        conf = 1.0
        white = paper_white(image, self.paper) if self.paper is not None else None
        creams: list[Any] = []
        wish_reads: dict[str, tuple] = {}
        parts: dict[str, float] = {}
        read: list[str] = []
        for seat, sv in self.seat_views.items():
            if again is not None and seat not in again and seat in self._kept:
                seats[seat], kept_conf, cream = self._kept[seat]
                conf = min(conf, kept_conf)
                creams.append(cream)
                continue
            art = card_art(self.components, sv.ppm, round(sv.px_per_mm, 1))
            sc = read_seat_cards(self.config.cards, image, sv, art, white, self.numeral_model, card_game)
            got = seat_reading(sc, card_game)
            player = (self.seats or {}).get(seat)
            if player is None:
                continue
            for k, v in sc.timings.items():
                parts[k] = parts.get(k, 0.0) + v
            wish: dict[str, int] = {}
            if not card_game and self.board is not None:
                tw = _clock()
                # the board games have colour rows only: a "points" band there is table, not cards; nor is
                # a shorter band of a colour that has its row (a cluster of wish stones outlined as a one-card
                # row of the table's colour hid those stones: the bundled demo's west, session 16)
                tsv = self.token_views.get(seat)
                rows = replace(sc, bands=list(got.row_bands), small=sc.small if tsv is None else tsv.warp_half(image))
                tsv = tsv or sv
                finds = find_tokens(self.config.wish, rows.small, tsv.ppm * tsv.half_scale, sv.px_per_mm,
                                    self.components, token_kinds(self.board.name), rows.rows_mask(tsv), sc.cream)
                wish = count_held(finds)
                parts["wish"] = parts.get("wish", 0.0) + (_clock() - tw) * 1000
            seats[seat] = SeatObservation(player, got.rows, got.points_row, wish, got.wish_cards)
            if got.wish_reads:
                wish_reads[seat] = got.wish_reads
            if again is not None:
                self._kept[seat] = (seats[seat], got.confidence, sc.cream)
                read.append(seat)
            conf = min(conf, got.confidence)
            creams.append(sc.cream)
        if card_game and wish_reads:
            # one wish card of each value in the game: a value two seats read goes to the card least sure of it
            held = tuple(v for seat, so in seats.items() if seat not in wish_reads for v in so.wish_cards)
            order = list(wish_reads)
            values = distinct_values([card for seat in order for card in wish_reads[seat]], held)
            k = 0
            for seat in order:
                n = len(wish_reads[seat])
                seats[seat] = replace(seats[seat], wish_cards=tuple(sorted(values[k:k + n])))
                k += n
                if again is not None and seat in self._kept:
                    self._kept[seat] = (seats[seat], *self._kept[seat][1:])
        t1 = _clock()
        timings["cards"] = (t1 - t0) * 1000
        timings.update({f"cards.{k}": v for k, v in parts.items()})
        if self.table_view is not None and (again is None or "discards" in again or not self._piles_kept):
            self.discard_tops = {}
            import numpy as np

            art = card_art(self.components, self.config.discards.card_ppm, 1.2)
            # the piles' white reference: the stock under the light the markers' paper shows (they lie on
            # the table round the board, as the markers do); the seats' stock guesses are brightness
            # guesses picked for their rows' outlines, up to a quarter too dim or too bright for a pile
            cream = (white * art.cream / 255.0 if white is not None else
                     (np.median(np.array(creams), 0) if creams else art.cream))
            finds = read_discards(self.config.discards, self.config.cards, image, self.table_view,
                                  self.registration, art, cream, self.numeral_model, card_game)
            self.discard_tops = discard_tops(finds, card_game)
            timings["discards"] = (_clock() - t1) * 1000
            if again is not None:
                self._piles_kept = True
                read.append("discards")
        elif self.table_view is None:
            self.discard_tops = {}
        if again is not None:
            self.watch.mark_read(read)
            self.reread = tuple(read)
        return seats, {"rows": round(conf, 3)}

    def judge_unusable(self, image: Any, previous: Any = None, *, small: Any = None,
                       learn: bool = True) -> Observation | None:
        """The usable-frame decision alone, on a frame or its small picture (a live camera's hands test
        between readings; `previous`: the frame before it, any size, which tells a moving arm): the
        unusable observation (with the arm's seat in `hands`), or None when the frame can be read.
        `small`: the frame already at the stage's size, if the caller has it (used only at that size).
        `learn`: a usable verdict updates the table's sharpness reference (off for frames watched by another
        thread while a reading runs: vision.observer.VisionObserver.watch).
        Needs a registration (None without one: nothing to judge against)."""
        if self.registration is None or not self.registration.ok:
            return None
        ucfg = self.config.usable
        if small is None or (small.shape[1], small.shape[0]) != tuple(ucfg.size) or small.ndim != 3:
            small = small_image(ucfg, image)
        prev = small_image(ucfg, previous) if previous is not None else None
        verdict = judge_small(ucfg, self.usable_model, small, prev, self.sharpness_reference)
        if verdict.usable:
            if self.usable_model is not None and learn:
                self.sharpness_reference = update_reference(ucfg, self.sharpness_reference,
                                                            sharpness(self.usable_model, small))
            return None
        extra: dict[str, Any] = {}
        if verdict.hands is not None:
            extra["hands"] = [{"seat": s} if s else {} for s in verdict.hands]
        board_name = self.board.name if (self.board is not None and self.game == "keltis") else None
        return Observation(self.game, board_name, False, verdict.reason, extra=extra)

    def _outside_crowd(self, on: list[PawnDetection]) -> list[PawnDetection]:
        """Detections on stones, less those on stones the start crowd reaches: the pawns not on a path
        (5 per player less those seen beyond its reach: vision.pawns.beyond_crowd) stand densely packed around the
        start stone and their bases cover the first-row stones when they are many; a pawn there cannot be
        told from the crowd, and reading it as the crowd keeps each player's 5 pawns — unless the learned reader is
        sure of it (`ReaderConfig.crowd_keep_sure`: its evidence, PawnDetection.evidence, at least that)."""
        board = self.model.board if self.model is not None else self.board
        starts = [s for s in board.stones.values() if s.kind == "start"]
        if not starts or not on:
            return on
        cfg = self.config.pawns
        comps = self.components
        pitch = cfg.crowd_pitch_scale * (comps.pawn_size(True)[0] + 4 * comps.pawn_size(False)[0]) / 5
        key = (board.name, round(pitch, 2))
        if getattr(self, "_crowd_key", None) != key:
            self._crowd_key, self._crowd_d = key, crowd_distances(board, pitch / 2)
        st = starts[0]
        gap = {d.stone: math.hypot(board.stones[d.stone].x - st.x, board.stones[d.stone].y - st.y)
               - board.stones[d.stone].r - cfg.on_stone_margin_mm for d in on}
        total = PAWNS_PER_PLAYER[0] + PAWNS_PER_PLAYER[1]
        sure = self.config.crowd_keep_sure
        sure_big = self.config.crowd_keep_sure_big
        # a pawn the network is sure of stands beyond any crowd (crowd_keep_sure; a big one crowd_keep_sure_big)
        gaps = [math.inf if (sure > 0 and d.evidence >= sure) or (sure_big > 0 and d.big and d.evidence >= sure_big)
                else gap[d.stone] for d in on]
        # pawns, not (stone, player) pairs: two of one player's pawns on one stone are two fewer in the crowd
        keep = beyond_crowd(gaps, total * len(self.references), self._crowd_d, pitch)
        return [d for d, k in zip(on, keep) if k]

    def _keep_last(self, on: list[PawnDetection], out_of: list[PawnDetection]
                   ) -> tuple[list[PawnDetection], list[PawnDetection]]:
        """The crowd rule's dropped sightings (`out_of`) taken back, surest first, while the sighting's player has at
        most `ReaderConfig.crowd_keep_last` pawns left on the start (as the listing would leave them, the sighting
        counted there) and a start pawn of its size: (kept, still dropped)."""
        limit = self.config.crowd_keep_last
        on = list(on)
        rest = []
        for d in sorted(out_of, key=lambda d: -d.evidence):
            mine = [x for x in on if x.player == d.player]
            n_big = min(PAWNS_PER_PLAYER[0], sum(1 for x in mine if x.big))
            n_small = min(PAWNS_PER_PLAYER[1], sum(1 for x in mine if not x.big))
            left = PAWNS_PER_PLAYER[0] + PAWNS_PER_PLAYER[1] - n_big - n_small
            room = n_big < PAWNS_PER_PLAYER[0] if d.big else n_small < PAWNS_PER_PLAYER[1]
            if room and left <= limit:
                on.append(d)
            else:
                rest.append(d)
        return on, rest

    def _pawn_list(self, dets: list[PawnDetection], crowd: bool = True,
                   dropped: list[PawnDetection] | None = None) -> tuple[list[PawnObservation], float]:
        """Pawns on stones, then each player's remaining pawns on "start"; confidence drops where the
        detections contradict 1 big + 4 small per player. `crowd`: drop detections the start crowd
        explains (the learned reader has learnt the crowd and needs no such rule); `dropped`, when given, gets
        the detections the crowd rule dropped."""
        players = list(self.references)
        on0 = [d for d in dets if d.stone is not None]
        on = self._outside_crowd(on0) if crowd else on0
        # Detections the start crowd explains lower the confidence. Two pawns of one player on one
        # stone are legal (RULES §1: any number of pawns may share a stone, and several of a
        # player's own may use one path) but rare: kept, with a lower confidence.
        conf = 1.0 if len(on) == len(on0) else 0.5
        if len(on) != len(on0):
            kept = {id(d) for d in on}
            out_of = [d for d in on0 if id(d) not in kept]
            if self.config.crowd_keep_last > 0:
                on, out_of = self._keep_last(on, out_of)
            if dropped is not None:
                dropped.extend(out_of)
        dets = on + [d for d in dets if d.stone is None]
        places = [(d.stone, d.player) for d in on]
        if len(set(places)) < len(places):
            conf = min(conf, 0.6)
        out: list[PawnObservation] = []
        for p in players:
            mine = sorted([d for d in on if d.player == p], key=lambda d: -d.cover)
            for big, limit in ((True, PAWNS_PER_PLAYER[0]), (False, PAWNS_PER_PLAYER[1])):
                group = [d for d in mine if d.big == big]
                if len(group) > limit:
                    conf = min(conf, 0.5)
                    group = group[:limit]
                for d in group:
                    out.append(PawnObservation(d.stone, p, big))
                for _ in range(limit - len(group)):
                    out.append(PawnObservation("start", p, big))
        if on:
            worst = max(d.colour_distance for d in on)
            conf = min(conf, max(0.3, 1.0 - 0.5 * max(0.0, worst - 0.3)))
        return out, conf


