"""Frame delivery overhead: what the capture machinery, replay, recording and registration cost per frame.

    .venv/bin/python bench/frame_delivery.py [--size 2304x1296] [--frames 200]

Prints one line per measurement (ms per frame, mean and 95th percentile, and frames/s):
- handover: capture thread -> latest() consumer, with a source that produces frames instantly
  (the pure cost of the thread, the Condition and the latest-frame slot; no camera)
- latency:  time from a frame's publication to a waiting consumer holding it (latest-frame
            mode, frames arriving at 56 fps like a Camera Module 3)
- replay:   reading + decoding one recorded JPEG frame (what replay:SESSION costs per frame)
- record:   JPEG-encoding + writing one frame through SessionWriter (what `record` costs)
- register: detect_markers + homography on a rendered table frame (calibration per frame)
The Pi 4/5 runs these roughly 3x slower than one core of a typical dev machine.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from camera.sources.base import CaptureThreadSource  # noqa: E402


class InstantSource(CaptureThreadSource):
    """A source whose 'camera' hands over the same pre-made frame at once: measures only the machinery."""

    def __init__(self, image: np.ndarray, count: int, lossless: bool, fps: float | None = None):
        super().__init__("bench", lossless=lossless)
        self.image, self.count, self.n = image, count, 0
        self.interval = 1.0 / fps if fps else 0.0
        self.next_at = time.monotonic()

    def _open(self) -> None:
        pass

    def _close(self) -> None:
        pass

    def _read(self):
        if self.n >= self.count:
            return None
        if self.interval:  # a camera waits for its sensor without holding the GIL
            self.next_at += self.interval
            time.sleep(max(0.0, self.next_at - time.monotonic()))
        self.n += 1
        return self.image, time.monotonic(), self.n


def report(name: str, samples_s: list[float], note: str = "", *, rate: bool = True) -> None:
    ms = sorted(s * 1000 for s in samples_s)
    mean = statistics.fmean(ms)
    p95 = ms[min(len(ms) - 1, int(0.95 * len(ms)))]
    fps = f"{1000 / mean:9.1f} frames/s" if rate and mean > 0 else " " * 18
    print(f"{name:<9} {mean:8.3f} ms/frame (p95 {p95:7.3f})  {fps}  {note}")


def bench_handover(image: np.ndarray, frames: int) -> None:
    source = InstantSource(image, frames, lossless=True)
    times = []
    with source:
        last = time.perf_counter()
        for _frame in source.frames():
            now = time.perf_counter()
            times.append(now - last)
            last = now
    report("handover", times[1:], "(lossless hand-over, thread + Condition + slot)")


def bench_latency(image: np.ndarray, frames: int) -> None:
    source = InstantSource(image, 10**9, lossless=False, fps=56)  # Camera Module 3 at 2304x1296
    latencies = []
    with source:
        last = 0
        while len(latencies) < frames:
            frame = source.latest(timeout=1.0, newer_than=last)
            latencies.append(time.monotonic() - frame.received)
            last = frame.seq
        delivered = source.status()["frames"]
    report("latency", latencies, f"(publish -> waiting consumer, camera at 56 fps; {delivered} frames published)",
           rate=False)


def bench_replay_and_record(image: np.ndarray, frames: int) -> None:
    from camera.session import SessionInfo, SessionWriter, encode_jpeg, open_session

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "s"
        writes = []
        with SessionWriter(folder, SessionInfo(source="bench")) as writer:
            for i in range(frames):
                start = time.perf_counter()
                writer.add_frame(encode_jpeg(image, 90), i * 0.5)
                writes.append(time.perf_counter() - start)
        session = open_session(folder)
        reads = []
        for ref in session.frames:
            start = time.perf_counter()
            session.read_frame(ref)
            reads.append(time.perf_counter() - start)
        size_kb = session.frames[0].path.stat().st_size / 1024
    report("replay", reads, f"(read + decode a {size_kb:.0f} KB JPEG)")
    report("record", writes, "(encode at quality 90 + atomic write + index line)")


def bench_register(size: tuple[int, int], frames: int) -> None:
    from calibration.model import default_calibration
    from calibration.registration import DEFAULT_CONFIG, register_board
    from calibration.sheet import table_extent
    from calibration.synthetic import homography_looking_at, render_table

    cal = default_calibration("base")
    H = homography_looking_at(table_extent(cal, (560, 395)), size)
    image = render_table(cal, H, size, board_size=(560, 395), noise=2.0)
    times = []
    for _ in range(frames):
        start = time.perf_counter()
        reg = register_board(DEFAULT_CONFIG, cal, image)
        times.append(time.perf_counter() - start)
    assert reg.ok, reg.reason
    report("register", times, f"(4 markers found, error {reg.reprojection_error:.2f} px)")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", default="2304x1296", help="frame size WxH (default: Camera Module 3 video mode)")
    ap.add_argument("--frames", type=int, default=200)
    args = ap.parse_args()
    w, h = (int(v) for v in args.size.lower().split("x"))
    rng = np.random.default_rng(0)
    # a frame with some texture, so JPEG sizes are realistic
    image = (rng.integers(0, 40, (h, w, 3), dtype=np.uint8) + np.linspace(60, 180, w, dtype=np.uint8)[None, :, None])
    print(f"frame {w}x{h}, {args.frames} frames per measurement, {threading.active_count()} thread(s) at start")
    bench_handover(image, args.frames)
    bench_latency(image, args.frames)
    bench_replay_and_record(image, max(20, args.frames // 5))
    bench_register((w, h), max(10, args.frames // 10))
    return 0


if __name__ == "__main__":
    sys.exit(main())
