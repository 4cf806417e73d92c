"""Colour-vision deficiency, measured: how far apart two drawn colours look to a protan,
deutan or tritan eye (tests/test_render_colour_vision.py).

Simulation: Machado, Oliveira & Fernandes (2009), "A Physiologically-based Model for
Simulation of Color Vision Deficiency", the published matrices at severity 1.0 (dichromacy,
the strongest form), applied to linear RGB. Distance: CIEDE2000 in CIELAB (D65), which
weights lightness, chroma and hue as eyes do; about 2 is a just-noticeable difference, and
10 is what a glance at a small mark on a phone needs (the threshold the tests use).

Pure Python: the project has no numpy, and a few hundred colour pairs cost nothing.
"""

from __future__ import annotations

import math

RGB = tuple[int, int, int]
Lab = tuple[float, float, float]

# Machado et al. 2009, severity 1.0, rows for R', G', B' (each row sums to 1: grey stays grey)
MACHADO: dict[str, tuple[tuple[float, float, float], ...]] = {
    "protan": ((0.152286, 1.052583, -0.204868),
               (0.114503, 0.786281, 0.099216),
               (-0.003882, -0.048116, 1.051998)),
    "deutan": ((0.367322, 0.860646, -0.227968),
               (0.280085, 0.672501, 0.047413),
               (-0.011820, 0.042940, 0.968881)),
    "tritan": ((1.255528, -0.076749, -0.178779),
               (-0.078411, 0.930809, 0.147602),
               (0.004733, 0.691367, 0.303900)),
}
VISIONS = ("normal", *MACHADO)


def linear(c: RGB) -> tuple[float, float, float]:
    """sRGB 0–255 to linear light 0–1."""
    def f(v: int) -> float:
        x = v / 255
        return x / 12.92 if x <= 0.04045 else ((x + 0.055) / 1.055) ** 2.4
    return f(c[0]), f(c[1]), f(c[2])


def simulate(c: RGB, vision: str) -> tuple[float, float, float]:
    """The linear RGB a `vision` eye's colour matches (clipped to the screen's gamut)."""
    lin = linear(c)
    if vision == "normal":
        return lin
    return tuple(min(1.0, max(0.0, sum(m * x for m, x in zip(row, lin, strict=True))))
                 for row in MACHADO[vision])  # type: ignore[return-value]


def lab(lin: tuple[float, float, float]) -> Lab:
    """Linear sRGB to CIELAB, D65 white."""
    r, g, b = lin
    x = (0.4124564 * r + 0.3575761 * g + 0.1804375 * b) / 0.95047
    y = 0.2126729 * r + 0.7151522 * g + 0.0721750 * b
    z = (0.0193339 * r + 0.1191920 * g + 0.9503041 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 216 / 24389 else (24389 / 27 * t + 16) / 116
    fx, fy, fz = f(x), f(y), f(z)
    return 116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)


def de2000(p: Lab, q: Lab) -> float:
    """CIEDE2000 colour difference (Sharma, Wu & Dalal 2005 formulation)."""
    l1, a1, b1 = p
    l2, a2, b2 = q
    cbar = (math.hypot(a1, b1) + math.hypot(a2, b2)) / 2
    g = 0.5 * (1 - math.sqrt(cbar ** 7 / (cbar ** 7 + 25 ** 7)))
    a1p, a2p = (1 + g) * a1, (1 + g) * a2
    c1p, c2p = math.hypot(a1p, b1), math.hypot(a2p, b2)
    h1p = math.degrees(math.atan2(b1, a1p)) % 360 if c1p else 0.0
    h2p = math.degrees(math.atan2(b2, a2p)) % 360 if c2p else 0.0
    dl, dc = l2 - l1, c2p - c1p
    dh = 0.0
    if c1p * c2p:
        dh = h2p - h1p
        dh = dh - 360 if dh > 180 else dh + 360 if dh < -180 else dh
    dhh = 2 * math.sqrt(c1p * c2p) * math.sin(math.radians(dh / 2))
    lbar, cbarp = (l1 + l2) / 2, (c1p + c2p) / 2
    if not c1p * c2p:
        hbar = h1p + h2p
    elif abs(h1p - h2p) <= 180:
        hbar = (h1p + h2p) / 2
    else:
        hbar = (h1p + h2p + 360) / 2 if h1p + h2p < 360 else (h1p + h2p - 360) / 2
    t = (1 - 0.17 * math.cos(math.radians(hbar - 30)) + 0.24 * math.cos(math.radians(2 * hbar))
         + 0.32 * math.cos(math.radians(3 * hbar + 6)) - 0.20 * math.cos(math.radians(4 * hbar - 63)))
    dtheta = 30 * math.exp(-(((hbar - 275) / 25) ** 2))
    rc = 2 * math.sqrt(cbarp ** 7 / (cbarp ** 7 + 25 ** 7))
    sl = 1 + 0.015 * (lbar - 50) ** 2 / math.sqrt(20 + (lbar - 50) ** 2)
    sc, sh = 1 + 0.045 * cbarp, 1 + 0.015 * cbarp * t
    rt = -math.sin(math.radians(2 * dtheta)) * rc
    return math.sqrt((dl / sl) ** 2 + (dc / sc) ** 2 + (dhh / sh) ** 2
                     + rt * (dc / sc) * (dhh / sh))


def distances(a: RGB, b: RGB) -> dict[str, float]:
    """ΔE2000 between `a` and `b` as each vision sees them."""
    return {v: de2000(lab(simulate(a, v)), lab(simulate(b, v))) for v in VISIONS}


def blend(fg: RGB, alpha: int, bg: RGB) -> RGB:
    """`fg` at `alpha` (0–255) over `bg`, as Pillow composites it."""
    return tuple(round((f * alpha + g * (255 - alpha)) / 255)
                 for f, g in zip(fg, bg, strict=True))  # type: ignore[return-value]
