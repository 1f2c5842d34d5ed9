"""Imports a GLB written by tryon in Blender and prints what Blender made of it, one JSON line
per mesh object: "BLENDER {...}" with its name, parent, vertex, edge and polygon counts, UV layer
names, colour attributes, custom properties (the glTF extras), materials, shape keys (morph
targets) and whether they are animated. Run by the test
Glb.ImportsInBlenderWithOneObjectPerPanelAndBothUvSets, or by hand:

    blender -b --factory-startup -t 1 --python tests/outputs/blender_import_glb.py -- OUT/garment.glb

Blender 3.4's glTF add-on uses numpy.bool, which numpy 1.24 (Debian 12) removed; the alias is
restored here before the import. Needs python3-numpy.
"""
import json
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
    print("BLENDER " + json.dumps({
        "name": ob.name,
        "parent": ob.parent.name if ob.parent else None,
        "vertices": len(me.vertices),
        "edges": len(me.edges),
        "polygons": len(me.polygons),
        "uv_layers": [u.name for u in me.uv_layers],
        "colors": [a.name for a in getattr(me, "color_attributes", [])],
        "properties": {k: str(ob[k]) for k in ob.keys() if not k.startswith("_")},
        "materials": [m.name for m in me.materials if m],
        "shape_keys": len(me.shape_keys.key_blocks) if me.shape_keys else 0,
        "animated": bool(me.shape_keys and me.shape_keys.animation_data and me.shape_keys.animation_data.action),
    }), flush=True)
