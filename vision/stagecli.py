"""The shared command line of the stages (`python -m vision.<stage> IMAGE ... --overlay out.jpg`).

Where the calibration comes from, in order: `--calibration FILE`; the calibration a simulator frame
carries beside it (`sim render`'s FRAME.json, `sim frames`' truth/NNNNNN.json: its table's markers,
seats and camera — never its observed state); the default layout of `--board`.
`--no-lens` drops the calibration's camera (the reader then estimates the focal length itself).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Mapping


def stage_parser(prog: str, doc: str | None) -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog=f"python -m {prog}", description=doc)
    ap.add_argument("image")
    ap.add_argument("--calibration", help="calibration.json (default: the frame's own, else the board's default)")
    ap.add_argument("--board", help="nwnz, base or a board file (default: the calibration's board)")
    ap.add_argument("--components", help="components folder (default: the bundled art)")
    ap.add_argument("--seats", help="seat=colour,... of the players in play (default: every colour possible)")
    ap.add_argument("--no-lens", action="store_true", help="ignore the calibration's camera (K, dist)")
    ap.add_argument("--overlay", help="write the stage's debug overlay here")
    return ap


def truth_beside(image_path: str | Path) -> Path | None:
    """The simulator truth file that belongs to a frame, if there is one."""
    p = Path(image_path)
    for cand in (p.with_suffix(".json"), p.parent.parent / "truth" / f"{p.stem}.json"):
        if cand.is_file():
            return cand
    return None


def calibration_for(image_path: str | Path, calibration_file: str | None, board: str | None,
                    no_lens: bool = False) -> dict[str, Any]:
    """The calibration to read a frame with (see the module docstring)."""
    from calibration.model import default_calibration, load_calibration, parse_calibration

    if calibration_file:
        cal = load_calibration(calibration_file)
    else:
        truth = truth_beside(image_path)
        cal = None
        if truth is not None:
            try:
                data = json.loads(truth.read_text(encoding="utf-8"))
                raw = (data.get("render") or {}).get("calibration")
                if raw:
                    cal = parse_calibration(raw, str(truth))
            except (OSError, json.JSONDecodeError):
                cal = None
        if cal is None:
            cal = default_calibration(board or "nwnz")
    if board and not calibration_file and cal.get("board") != board and Path(str(board)).suffix != ".json":
        cal = dict(cal, board=board)
    if no_lens:
        cal = dict(cal, camera=None)
    return cal


def parse_seats(text: str | None) -> dict[str, str] | None:
    """"south=black,north=white" → {"south": "black", "north": "white"} (ValueError when malformed)."""
    from engine.cards import PLAYER_COLOURS, SEATS

    if not text:
        return None
    out: dict[str, str] = {}
    for part in text.split(","):
        seat, sep, colour = part.strip().partition("=")
        if not sep or seat not in SEATS or colour not in PLAYER_COLOURS:
            raise ValueError(f"--seats: {part!r} is not seat=colour (seats {', '.join(SEATS)}; "
                             f"colours {', '.join(PLAYER_COLOURS)})")
        out[seat] = colour
    return out


def seats_from_truth(image_path: str | Path) -> dict[str, str] | None:
    """The seats in play of a simulator frame (who sits where is known to the table, like its calibration)."""
    truth = truth_beside(image_path)
    if truth is None:
        return None
    try:
        data = json.loads(truth.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return None
    seats = data.get("seats") or (data.get("table") or {}).get("seats")
    if seats:
        return {s: v["player"] for s, v in seats.items()}
    return None


def load_board(cal: Mapping[str, Any], board: str | None):
    from engine.board import bundled_board, load_board as load_board_file

    name = board or cal.get("board")
    if name is None:
        return None
    if Path(str(name)).suffix == ".json":
        return load_board_file(name)
    return bundled_board(name)


def load_stage_inputs(args: argparse.Namespace):
    """(image, calibration, board, registration) for a stage's command line, or None after printing why."""
    from calibration.registration import DEFAULT_CONFIG, register_board
    from camera.session import FrameError

    try:
        image = read_image(args.image)
    except FrameError as exc:
        print(str(exc), file=sys.stderr)
        return None
    cal = calibration_for(args.image, args.calibration, args.board, args.no_lens)
    board = load_board(cal, args.board)
    reg = register_board(DEFAULT_CONFIG, cal, image)
    return image, cal, board, reg


def registered_inputs(args: argparse.Namespace) -> tuple[Any, Any, Any, Any] | int:
    """(image, calibration, board, registration) for a stage that needs the board registered, or the
    exit status after saying why: 2 when the image cannot be read, 1 when it does not register."""
    loaded = load_stage_inputs(args)
    if loaded is None:
        return 2
    if not loaded[3].ok:
        print(f"not registered: {loaded[3].reason}")
        return 1
    return loaded


def read_image(path: str | Path) -> Any:
    """A frame file decoded to BGR; camera.session.FrameError (naming the file) when it cannot be."""
    from camera.session import FrameError, decode_jpeg

    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise FrameError(f"cannot read image: {exc.strerror or exc}", source=str(p)) from None
    if p.suffix.lower() in (".jpg", ".jpeg"):
        return decode_jpeg(data, source=str(p))
    import cv2
    import numpy as np

    img = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    if img is None:
        raise FrameError("cannot decode image", source=str(p))
    return img
