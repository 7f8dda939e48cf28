"""Lighting and sensor conditions of one frame, how they are drawn at random, and how they drift.

Scene lighting (lamp direction and distance, shadow strength and softness, and the lamp's specular
highlight on glossy pieces: the printed board, cards, tiles, a phone's glass, a varnished table) is
part of the 3-D scene; the rest acts on the image: colour temperature (2700–6500 K) the camera's
white balance only partly corrects, exposure, a brightness gradient across the table, vignetting, a
glare patch (veiling glare over part of the picture), lens blur, sensor noise that grows as the
light dims (higher gain; a new noise pattern every frame), JPEG quality.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass, replace
from typing import Any

import numpy as np

#: The lamp's colour temperature (K): a warm 2700 K bulb to daylight.
TEMP_RANGE = (2700.0, 6500.0)


@dataclass(frozen=True)
class Glare:
    """A bright reflection: centre and radius as fractions of the image width, intensity 0–1."""

    x: float
    y: float
    radius: float
    intensity: float
    aspect: float = 1.0
    angle: float = 0.0


@dataclass(frozen=True)
class Conditions:
    """Everything about the light and the sensor for one frame (see the module docstring)."""

    light_azimuth: float = 135.0      # deg, where the lamp's light comes from (0 = north, 90 = east)
    light_elevation: float = 65.0     # deg above the table
    shadow_strength: float = 0.45     # 0 none … 1 black
    shadow_softness: float = 4.0      # mm of penumbra
    colour_temp: float = 4500.0       # K of the light
    wb_residual: float = 0.5          # fraction of the colour cast the camera's white balance leaves
    exposure: float = 1.0             # overall brightness
    gradient_angle: float = 0.0       # deg, direction in the image in which it gets brighter
    gradient: float = 0.15            # brightness change across the image (fraction)
    vignetting: float = 0.25          # darkening in the corners (fraction)
    glare: Glare | None = None
    blur: float = 0.6                 # lens blur sigma, px at 2304 px width
    noise: float = 2.0                # sensor noise sigma (8-bit levels) at exposure 1
    jpeg_quality: int = 88
    lamp_distance: float = 1600.0     # mm from the middle of the table to the lamp
    gloss: float = 0.0                # peak of the lamp's specular highlight on the glossiest surface (0–1+)
    gloss_shininess: float = 120.0    # Blinn-Phong exponent: higher = smaller, sharper highlight

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        return {k: (round(v, 4) if isinstance(v, float) else v) for k, v in d.items()} | (
            {"glare": {k: round(v, 4) for k, v in asdict(self.glare).items()}} if self.glare else {"glare": None})

    @property
    def light_dir(self) -> np.ndarray:
        """The direction light travels (world frame, z down), unit length."""
        az, el = math.radians(self.light_azimuth), math.radians(self.light_elevation)
        # Light comes FROM the azimuth (0 = north = -y), so it travels toward the opposite side.
        src = np.array([math.sin(az) * math.cos(el), -math.cos(az) * math.cos(el), -math.sin(el)])
        return -src / np.linalg.norm(src)

    def white_balance(self) -> np.ndarray:
        """Per-channel gains (B, G, R) of the colour cast left after the camera's white balance."""
        ref = _kelvin_rgb(5600.0)
        rgb = _kelvin_rgb(self.colour_temp) / ref
        rgb = rgb / rgb.mean()
        rgb = rgb ** self.wb_residual
        return np.array([rgb[2], rgb[1], rgb[0]], np.float32)

    def scene_key(self) -> tuple:
        """What the cached 3-D layer depends on (shadows)."""
        return (round(self.light_azimuth, 1), round(self.light_elevation, 1), round(self.shadow_strength, 3),
                round(self.shadow_softness, 2), round(self.lamp_distance, 0), round(self.gloss, 3),
                round(self.gloss_shininess, 1))

    def lamp_position(self, centre: tuple[float, float]) -> np.ndarray:
        """Where the lamp hangs (world frame, z down): `lamp_distance` from `centre` toward the light."""
        return np.array([centre[0], centre[1], 0.0]) - self.light_dir * self.lamp_distance


def _kelvin_rgb(t: float) -> np.ndarray:
    """Approximate RGB (0–1) of a black body at `t` kelvin (Tanner Helland's fit)."""
    t = t / 100.0
    if t <= 66:
        r = 255.0
        g = 99.4708025861 * math.log(t) - 161.1195681661
        b = 0.0 if t <= 19 else 138.5177312231 * math.log(t - 10) - 305.0447927307
    else:
        r = 329.698727446 * (t - 60) ** -0.1332047592
        g = 288.1221695283 * (t - 60) ** -0.0755148492
        b = 255.0
    return np.clip(np.array([r, g, b], np.float64), 1, 255) / 255.0


def sample_conditions(rng: np.random.Generator, *, hard: bool = False, dark: bool = False) -> Conditions:
    """Random conditions over the whole range a living room gives (hard: dim warm light and glare)."""
    glare = None
    if hard or rng.random() < 0.35:
        glare = Glare(x=float(rng.uniform(0.15, 0.85)), y=float(rng.uniform(0.15, 0.85)),
                      radius=float(rng.uniform(0.04, 0.12)),
                      intensity=float(rng.uniform(0.45, 0.8) if hard else rng.uniform(0.15, 0.6)),
                      aspect=float(rng.uniform(1.0, 2.2)), angle=float(rng.uniform(0, 180)))
    if hard:
        temp, exposure = float(rng.uniform(TEMP_RANGE[0], 3000)), float(rng.uniform(0.38, 0.5))
        residual = float(rng.uniform(0.6, 0.9))
    else:
        temp, exposure = float(rng.uniform(*TEMP_RANGE)), float(rng.uniform(0.55, 1.12))
        residual = float(rng.uniform(0.2, 0.7))
    if dark:
        exposure = float(rng.uniform(0.08, 0.14))
    # The lamp's mirror image in glossy pieces: none (a diffuse shade) to a bright, tight highlight.
    gloss = 0.0
    if hard or rng.random() < 0.6:
        gloss = float(rng.uniform(0.35, 1.0) if hard else rng.uniform(0.1, 1.0))
    extra = dict(lamp_distance=float(rng.uniform(900, 2200)), gloss=gloss,
                 gloss_shininess=float(np.exp(rng.uniform(math.log(30), math.log(600)))))
    return Conditions(
        light_azimuth=float(rng.uniform(0, 360)), light_elevation=float(rng.uniform(40, 85)),
        shadow_strength=float(rng.uniform(0.25, 0.6)), shadow_softness=float(rng.uniform(1.5, 10)),
        colour_temp=temp, wb_residual=residual, exposure=exposure,
        gradient_angle=float(rng.uniform(0, 360)), gradient=float(rng.uniform(0.0, 0.4 if hard else 0.3)),
        vignetting=float(rng.uniform(0.1, 0.5)), glare=glare,
        blur=float(rng.uniform(0.4, 1.3)), noise=float(rng.uniform(1.0, 3.5)),
        jpeg_quality=int(rng.integers(72, 95)), **extra)


def drift(c: Conditions, rng: np.random.Generator, dt: float) -> Conditions:
    """The same room `dt` seconds later: light and exposure wander slowly (clouds, auto exposure)."""
    s = math.sqrt(max(dt, 0.0))
    exposure = float(np.clip(c.exposure * math.exp(rng.normal(0, 0.012 * s)), 0.3, 1.2))
    temp = float(np.clip(c.colour_temp + rng.normal(0, 15 * s), *TEMP_RANGE))
    grad = float(np.clip(c.gradient + rng.normal(0, 0.004 * s), 0, 0.45))
    angle = (c.gradient_angle + rng.normal(0, 0.6 * s)) % 360
    glare = c.glare
    if glare is not None:
        glare = replace(glare, intensity=float(np.clip(glare.intensity + rng.normal(0, 0.005 * s), 0.05, 0.9)))
    return replace(c, exposure=exposure, colour_temp=temp, gradient=grad, gradient_angle=angle, glare=glare)
