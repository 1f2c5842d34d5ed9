"""Manual check that a GLB written by tryon::outputs imports in Blender (not part of ctest).

    blender -b --factory-startup -t 1 --python tests/outputs/blender_import_glb.py -- OUT/garment.glb

Prints, per imported mesh: vertex and polygon counts, UV layers (TEXCOORD_0), colour attributes
(COLOR_0, imported as "Col"), the first colours and UVs, materials and the bounding box.
Blender 3.4's glTF add-on uses numpy.bool, which numpy 1.24 (Debian 12) removed; the alias is
restored here before the import. Needs python3-numpy.
"""
import sys

import bpy
import numpy
if not hasattr(numpy, "bool"): numpy.bool = bool  # Blender 3.4 glTF add-on vs numpy 1.24 (Debian 12)
path = sys.argv[sys.argv.index("--") + 1]
bpy.ops.wm.read_factory_settings(use_empty=True)
bpy.ops.import_scene.gltf(filepath=path)
for ob in bpy.context.scene.objects:
    if ob.type != 'MESH':
        continue
    me = ob.data
    cols = [a.name for a in getattr(me, "color_attributes", [])]
    attrs = [(a.name, a.data_type, a.domain) for a in me.attributes]
    uvs = [u.name for u in me.uv_layers]
    print("OBJ", ob.name, "verts", len(me.vertices), "polys", len(me.polygons), "uv", uvs, "colors", cols)
    print("ATTRS", attrs)
    if cols:
        ca = me.color_attributes[cols[0]]
        vals = [tuple(round(c, 4) for c in ca.data[i].color) for i in range(min(3, len(ca.data)))]
        print("COLOR sample", ca.domain, ca.data_type, vals)
    if uvs:
        uv = me.uv_layers[0].data
        print("UV sample", [tuple(round(x, 4) for x in uv[i].uv) for i in range(3)])
    mats = [m.name for m in me.materials]
    print("MATERIALS", mats)
    bb = [ob.matrix_world @ v.co for v in me.vertices]
    lo = [round(min(p[k] for p in bb), 4) for k in range(3)]
    hi = [round(max(p[k] for p in bb), 4) for k in range(3)]
    print("BBOX min", lo, "max", hi)
