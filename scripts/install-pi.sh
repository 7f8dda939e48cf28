#!/usr/bin/env bash
# Install keltis-cam on a Raspberry Pi 4 or 5 running Raspberry Pi OS Bookworm (64-bit).
#
#   git clone <keltis-cam repository> && cd keltis-cam && bash scripts/install-pi.sh
#
# What it does (each step is idempotent; run it again after `git pull` to update):
#   1. apt: python3-picamera2 (with libcamera), python3-numpy, python3-venv; python3-opencv only when
#      apt's version has cv2.aruco.ArucoDetector (OpenCV >= 4.7; Bookworm ships 4.6).
#   2. a venv made with --system-site-packages (so it sees apt's picamera2 and numpy), at
#      ~/.local/share/keltis-cam/venv unless --venv DIR.
#   3. pip inside the venv, constrained to apt's numpy version (picamera2 is built against it):
#      the pinned OpenCV wheel when apt's is too old, then keltis-cam itself.
#   4. the keltis-cam command linked into ~/.local/bin, the data directory, and the config file
#      ~/.config/keltis-cam/config.toml (left alone if it exists).
#   5. `keltis-cam doctor`, which says what is still missing (camera, calibration).
#
# Options: --venv DIR  --data-dir DIR  --source SPEC (default: the camera found)  --dry-run (print the
# commands only)  --force (run on a machine that is not a Raspberry Pi).
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
DATA_DIR=${KELTIS_CAM_DATA:-${XDG_DATA_HOME:-$HOME/.local/share}/keltis-cam}
VENV=""
SOURCE=""  # empty: `config init` writes the camera it finds (Pi camera, else a USB camera, else none)
DRY_RUN=0
FORCE=0
# The OpenCV wheel used when apt's OpenCV is older than 4.7: aarch64 build, runs with numpy 1.x and 2.x.
PINNED_OPENCV="opencv-python-headless==4.10.0.84"

usage() { sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; }

while [ $# -gt 0 ]; do
    case "$1" in
        --venv) VENV=$2; shift 2 ;;
        --data-dir) DATA_DIR=$2; shift 2 ;;
        --source) SOURCE=$2; shift 2 ;;
        --dry-run) DRY_RUN=1; shift ;;
        --force) FORCE=1; shift ;;
        -h|--help) usage; exit 0 ;;
        *) echo "install-pi.sh: unknown option $1 (see --help)" >&2; exit 64 ;;
    esac
done
VENV=${VENV:-$DATA_DIR/venv}

say() { printf '\n==> %s\n' "$*"; }
run() {
    printf '    $ %s\n' "$*"
    if [ "$DRY_RUN" -eq 0 ]; then "$@"; fi
}
die() { echo "install-pi.sh: $*" >&2; exit 1; }

# ---------------------------------------------------------------- 0. the machine
say "Checking the machine"
MODEL=$( (tr -d '\0' < /proc/device-tree/model) 2>/dev/null || true)
if [[ "$MODEL" != *"Raspberry Pi"* ]]; then
    if [ "$FORCE" -eq 0 ] && [ "$DRY_RUN" -eq 0 ]; then
        die "this is not a Raspberry Pi (${MODEL:-no /proc/device-tree/model}); use scripts/dev.sh on a dev machine, or --force"
    fi
    echo "    not a Raspberry Pi (${MODEL:-unknown}): continuing because of --force/--dry-run"
else
    echo "    $MODEL"
fi
CODENAME=$( (. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}") || true)
case "$CODENAME" in
    bookworm|trixie) echo "    OS: $CODENAME" ;;
    *) echo "    warning: OS '$CODENAME' is not Raspberry Pi OS Bookworm; picamera2 from apt needs Bookworm or later" >&2 ;;
esac
ARCH=$(uname -m)
if [ "$ARCH" != "aarch64" ] && [ "$FORCE" -eq 0 ] && [ "$DRY_RUN" -eq 0 ]; then
    die "needs the 64-bit OS (uname -m says $ARCH): no OpenCV >= 4.7 exists for 32-bit Raspberry Pi OS"
fi
# The system Python, whatever else is on PATH: only it sees apt's picamera2, libcamera and numpy.
SYSPY=/usr/bin/python3
[ -x "$SYSPY" ] || die "$SYSPY not found"
PYVER=$("$SYSPY" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
"$SYSPY" -c 'import sys; sys.exit(sys.version_info < (3, 11))' || die "Python $PYVER is too old (needs 3.11, as on Bookworm)"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

# ---------------------------------------------------------------- 1. apt
say "Installing system packages (apt)"
run $SUDO apt-get update
run $SUDO apt-get install -y --no-install-recommends python3-picamera2 python3-numpy python3-venv python3-pip
OPENCV_APT=$(apt-cache policy python3-opencv 2>/dev/null | awk '/Candidate:/ {print $2}')
USE_APT_OPENCV=0
if [ -n "$OPENCV_APT" ] && [ "$OPENCV_APT" != "(none)" ] && dpkg --compare-versions "$OPENCV_APT" ge 4.7; then
    USE_APT_OPENCV=1
    run $SUDO apt-get install -y --no-install-recommends python3-opencv
    echo "    OpenCV from apt ($OPENCV_APT)"
else
    echo "    apt's OpenCV (${OPENCV_APT:-none}) predates cv2.aruco.ArucoDetector: using the wheel $PINNED_OPENCV"
fi

# ---------------------------------------------------------------- 2. venv
say "Creating the virtual environment $VENV (sees apt's picamera2 and numpy)"
if [ -x "$VENV/bin/python" ] && ! "$VENV/bin/python" -c 'import sys; sys.exit(sys.prefix == sys.base_prefix)' 2>/dev/null; then
    die "$VENV exists but is not a venv; remove it or pass --venv"
fi
if [ -x "$VENV/bin/python" ] && ! grep -q "include-system-site-packages = true" "$VENV/pyvenv.cfg" 2>/dev/null; then
    die "$VENV was made without --system-site-packages, so it cannot see picamera2: remove it and run again"
fi
run mkdir -p "$(dirname "$VENV")"
run "$SYSPY" -m venv --system-site-packages "$VENV"

# ---------------------------------------------------------------- 3. pip, pinned to apt's numpy
say "Installing keltis-cam into the venv"
CONSTRAINTS="$VENV/keltis-constraints.txt"
NUMPY_VERSION=$("$SYSPY" -c 'import numpy; print(numpy.__version__)' 2>/dev/null || echo "")
if [ "$DRY_RUN" -eq 0 ]; then
    [ -n "$NUMPY_VERSION" ] || die "apt's numpy is not importable by $SYSPY"
    printf 'numpy==%s\n' "$NUMPY_VERSION" > "$CONSTRAINTS"
fi
echo "    numpy pinned to apt's ${NUMPY_VERSION:-<version>} (picamera2 and simplejpeg are built against it)"
PIP=("$VENV/bin/python" -m pip install --disable-pip-version-check -c "$CONSTRAINTS")
if [ "$USE_APT_OPENCV" -eq 0 ]; then
    run "${PIP[@]}" "$PINNED_OPENCV"
fi
run "${PIP[@]}" --upgrade "$REPO"

# ---------------------------------------------------------------- 4. command, data, config
say "Command, data directory and config file"
run mkdir -p "$HOME/.local/bin" "$DATA_DIR/sessions"
run ln -sf "$VENV/bin/keltis-cam" "$HOME/.local/bin/keltis-cam"
CONFIG=${KELTIS_CAM_CONFIG:-${XDG_CONFIG_HOME:-$HOME/.config}/keltis-cam/config.toml}
if [ -e "$CONFIG" ]; then
    echo "    keeping the existing config $CONFIG"
else
    run "$VENV/bin/keltis-cam" config init "$CONFIG" ${SOURCE:+--source "$SOURCE"}
    if [ "$DATA_DIR" != "${XDG_DATA_HOME:-$HOME/.local/share}/keltis-cam" ] && [ "$DRY_RUN" -eq 0 ]; then
        sed -i "s|^# data_dir = .*|data_dir = \"$DATA_DIR\"|" "$CONFIG"
    fi
fi
if ! id -nG | grep -qw video; then
    echo "    note: $(id -un) is not in the 'video' group; run: sudo usermod -aG video $(id -un) (then log in again)"
fi
case ":$PATH:" in
    *":$HOME/.local/bin:"*) ;;
    *) echo "    note: add ~/.local/bin to PATH (log out and in again on Raspberry Pi OS, which adds it when it exists)" ;;
esac

# ---------------------------------------------------------------- 5. doctor
say "Checking the installation (keltis-cam doctor)"
if [ "$DRY_RUN" -eq 0 ]; then
    KELTIS_CAM_DATA="$DATA_DIR" "$VENV/bin/keltis-cam" doctor || true
    cat <<EOF

Next steps (README, "Raspberry Pi"):
  keltis-cam calibrate default --board nwnz --out $DATA_DIR/calibration.json
  keltis-cam calibrate markers ~/markers.pdf      # print at 100 %, lay the markers
  keltis-cam calibrate check --out ~/check.jpg    # look at the overlay
  keltis-cam doctor --grab
EOF
fi
