#!/usr/bin/env python3
"""A reference/distorted pair of 8-bit gray Y4M clips for bench/cpu/maps_speed.sh where FFmpeg
is not installed (the GPU machine): a textured picture (smoothed noise plus moving stripes)
panning one pixel a frame, and its distorted copy, box-blurred by a radius drawn per frame
(0 to 3, a fixed seed, so that the score goes up and down as an encode's does and the worst
frames are spread over the clip) with a little noise.

    make_maps_clip.py WIDTHxHEIGHT FRAMES REF.y4m DIS.y4m

Needs numpy only. Deterministic: the same arguments give the same bytes.
"""
import sys

import numpy as np


def box_blur(img, r):
    """Mean over a (2r+1)^2 window, edges clamped; r = 0 returns the picture."""
    if r == 0:
        return img
    p = np.pad(img, r, mode="edge")
    c = np.cumsum(np.cumsum(p, axis=0), axis=1)
    c = np.pad(c, ((1, 0), (1, 0)))
    k = 2 * r + 1
    h, w = img.shape
    s = c[k:k + h, k:k + w] - c[:h, k:k + w] - c[k:k + h, :w] + c[:h, :w]
    return s / (k * k)


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    w, h = (int(v) for v in sys.argv[1].split("x"))
    frames = int(sys.argv[2])
    rng = np.random.default_rng(24)
    # A picture wider than the frame by `frames` columns, so that each frame is a new view.
    big_w = w + frames
    base = box_blur(rng.normal(0.0, 40.0, (h, big_w)), 2)
    yy, xx = np.mgrid[0:h, 0:big_w]
    base += 30.0 * np.sin(xx / 7.0) * np.cos(yy / 11.0) + 128.0
    radii = rng.integers(0, 4, frames)
    header = f"YUV4MPEG2 W{w} H{h} F25:1 Ip A1:1 Cmono\n".encode()
    with open(sys.argv[3], "wb") as ref_f, open(sys.argv[4], "wb") as dis_f:
        ref_f.write(header)
        dis_f.write(header)
        for f in range(frames):
            ref = base[:, f:f + w]
            dis = box_blur(ref, int(radii[f])) + rng.normal(0.0, 2.0, (h, w))
            for out, pic in ((ref_f, ref), (dis_f, dis)):
                out.write(b"FRAME\n")
                out.write(np.clip(np.rint(pic), 0, 255).astype(np.uint8).tobytes())


if __name__ == "__main__":
    main()
