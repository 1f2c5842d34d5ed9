"""Blender 3.4 cloth following a moving body (peer for `tryon animate`).

Run headless:
  blender -b --factory-startup -t 1 --python bench/blender_follow.py -- \
      FRAMES_DIR GARMENT.obj OUT_DIR [--fps 30] [--quality 5] [--no-sewing]
      [--no-self-collision] [--distance 0.015] [--self-distance 0.015]
      [--thickness-outer 0.02]

FRAMES_DIR  frame_000.obj, frame_001.obj, ... : the body, one mesh a frame,
            Y-up metres, same vertices and faces in every frame.
GARMENT.obj the cloth already draped on frame 0 (tryon drape -o D -> D/garment.obj):
            v/vt/f plus seam pairs as `l` elements.
OUT_DIR     cloth_000.obj ... : the cloth at every body frame. Each file is a copy of
            GARMENT.obj's text in which only the `v` lines are replaced, so vertex
            order, faces, vt (rest 2D coordinates) and `l` seam pairs are kept and
            `tryon check` can judge strain and seam gap.

How it is set up (own code; meshes are built from the OBJ text, no importer, so
vertex order is kept exactly):
* Axes: OBJ (x, y, z) Y-up -> Blender (x, -z, y) Z-up; gravity (0, 0, -9.81) = OBJ -Y.
  Outputs are converted back.
* Body: one mesh, frame 0 as basis, one relative shape key per frame k with a
  keyframed value (1 at Blender frame k+1, 0 at k and k+2, linear). The Collision
  modifier sits after the shape keys, so it sees the deformation and keeps the
  previous and current positions: collisions use the body's motion (velocity).
  Collision settings: Blender defaults set explicitly (thickness_outer 0.02
  unless --thickness-outer, thickness_inner 0.2, damping 0.1, friction 5).
* Cloth: Blender factory defaults for material (quality 5, mass 0.3, ...); collision
  distance 0.015, collision quality 2, self-collision on with self distance 0.015.
  Seam pairs (`l` elements) become loose edges = Blender sewing springs
  (use_sewing_springs, no force cap) unless --no-sewing, which drops them.
* Point cache frames 1..N; Blender frame f = body frame k = f-1. Frame 1 is the
  input state; frames 2..N are stepped in order with scene.frame_set and timed
  (stepping only: body shape-key evaluation + cloth step; reading back positions
  and writing files are excluded).
* Prints one JSON line (starts with '{') with per-frame wall times and a motion check
  (body vertex 0 evaluated vs the frame file; cloth centroid shift).
"""
import argparse
import glob
import json
import os
import sys
import time

import bpy


def parse_args():
    argv = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
    p = argparse.ArgumentParser(prog="blender_follow.py")
    p.add_argument("frames_dir")
    p.add_argument("garment")
    p.add_argument("out_dir")
    p.add_argument("--fps", type=int, default=30)
    p.add_argument("--quality", type=int, default=5)
    p.add_argument("--collision-quality", type=int, default=2)
    p.add_argument("--distance", type=float, default=0.015, help="cloth collision distance_min, m")
    p.add_argument("--thickness-outer", type=float, default=0.02, help="body collision thickness_outer, m")
    p.add_argument("--self-distance", type=float, default=0.015)
    p.add_argument("--no-self-collision", action="store_true")
    p.add_argument("--no-sewing", action="store_true", help="drop the seam pairs instead of sewing springs")
    return p.parse_args(argv)


def read_obj(path):
    """vertices (Y-up), faces (0-based, polygons), lines (0-based pairs)"""
    vs, fs, ls = [], [], []
    with open(path) as fh:
        for ln in fh:
            if ln.startswith("v "):
                t = ln.split()
                vs.append((float(t[1]), float(t[2]), float(t[3])))
            elif ln.startswith("f "):
                fs.append([int(w.split("/")[0]) - 1 for w in ln.split()[1:]])
            elif ln.startswith("l "):
                idx = [int(w.split("/")[0]) - 1 for w in ln.split()[1:]]
                ls.extend(zip(idx[:-1], idx[1:]))
    n = len(vs)
    fs = [[i if i >= 0 else i + n + 1 for i in f] for f in fs]
    return vs, fs, ls


def to_blender(p):
    return (p[0], -p[2], p[1])


def to_obj(p):
    return (p[0], p[2], -p[1])


def make_object(name, verts, faces, edges=()):
    me = bpy.data.meshes.new(name)
    me.from_pydata([to_blender(v) for v in verts], list(edges), faces)
    me.update()
    ob = bpy.data.objects.new(name, me)
    bpy.context.scene.collection.objects.link(ob)
    return ob


def main():
    a = parse_args()
    frame_files = sorted(glob.glob(os.path.join(a.frames_dir, "frame_*.obj")))
    if len(frame_files) < 2:
        raise SystemExit("need at least 2 frame_*.obj in %s" % a.frames_dir)
    os.makedirs(a.out_dir, exist_ok=True)
    for o in list(bpy.data.objects):
        bpy.data.objects.remove(o, do_unlink=True)
    scene = bpy.context.scene
    scene.render.fps = a.fps
    scene.render.fps_base = 1.0
    scene.use_gravity = True
    scene.gravity = (0.0, 0.0, -9.81)
    n = len(frame_files)

    t0 = time.perf_counter()
    bverts, bfaces, _ = read_obj(frame_files[0])
    body = make_object("body", bverts, bfaces)
    body.shape_key_add(name="Basis", from_mix=False)
    frames_v = [bverts]
    for k in range(1, n):
        vk, fk, _ = read_obj(frame_files[k])
        if len(vk) != len(bverts) or len(fk) != len(bfaces):
            raise SystemExit("%s: not the same mesh as frame 0" % frame_files[k])
        frames_v.append(vk)
        kb = body.shape_key_add(name="f%03d" % k, from_mix=False)
        flat = [c for v in vk for c in to_blender(v)]
        kb.data.foreach_set("co", flat)
        for f, val in ((k, 0.0), (k + 1, 1.0), (k + 2, 0.0)):  # Blender frame = k + 1
            kb.value = val
            kb.keyframe_insert("value", frame=f)
    act = body.data.shape_keys.animation_data.action
    for fc in act.fcurves:
        for kp in fc.keyframe_points:
            kp.interpolation = "LINEAR"
    body.modifiers.new(name="Collision", type="COLLISION")
    col = body.collision
    col.thickness_outer = a.thickness_outer
    col.thickness_inner = 0.2
    col.damping = 0.1
    col.cloth_friction = 5.0
    col.use_culling = True

    gverts, gfaces, glines = read_obj(a.garment)
    cloth = make_object("cloth", gverts, gfaces, [] if a.no_sewing else glines)
    cm = cloth.modifiers.new(name="Cloth", type="CLOTH")
    s = cm.settings  # material: Blender factory defaults, only sub-steps and sewing set
    s.quality = a.quality
    s.use_sewing_springs = not a.no_sewing
    s.sewing_force_max = 0.0
    c = cm.collision_settings
    c.use_collision = True
    c.collision_quality = a.collision_quality
    c.distance_min = a.distance
    c.use_self_collision = not a.no_self_collision
    c.self_distance_min = a.self_distance
    cm.point_cache.frame_start = 1
    cm.point_cache.frame_end = n
    scene.frame_start = 1
    scene.frame_end = n
    setup_s = time.perf_counter() - t0

    def cloth_positions():
        dg = bpy.context.evaluated_depsgraph_get()
        ev = cloth.evaluated_get(dg)
        me = ev.to_mesh()
        mw = ev.matrix_world
        pts = [to_obj(mw @ v.co) for v in me.vertices]
        ev.to_mesh_clear()
        return pts

    def body_vertex0():
        dg = bpy.context.evaluated_depsgraph_get()
        ev = body.evaluated_get(dg)
        me = ev.to_mesh()
        p = to_obj(ev.matrix_world @ me.vertices[0].co)
        ev.to_mesh_clear()
        return p

    t0 = time.perf_counter()
    scene.frame_set(1)
    init_s = time.perf_counter() - t0
    positions = [cloth_positions()]
    body_err = [max(abs(x - y) for x, y in zip(body_vertex0(), frames_v[0][0]))]
    frame_s = []
    for f in range(2, n + 1):
        tf = time.perf_counter()
        scene.frame_set(f)
        frame_s.append(time.perf_counter() - tf)
        positions.append(cloth_positions())
        body_err.append(max(abs(x - y) for x, y in zip(body_vertex0(), frames_v[f - 1][0])))

    if len(positions[0]) != len(gverts):
        raise SystemExit("cloth vertex count changed: %d vs %d" % (len(positions[0]), len(gverts)))
    with open(a.garment) as fh:
        glines_text = fh.readlines()
    for k, pts in enumerate(positions):
        it = iter(pts)
        out = ["# blender %s cloth, body frame %d (Blender frame %d); v replaced, rest copied from %s\n"
               % (bpy.app.version_string, k, k + 1, os.path.basename(a.garment))]
        for ln in glines_text:
            if ln.startswith("v "):
                p = next(it)
                out.append("v %.7f %.7f %.7f\n" % p)
            else:
                out.append(ln)
        with open(os.path.join(a.out_dir, "cloth_%03d.obj" % k), "w") as fh:
            fh.write("".join(out))

    def centroid(pts):
        m = float(len(pts))
        return [sum(p[i] for p in pts) / m for i in range(3)]

    c0, c1 = centroid(positions[0]), centroid(positions[-1])
    b0, b1 = centroid(frames_v[0]), centroid(frames_v[-1])
    srt = sorted(frame_s)
    print(json.dumps({
        "engine": "blender", "version": bpy.app.version_string, "threads": scene.render.threads,
        "body_verts": len(bverts), "body_tris": sum(len(f) - 2 for f in bfaces),
        "cloth_verts": len(gverts), "cloth_faces": len(gfaces), "seam_pairs": len(glines),
        "seams": "dropped" if a.no_sewing else "sewing springs",
        "frames": n, "fps": a.fps, "substeps": a.quality, "collision_quality": a.collision_quality,
        "distance_min": a.distance, "thickness_outer": a.thickness_outer, "self_collision": not a.no_self_collision,
        "self_distance_min": a.self_distance,
        "setup_s": round(setup_s, 3), "init_s": round(init_s, 4), "sim_s": round(sum(frame_s), 4),
        "median_frame_s": round(srt[len(srt) // 2] if len(srt) % 2 else 0.5 * (srt[len(srt) // 2 - 1] + srt[len(srt) // 2]), 4),
        "max_frame_s": round(max(frame_s), 4),
        "frame_s": [round(x, 4) for x in frame_s],
        "body_vertex0_max_err_m": round(max(body_err), 7),
        "body_centroid_shift_m": [round(b1[i] - b0[i], 4) for i in range(3)],
        "cloth_centroid_shift_m": [round(c1[i] - c0[i], 4) for i in range(3)],
        "out_dir": a.out_dir,
    }), flush=True)


if __name__ == "__main__":
    main()
