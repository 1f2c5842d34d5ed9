#!/usr/bin/env python3
"""Write a mesh sequence of a body turning and walking sideways (pure python3, no numpy).

  python3 bench/motion_frames.py [BODY.obj] [OUT_DIR] [--frames 31] [--deg 30] [--dx 0.5]

Frame k (k = 0..frames-1), s = k/(frames-1), eased e = s^2 (3 - 2 s):
  x' = R_y(deg * e) x + (dx * e, 0, 0),  R_y(a) = [[c,0,s],[0,1,0],[-s,0,c]]
Writes OUT_DIR/frame_000.obj ...; only `v` lines change, every other line
(faces, comments, ...) is copied verbatim so vertex order and faces are kept.
Defaults: assets/bodies/mean_all.obj, 31 frames (1 s at 30 fps), 30 deg, 0.5 m.
"""
import argparse
import math
import os


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    p = argparse.ArgumentParser()
    p.add_argument("body", nargs="?", default=os.path.join(here, "..", "assets", "bodies", "mean_all.obj"))
    p.add_argument("out", nargs="?", default="motion_frames")
    p.add_argument("--frames", type=int, default=31)
    p.add_argument("--deg", type=float, default=30.0)
    p.add_argument("--dx", type=float, default=0.5)
    a = p.parse_args()
    with open(a.body) as fh:
        lines = fh.readlines()
    os.makedirs(a.out, exist_ok=True)
    n = a.frames - 1
    for k in range(a.frames):
        s = k / n if n else 0.0
        e = s * s * (3.0 - 2.0 * s)
        ang = math.radians(a.deg * e)
        c, sn = math.cos(ang), math.sin(ang)
        tx = a.dx * e
        out = []
        for ln in lines:
            if ln.startswith("v "):
                t = ln.split()
                x, y, z = float(t[1]), float(t[2]), float(t[3])
                out.append("v %.7f %.7f %.7f\n" % (c * x + sn * z + tx, y, -sn * x + c * z))
            else:
                out.append(ln)
        with open(os.path.join(a.out, "frame_%03d.obj" % k), "w") as fh:
            fh.write("".join(out))
    print("wrote %d frames to %s" % (a.frames, a.out))


if __name__ == "__main__":
    main()
