"""The keltis-cam config file: a versioned TOML file, read with tomllib.

Location: $KELTIS_CAM_CONFIG, else $XDG_CONFIG_HOME/keltis-cam/config.toml (normally
~/.config/keltis-cam/config.toml). A missing file means all defaults. Data directory (sessions,
calibration, logs): --data-dir, else $KELTIS_CAM_DATA, else `data_dir` in the file, else
$XDG_DATA_HOME/keltis-cam (normally ~/.local/share/keltis-cam).

Sections this module knows are typed ([camera], [calibration], [game]); any other section (the
web server's, later) is kept as a plain dict in `Config.sections` for its owner to read.
`python -m keltis_cam.config init [PATH]` writes the commented default file.
"""
from __future__ import annotations

import os
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from engine.errors import FormatVersionError, MalformedInput
from engine.jsontext import check_json_value
from tracking.config import TrackingConfig

FORMAT = "keltis-config/1"
FORMAT_KIND, FORMAT_MAJOR = "keltis-config", 1
AUTOFOCUS = ("once", "manual", "continuous")

DEFAULT_TEXT = """\
# keltis-cam configuration (see README.md, "Install on a Raspberry Pi"). Read with tomllib at start-up.
format = "keltis-config/1"

# Where sessions, the calibration and logs live. Default: ~/.local/share/keltis-cam
# data_dir = "/home/pi/.local/share/keltis-cam"

[camera]
# The frame source: "picamera2" (Pi Camera Module), "opencv:0" (USB camera /dev/video0),
# "replay:/path/to/session" (a recording). No source is ever chosen silently.
source = "picamera2"
# Main-stream size; default: the sensor's fast full-field mode (2304x1296 on a Camera Module 3).
# width = 2304
# height = 1296
# Frames per second from the camera (default 10: a game changes slowly, the Pi's CPU goes to vision).
# fps = 10
# Seconds of automatic exposure / white balance before they are locked for the game.
settle_seconds = 2.0
# Focus: "once" (one autofocus cycle, then locked), "manual" (lens_position, dioptres), "continuous".
autofocus = "once"
# lens_position = 1.0

[calibration]
# Relative to data_dir. Write it with `keltis-cam calibrate default --board nwnz --out ...`
# and `keltis-cam calibrate lens`.
file = "calibration.json"

[game]
# board = "nwnz"
# How your pieces look, if not like the bundled art: a components folder (README, "Your own cards").
# components = "/home/pi/keltis-components"

[tracking]
# How the tracker turns camera readings into moves (every setting: `keltis-cam config show`).
# still_seconds = 0.6
"""


class ConfigError(MalformedInput):
    """A config file that cannot be read or breaks its format (names the file and key)."""


@dataclass(frozen=True)
class CameraConfig:
    """[camera]: which frame source and how to run it."""

    source: str | None = None
    width: int | None = None
    height: int | None = None
    fps: float | None = None
    settle_seconds: float = 2.0
    autofocus: str = "once"
    lens_position: float | None = None

    def source_options(self) -> dict[str, Any]:
        """Options for camera.sources.open_source (only the ones set; each source takes its own)."""
        opts: dict[str, Any] = {"settle_seconds": self.settle_seconds, "autofocus": self.autofocus}
        if self.width and self.height:
            opts.update(size=(self.width, self.height), width=self.width, height=self.height)
        if self.fps:
            opts["fps"] = self.fps
        if self.lens_position is not None:
            opts["lens_position"] = self.lens_position
        return opts


@dataclass(frozen=True)
class Config:
    """The whole configuration, with where it came from."""

    path: Path
    exists: bool
    data_dir: Path
    camera: CameraConfig = field(default_factory=CameraConfig)
    calibration_file: str = "calibration.json"
    board: str | None = None
    tracking: TrackingConfig = field(default_factory=TrackingConfig)
    sections: Mapping[str, Any] = field(default_factory=dict)
    components: str | None = None    # [game] components: a components folder (how the pieces look)

    @property
    def calibration_path(self) -> Path:
        """The calibration file (absolute, or relative to the data directory)."""
        p = Path(self.calibration_file).expanduser()
        return p if p.is_absolute() else self.data_dir / p

    @property
    def sessions_dir(self) -> Path:
        return self.data_dir / "sessions"


def config_path() -> Path:
    """Where the config file is looked for."""
    env = os.environ.get("KELTIS_CAM_CONFIG")
    if env:
        return Path(env).expanduser()
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "keltis-cam" / "config.toml"


def default_data_dir() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "keltis-cam"


def _get(table: Mapping[str, Any], key: str, types: tuple[type, ...], source: str, where: str) -> Any:
    value = table.get(key)
    if value is None:
        return None
    if isinstance(value, bool) and bool not in types or not isinstance(value, types):
        names = " or ".join(t.__name__ for t in types)
        raise ConfigError(f"must be {names}, got {value!r}", source=source, field=f"{where}{key}")
    return value


def _expand(path: str | None) -> str | None:
    return str(Path(path).expanduser()) if path else None


def parse_config(data: Mapping[str, Any], path: Path, *, exists: bool = True,
                 data_dir: str | Path | None = None) -> Config:
    """Build a Config from parsed TOML, checking the format version and every known key."""
    source = str(path)
    fmt = data.get("format")
    if fmt is None:
        raise ConfigError(f"missing format = \"{FORMAT}\" (the first line of the file)", source=source,
                          field="format")
    name, _, major = str(fmt).partition("/")
    if name != FORMAT_KIND or major.split(".")[0] != str(FORMAT_MAJOR):
        raise FormatVersionError(f"format {fmt!r} is not supported (this keltis-cam reads {FORMAT})",
                                 source=source, field="format")
    cam_t = data.get("camera", {})
    cal_t = data.get("calibration", {})
    game_t = data.get("game", {})
    for key, table in (("camera", cam_t), ("calibration", cal_t), ("game", game_t)):
        if not isinstance(table, dict):
            raise ConfigError(f"must be a table [{key}]", source=source, field=key)
    known_cam = {"source", "width", "height", "fps", "settle_seconds", "autofocus", "lens_position"}
    unknown = sorted(set(cam_t) - known_cam)
    if unknown:
        raise ConfigError(f"unknown key(s) {unknown} (known: {sorted(known_cam)})", source=source, field="camera")
    autofocus = _get(cam_t, "autofocus", (str,), source, "camera.") or "once"
    if autofocus not in AUTOFOCUS:
        raise ConfigError(f"must be one of {AUTOFOCUS}, got {autofocus!r}", source=source, field="camera.autofocus")
    width = _get(cam_t, "width", (int,), source, "camera.")
    height = _get(cam_t, "height", (int,), source, "camera.")
    if (width is None) != (height is None):
        raise ConfigError("give both width and height, or neither", source=source, field="camera.width")
    settle = _get(cam_t, "settle_seconds", (int, float), source, "camera.")
    camera = CameraConfig(source=_get(cam_t, "source", (str,), source, "camera.") or None,
                          width=width, height=height, fps=_get(cam_t, "fps", (int, float), source, "camera."),
                          settle_seconds=2.0 if settle is None else float(settle), autofocus=autofocus,
                          lens_position=_get(cam_t, "lens_position", (int, float), source, "camera."))
    if camera.autofocus == "manual" and camera.lens_position is None:
        raise ConfigError("autofocus = \"manual\" needs lens_position", source=source, field="camera.lens_position")
    if data_dir is None:
        data_dir = os.environ.get("KELTIS_CAM_DATA") or _get(data, "data_dir", (str,), source, "")
    resolved = Path(data_dir).expanduser() if data_dir else default_data_dir()
    tracking_t = data.get("tracking", {})
    if not isinstance(tracking_t, dict):
        raise ConfigError("must be a table [tracking]", source=source, field="tracking")
    tracking = TrackingConfig.from_json(tracking_t, source=f"{source} [tracking]")
    sections = {k: v for k, v in data.items()
                if k not in ("format", "data_dir", "camera", "calibration", "game", "tracking")}
    return Config(path=path, exists=exists, data_dir=resolved, camera=camera,
                  calibration_file=_get(cal_t, "file", (str,), source, "calibration.") or "calibration.json",
                  board=_get(game_t, "board", (str,), source, "game."), tracking=tracking, sections=sections,
                  components=_expand(_get(game_t, "components", (str,), source, "game.")))


def load_config(path: str | Path | None = None, *, data_dir: str | Path | None = None) -> Config:
    """Read the config file (defaults when it does not exist); ConfigError names file, line and key."""
    p = Path(path).expanduser() if path else config_path()
    if not p.exists():
        if path:  # a file named explicitly must exist
            raise ConfigError("no such config file", source=str(p))
        return parse_config({"format": FORMAT}, p, exists=False, data_dir=data_dir)
    try:
        with open(p, "rb") as fh:
            data = tomllib.load(fh)
        check_json_value(data, str(p))
    except OSError as exc:
        raise ConfigError(f"cannot read: {exc.strerror or exc}", source=str(p)) from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"not valid TOML: {exc}", source=str(p)) from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"not UTF-8 text (a binary file?): byte {exc.start}", source=str(p)) from None
    except RecursionError:
        raise ConfigError("not valid TOML: nested too deep", source=str(p)) from None
    except MalformedInput as exc:
        raise ConfigError(str(exc)) from None
    except ValueError as exc:  # tomllib refuses a number it cannot convert (over 4300 digits)
        raise ConfigError(f"not valid TOML: {exc}", source=str(p)) from None
    return parse_config(data, p, data_dir=data_dir)


NO_SOURCE_NOTE = ("# No camera was found when this file was written: `keltis-cam serve` replays the bundled\n"
                  "# example game. Connect a camera and set the source:\n")


def _toml_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def default_config_text(source: str | None = None, *, board: str | None = None, note: str | None = None) -> str:
    """The commented config file: `source` set (None: left unset, with a note saying why), and the
    board of the game set up on the first-run page, if any. `note`: a comment put on top."""
    text = DEFAULT_TEXT
    if source:
        text = text.replace('source = "picamera2"', f"source = {_toml_string(source)}")
    else:
        text = text.replace('source = "picamera2"\n', NO_SOURCE_NOTE + '# source = "picamera2"\n')
    if board:
        text = text.replace('[game]\n# board = "nwnz"\n', f"[game]\nboard = {_toml_string(board)}\n")
    if note:
        text = "".join(f"# {line}\n" for line in note.splitlines()) + text
    return text


def write_default_config(path: str | Path | None = None, *, force: bool = False, source: str | None = None,
                         board: str | None = None, note: str | None = None) -> Path:
    """Write the commented default config file (refuses to overwrite unless force).

    source None leaves [camera] source unset (serve then falls back to the demo): the caller
    decides which source exists on this machine (keltis_cam.pipeline.detect_camera_source)."""
    p = Path(path).expanduser() if path else config_path()
    if p.exists() and not force:
        raise ConfigError("already exists (pass --force to overwrite)", source=str(p))
    text = default_config_text(source, board=board, note=note)
    parse_config(tomllib.loads(text), p)  # the template must always parse
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text, encoding="utf-8")
    return p


def main(argv: list[str] | None = None) -> int:
    """`python -m keltis_cam.config init [PATH] [--force] [--source S]` or `show` (used by install-pi.sh)."""
    import argparse

    ap = argparse.ArgumentParser(prog="python -m keltis_cam.config")
    sub = ap.add_subparsers(dest="cmd", required=True)
    init = sub.add_parser("init")
    init.add_argument("path", nargs="?")
    init.add_argument("--force", action="store_true")
    init.add_argument("--source")
    sub.add_parser("show")
    args = ap.parse_args(argv)
    try:
        if args.cmd == "init":
            from keltis_cam.pipeline import init_source

            source, _why = init_source(args.source)
            print(write_default_config(args.path, force=args.force, source=source))
        else:
            cfg = load_config()
            print(f"config file: {cfg.path} ({'found' if cfg.exists else 'missing, defaults used'})")
            print(f"data dir:    {cfg.data_dir}")
            print(f"calibration: {cfg.calibration_path}")
            print(f"camera:      {cfg.camera}")
    except MalformedInput as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
