"""The picamera2 source against the fake picamera2 module (tests/fakes), which mirrors the real calls."""
from __future__ import annotations

import time

import numpy as np
import pytest

from camera.sources import open_source
from camera.sources.pi_camera import INSTALL_HINT, describe_model, default_size


def wait_for(source, predicate, timeout=5.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        status = source.status()
        if predicate(status):
            return status
        time.sleep(0.01)
    raise AssertionError(f"timed out; last status {source.status()}")


def calls(picamera2, name):
    return [args for cam in picamera2.WORLD.instances for call, args in cam.calls if call == name]


def test_describe_and_default_size():
    assert describe_model("imx708_wide") == "Camera Module 3 (wide)"
    assert describe_model("imx219") == "Camera Module 2"
    assert default_size("imx708_wide_noir") == (2304, 1296)
    assert default_size("imx219") == (1640, 1232)
    assert default_size("ov9281", (1280, 800)) == (640, 400)


def test_video_configuration_at_the_size_the_pipeline_wants(fake_picamera2):
    with open_source("picamera2", settle_seconds=0.1) as source:
        frame = source.latest(timeout=5)
        status = source.status()
    config = calls(fake_picamera2, "create_video_configuration")[0]
    assert config["main"] == {"format": "RGB888", "size": (2304, 1296)}
    assert config["controls"]["FrameDurationLimits"] == (100000, 100000)  # 10 fps unless asked otherwise
    assert frame.image.shape == (1296, 2304, 3) and frame.image.dtype == np.uint8
    assert status["camera"] == "Camera Module 3 (wide)" and status["size"] == [2304, 1296]
    # the camera was stopped and closed, releasing it for the next user
    cam = fake_picamera2.WORLD.instances[0]
    assert [c for c, _ in cam.calls][-2:] == ["stop", "close"] and not fake_picamera2.WORLD.acquired


def test_frames_carry_sensor_timestamps(fake_picamera2):
    with open_source("picamera2?size=320x240&fps=50", settle_seconds=0.1) as source:
        frames = [f for f, _ in zip(source.frames(), range(6))]
    stamps = [f.timestamp for f in frames]
    assert all(b > a for a, b in zip(stamps, stamps[1:]))
    # SensorTimestamp is in ns of the monotonic clock: seconds, close to now
    assert abs(stamps[-1] - time.monotonic()) < 2.0
    assert [f.index for f in frames] == sorted(f.index for f in frames)
    config = calls(fake_picamera2, "create_video_configuration")[0]
    assert config["controls"]["FrameDurationLimits"] == (20000, 20000)


def test_autofocus_once_then_locked(fake_picamera2):
    fake_picamera2.WORLD.focus_position = 2.25
    with open_source("picamera2?size=320x240", settle_seconds=0.1) as source:
        source.latest(timeout=5)
        status = source.status()
    from libcamera import controls

    sets = calls(fake_picamera2, "set_controls")
    assert sets[0] == {"AfMode": controls.AfModeEnum.Auto, "AfTrigger": controls.AfTriggerEnum.Start}
    assert sets[1] == {"AfMode": controls.AfModeEnum.Manual, "LensPosition": 2.25}
    assert status["focus"] == {"mode": "locked", "lens_position": 2.25, "autofocus_ok": True}


def test_manual_focus_and_a_camera_without_autofocus(fake_picamera2):
    with open_source("picamera2?size=320x240&lens_position=0.8", autofocus="manual", settle_seconds=0.1) as source:
        source.latest(timeout=5)
    assert calls(fake_picamera2, "set_controls")[0]["LensPosition"] == 0.8
    fake_picamera2.WORLD.reset()
    fake_picamera2.WORLD.cameras = [{"Model": "imx219", "Location": 2, "Rotation": 0, "Id": "imx219@10", "Num": 0}]
    with open_source("picamera2", settle_seconds=0.1) as source:
        frame = source.latest(timeout=5)
        status = wait_for(source, lambda s: s["settled"])
    assert frame.image.shape == (1232, 1640, 3)
    assert status["focus"] == {"mode": "fixed"}
    assert all("AfMode" not in c for c in calls(fake_picamera2, "set_controls"))


def test_exposure_and_white_balance_locked_after_settling(fake_picamera2):
    world = fake_picamera2.WORLD
    world.light = 0.5
    with open_source("picamera2?size=160x120&fps=100", settle_seconds=0.3) as source:
        status = wait_for(source, lambda s: s["settled"])
        lock = calls(fake_picamera2, "set_controls")[-1]
        assert lock["AeEnable"] is False and lock["AwbEnable"] is False
        assert set(lock) == {"AeEnable", "ExposureTime", "AnalogueGain", "AwbEnable", "ColourGains"}
        assert status["locked"]["ExposureTime"] == lock["ExposureTime"]
        time.sleep(0.1)  # controls land a couple of frames later
        before = source.latest(timeout=1).image.mean()
        # the room gets brighter: a locked camera keeps its exposure, so the picture gets brighter too
        world.light = 1.0
        time.sleep(0.3)
        cam = world.instances[-1]
        md = cam._metadata(0)
        after = source.latest(timeout=1).image.mean()
    assert md["ExposureTime"] == lock["ExposureTime"] and md["ColourGains"] == lock["ColourGains"]
    assert after > before * 1.5


def test_without_locking_the_auto_exposure_follows_the_light(fake_picamera2):
    world = fake_picamera2.WORLD
    with open_source("picamera2?size=160x120&fps=100", settle_seconds=0.2, lock_exposure=False,
                     lock_white_balance=False) as source:
        wait_for(source, lambda s: s["settled"])
        md = world.instances[-1]._metadata(0)
        exposure = md["ExposureTime"] * md["AnalogueGain"]
        world.light = 0.25
        time.sleep(0.4)
        md = world.instances[-1]._metadata(0)
        assert md["ExposureTime"] * md["AnalogueGain"] > 2 * exposure


def test_unplugged_camera_is_reported_retried_and_restored_with_the_same_locked_values(fake_picamera2):
    world = fake_picamera2.WORLD
    source = open_source("picamera2?size=160x120&fps=100", settle_seconds=0.2, retry_initial=0.05, retry_max=0.2)
    with source:
        wait_for(source, lambda s: s["settled"])
        locked = dict(source.status()["locked"])
        world.unplug()
        status = wait_for(source, lambda s: s["state"] == "retrying")
        assert "libcamera finds no camera" in status["error"]
        assert source.status()["frames"] == status["frames"]  # nothing downstream crashed, just no frames
        world.plug_in()
        status = wait_for(source, lambda s: s["state"] == "running" and s["reconnects"] == 1)
        frame = source.latest(timeout=2, newer_than=status["frames"])
    assert frame is not None
    # the reopened camera starts with the game's focus, exposure and white balance; no new settling
    reopened = calls(fake_picamera2, "create_video_configuration")[-1]["controls"]
    assert reopened["AeEnable"] is False and reopened["AwbEnable"] is False
    assert reopened["ExposureTime"] == locked["ExposureTime"]
    assert list(reopened["ColourGains"]) == locked["ColourGains"]
    assert reopened["LensPosition"] == locked["LensPosition"]
    assert sum(1 for c in calls(fake_picamera2, "set_controls") if "AfTrigger" in c) == 1


def test_reconnecting_to_a_different_camera_model_keeps_only_the_controls_it_has(fake_picamera2):
    world = fake_picamera2.WORLD
    source = open_source("picamera2?size=160x120&fps=100", settle_seconds=0.1, retry_initial=0.05)
    with source:
        wait_for(source, lambda s: s["settled"])
        world.unplug()
        wait_for(source, lambda s: s["state"] == "retrying")
        world.cameras = [{"Model": "imx219", "Location": 2, "Rotation": 0, "Id": "imx219@10", "Num": 0}]
        world.fail_after_frames = None
        status = wait_for(source, lambda s: s["state"] == "running" and s["reconnects"] == 1)
    reopened = calls(fake_picamera2, "create_video_configuration")[-1]["controls"]
    assert "AfMode" not in reopened and "LensPosition" not in reopened and reopened["AeEnable"] is False
    assert status["camera"] == "Camera Module 2"


def test_driver_error_mid_capture_is_a_loss(fake_picamera2, caplog):
    world = fake_picamera2.WORLD
    source = open_source("picamera2?size=160x120&fps=100", settle_seconds=0.1, retry_initial=0.05)
    with source:
        source.latest(timeout=5)
        world.fail_after_frames = world.frames_produced + 3
        status = wait_for(source, lambda s: s["state"] in ("lost", "retrying") or s["failures"] > 0)
        assert "Camera frontend has timed out!" in (status["error"] or "")
        world.fail_after_frames = None
        wait_for(source, lambda s: s["state"] == "running" and s["reconnects"] >= 1)
    assert any("camera lost" in r.message for r in caplog.records)


def test_stalled_camera_times_out_and_recovers(fake_picamera2):
    world = fake_picamera2.WORLD
    source = open_source("picamera2?size=160x120&fps=100&capture_timeout=0.2", settle_seconds=0.1,
                         retry_initial=0.05)
    with source:
        source.latest(timeout=5)
        world.stall = True
        status = wait_for(source, lambda s: s["state"] in ("lost", "retrying"), timeout=3)
        assert "no answer from the camera within 0.2 s" in status["error"]
        world.stall = False
        wait_for(source, lambda s: s["state"] == "running" and s["reconnects"] >= 1)


def test_camera_busy_or_missing_is_retried(fake_picamera2):
    world = fake_picamera2.WORLD
    world.acquired.add(0)  # another process holds the camera
    source = open_source("picamera2?size=160x120", settle_seconds=0.1, retry_initial=0.05, retry_max=0.1)
    with source:
        status = wait_for(source, lambda s: s["failures"] >= 2)
        assert status["state"] == "retrying" and "Camera __init__ sequence did not complete" in status["error"]
        world.acquired.discard(0)
        wait_for(source, lambda s: s["state"] == "running")
    with open_source("picamera2:3", retry_initial=0.05) as source:
        status = wait_for(source, lambda s: s["failures"] >= 1)
    assert "camera 3 not found: libcamera lists 1 camera(s)" in status["error"]


def test_requests_are_always_released(fake_picamera2):
    with open_source("picamera2?size=160x120&fps=200", settle_seconds=0.05) as source:
        frames = [f for f, _ in zip(source.frames(), range(30))]
        cam = fake_picamera2.WORLD.instances[-1]
        assert cam._outstanding == 0
    assert len(frames) == 30


def test_without_picamera2_installed_the_source_fails_with_the_fix(no_picamera2):
    source = open_source("picamera2")
    with source:
        status = wait_for(source, lambda s: s["state"] == "failed")
    assert INSTALL_HINT in status["error"] and status["failures"] == 0


def test_bad_options_are_refused():
    with pytest.raises(ValueError, match="autofocus"):
        open_source("picamera2", autofocus="sometimes")
    with pytest.raises(ValueError, match="lens_position"):
        open_source("picamera2", autofocus="manual")


def test_a_corrupt_frame_is_skipped_and_counted_not_a_lost_camera(fake_picamera2, caplog):
    world = fake_picamera2.WORLD
    source = open_source("picamera2?size=160x120&fps=100", settle_seconds=0.1, retry_initial=0.05)
    with source:
        first = source.latest(timeout=5)
        world.corrupt_frames = 2
        status = wait_for(source, lambda s: s["corrupt"] == 2 and s["frames"] > first.seq + 2)
        frame = source.latest(timeout=2)
    assert status["state"] == "running" and status["reconnects"] == 0 and status["failures"] == 0
    assert frame.image.shape == (120, 160, 3)  # every frame delivered is a whole picture
    assert any("corrupt frame skipped" in r.message and "cannot reshape" in r.message for r in caplog.records)


def test_corrupt_frames_that_go_on_are_a_lost_camera_and_it_is_reopened(fake_picamera2):
    world = fake_picamera2.WORLD
    source = open_source("picamera2?size=160x120&fps=100", settle_seconds=0.1, retry_initial=0.05,
                         max_corrupt_run=3)
    with source:
        source.latest(timeout=5)
        world.corrupt_frames = 3
        status = wait_for(source, lambda s: s["reconnects"] >= 1 and s["state"] == "running")
    assert "3 corrupt frames in a row" in status["error"]


def test_low_resolution_stream_comes_with_every_frame(fake_picamera2):
    """main + lores (YUV420, 320 wide in main's aspect): Frame.small is the same instant, small and in
    colour, so the live pipeline judges stillness and hands without touching the big picture."""
    import cv2

    def scene(w, h):
        img = np.full((h, w, 3), 60, np.uint8)
        cv2.rectangle(img, (w // 4, h // 4), (w // 2, h // 2), (230, 230, 230), -1)
        return img

    fake_picamera2.WORLD.scene = scene
    with open_source("picamera2", settle_seconds=0.1) as source:
        frame = source.latest(timeout=5)
        status = source.status()
    config = calls(fake_picamera2, "create_video_configuration")[0]
    assert config["lores"] == {"size": (320, 180), "format": "YUV420"}
    assert status["lores"] == [320, 180]
    assert frame.small.shape == (180, 320, 3) and not frame.small.flags.writeable
    expected = cv2.resize(frame.image, (320, 180), interpolation=cv2.INTER_AREA)
    assert np.abs(frame.small.astype(int) - expected.astype(int)).mean() < 3.0


def test_low_resolution_stream_in_a_4_3_camera_and_turned_off(fake_picamera2):
    fake_picamera2.WORLD.cameras = [{"Model": "imx219", "Location": 2, "Rotation": 0, "Id": "imx219@10", "Num": 0}]
    with open_source("picamera2", settle_seconds=0.1) as source:
        frame = source.latest(timeout=5)
    assert calls(fake_picamera2, "create_video_configuration")[0]["lores"]["size"] == (320, 240)
    assert frame.small.shape == (240, 320, 3)
    fake_picamera2.WORLD.reset()
    with open_source("picamera2?lores=off", settle_seconds=0.1) as source:
        frame = source.latest(timeout=5)
    assert calls(fake_picamera2, "create_video_configuration")[-1]["lores"] is None
    assert frame.small is None


def test_a_full_resolution_still_on_request_keeps_the_locked_exposure(fake_picamera2):
    """`?stills=on`: Frame.still() switches to the still mode at the sensor's full size, takes one
    picture with the locked controls and switches back; the video goes on, locked as before
    (picamera2 restarts the video mode with its configuration's controls: they are set again)."""
    world = fake_picamera2.WORLD
    world.light = 0.5
    with open_source("picamera2?size=160x120&fps=100&stills=on", settle_seconds=0.3) as source:
        wait_for(source, lambda s: s["settled"])
        time.sleep(0.1)
        frame = source.latest(timeout=1)
        assert frame.still is not None and frame.image.shape == (120, 160, 3)
        locked = dict(source.status()["locked"])
        picture = frame.still()
        assert picture is not None and picture.shape == (2592, 4608, 3) and not picture.flags.writeable
        still_config = calls(fake_picamera2, "create_still_configuration")[-1]
        assert still_config["main"] == {"format": "RGB888", "size": (4608, 2592)}
        assert still_config["controls"]["ExposureTime"] == locked["ExposureTime"]
        assert still_config["controls"]["AeEnable"] is False
        # back in video mode: frames keep coming, and the lock is set again after the switch back
        seq = source.latest(timeout=1).seq
        assert source.latest(timeout=1, newer_than=seq) is not None
        assert calls(fake_picamera2, "set_controls")[-1]["AeEnable"] is False
        time.sleep(0.1)
        cam = world.instances[-1]
        assert cam._ctrl["AeEnable"] is False and cam._metadata(0)["ExposureTime"] == locked["ExposureTime"]
        assert source.status()["stills"] == 1


def _hot_spot_table(w, h):
    """A pale table (luma ~150) with a lamp's hot spot on a tenth of it: white at the exposure that
    suits the rest."""
    scene = np.full((h, w, 3), (150, 150, 150), np.uint8)
    scene[h // 3:h // 3 + h // 4, w // 3:w // 3 + w * 2 // 5] = 255
    return scene


@pytest.mark.parametrize("highlights, clipped", [("protect", False), ("normal", True)])
def test_auto_exposure_keeps_a_lamps_hot_spot_below_white_before_it_is_locked(fake_picamera2, highlights, clipped):
    """Cards lying in a lamp's hot spot clipped to white lose their colours and numerals: while it settles,
    AE runs with libcamera's highlight constraint (the brightest 2 % below white), and the share of the
    picture clipped at the locked exposure is reported. `highlights=normal` leaves libcamera's default."""
    from camera.sources.base import clipped_share
    from libcamera import controls

    fake_picamera2.WORLD.scene = _hot_spot_table
    with open_source(f"picamera2?size=320x240&fps=100&highlights={highlights}", settle_seconds=0.4) as source:
        wait_for(source, lambda s: s["settled"])
        time.sleep(0.1)
        frame = source.latest(timeout=1)
        status = source.status()
    share = clipped_share(frame.image)
    constraint = {"AeConstraintMode": controls.AeConstraintModeEnum.Highlight}
    assert (constraint in calls(fake_picamera2, "set_controls")) is not clipped
    if clipped:
        assert share > 0.05 and status["clipped"] > 0.05 and "ae_constraint" not in status
    else:
        assert share < 0.01 and status["clipped"] < 0.01 and status["ae_constraint"] == "highlight"
        # the rest of the table is not made dark to do it: a fifth darker at most
        assert 110 <= float(np.median(frame.image)) <= 150


def test_a_bad_highlights_option_is_refused():
    from camera.sources.pi_camera import Picamera2Source

    with pytest.raises(ValueError, match="highlights"):
        Picamera2Source(0, highlights="bright")


def test_without_stills_frames_offer_none(fake_picamera2):
    with open_source("picamera2?size=160x120&fps=100&stills=off", settle_seconds=0.0) as source:
        frame = source.latest(timeout=2)
        assert frame.still is None and source.status()["stills"] is None
        assert not calls(fake_picamera2, "create_still_configuration")


@pytest.mark.parametrize("model, size, takes", [("imx708", "160x120", True), ("imx708", "2304x1296", True),
                                                 ("unknown-1080p", "1600x900", False)])
def test_stills_are_on_by_default_when_the_sensor_has_many_more_pixels_than_the_video(fake_picamera2, model, size,
                                                                                       takes):
    """The default `stills=auto`: a Camera Module 3 (4608 wide) filming 2304 wide takes stills for the card
    reader; a sensor hardly wider than its video stream (here 1920 against 1600) does not."""
    fake_picamera2.WORLD.cameras = [{"Model": model, "Location": 2, "Rotation": 0, "Id": f"{model}@1a", "Num": 0}]
    with open_source(f"picamera2?size={size}&fps=30", settle_seconds=0.0) as source:
        frame = source.latest(timeout=5)
        assert (frame.still is not None) == takes
        assert (source.status()["stills"] is not None) == takes
