"""Fake `libcamera` Python bindings: only what picamera2 users touch (see tests/fakes/README.md)."""
from . import controls  # noqa: F401


class Transform:
    """libcamera.Transform(hflip=0, vflip=0)."""

    def __init__(self, hflip: int = 0, vflip: int = 0, transpose: int = 0):
        self.hflip, self.vflip, self.transpose = hflip, vflip, transpose


class ColorSpace:
    """libcamera.ColorSpace with the named constructors picamera2 uses."""

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return f"<libcamera.ColorSpace '{self.name}'>"

    @staticmethod
    def Sycc() -> "ColorSpace":
        return ColorSpace("sYCC")

    @staticmethod
    def Rec709() -> "ColorSpace":
        return ColorSpace("Rec709")

    @staticmethod
    def Smpte170m() -> "ColorSpace":
        return ColorSpace("SMPTE170M")
