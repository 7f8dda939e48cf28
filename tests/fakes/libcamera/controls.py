"""Fake `libcamera.controls`: the enums, with libcamera's numeric values."""
from enum import IntEnum


class AfModeEnum(IntEnum):
    Manual = 0
    Auto = 1
    Continuous = 2


class AfTriggerEnum(IntEnum):
    Start = 0
    Cancel = 1


class AfStateEnum(IntEnum):
    Idle = 0
    Scanning = 1
    Focused = 2
    Failed = 3


class AeConstraintModeEnum(IntEnum):
    Normal = 0
    Highlight = 1
    Shadows = 2
    Custom = 3


class AeExposureModeEnum(IntEnum):
    Normal = 0
    Short = 1
    Long = 2
    Custom = 3


class draft:
    class NoiseReductionModeEnum(IntEnum):
        Off = 0
        Fast = 1
        HighQuality = 2
        Minimal = 3
        ZSL = 4
