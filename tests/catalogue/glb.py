"""Small binary glTF (GLB) files written byte by byte: a cube and a pyramid, optionally named after the model that
made them in every place glTF lets a name go (generator, copyright, names, extras, XMP, an embedded texture's text)."""

from __future__ import annotations

import io
import json
import struct
import zlib

from PIL import Image

# Each face of the cube: its outward normal and its four corners, counter-clockwise seen from outside.
_CUBE_FACES = [
    ((1, 0, 0), [(1, -1, -1), (1, 1, -1), (1, 1, 1), (1, -1, 1)]),
    ((-1, 0, 0), [(-1, -1, 1), (-1, 1, 1), (-1, 1, -1), (-1, -1, -1)]),
    ((0, 1, 0), [(-1, 1, 1), (1, 1, 1), (1, 1, -1), (-1, 1, -1)]),
    ((0, -1, 0), [(-1, -1, -1), (1, -1, -1), (1, -1, 1), (-1, -1, 1)]),
    ((0, 0, 1), [(-1, -1, 1), (1, -1, 1), (1, 1, 1), (-1, 1, 1)]),
    ((0, 0, -1), [(1, -1, -1), (-1, -1, -1), (-1, 1, -1), (1, 1, -1)]),
]


def _cube():
    positions, normals, uvs, indices = [], [], [], []
    for normal, corners in _CUBE_FACES:
        start = len(positions)
        positions.extend(corners)
        normals.extend([normal] * 4)
        uvs.extend([(0, 0), (1, 0), (1, 1), (0, 1)])
        indices.extend([start, start + 1, start + 2, start, start + 2, start + 3])
    return positions, normals, uvs, indices


def _pyramid():
    apex, base = (0, 1.2, 0), [(-1, -0.8, 1), (1, -0.8, 1), (1, -0.8, -1), (-1, -0.8, -1)]
    positions, normals, uvs, indices = [], [], [], []
    for i in range(4):
        a, b = base[i], base[(i + 1) % 4]
        u = [b[k] - a[k] for k in range(3)]
        v = [apex[k] - a[k] for k in range(3)]
        n = (u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0])
        length = sum(c * c for c in n) ** 0.5
        start = len(positions)
        positions.extend([a, b, apex])
        normals.extend([tuple(c / length for c in n)] * 3)
        uvs.extend([(0, 0), (1, 0), (0.5, 1)])
        indices.extend([start, start + 1, start + 2])
    start = len(positions)
    positions.extend(reversed(base))
    normals.extend([(0, -1, 0)] * 4)
    uvs.extend([(0, 0), (1, 0), (1, 1), (0, 1)])
    indices.extend([start, start + 1, start + 2, start, start + 2, start + 3])
    return positions, normals, uvs, indices


SHAPES = {"cube": _cube, "pyramid": _pyramid}


def texture_png(colour: tuple[int, int, int], *, text: str = "") -> bytes:
    """A 4×4 PNG of one colour, with a ``tEXt`` chunk saying ``text`` (as image tools write "Software")."""
    buffer = io.BytesIO()
    Image.new("RGB", (4, 4), colour).save(buffer, "PNG")
    data = buffer.getvalue()
    if not text:
        return data
    body = b"Software\x00" + text.encode()
    chunk = struct.pack(">I", len(body)) + b"tEXt" + body + struct.pack(">I", zlib.crc32(b"tEXt" + body))
    return data[:33] + chunk + data[33:]  # after the 8-byte signature and the 25-byte IHDR chunk


def glb(shape: str = "cube", colour: tuple[float, float, float] = (0.2, 0.45, 0.9), *, name: str = "",
        texture: bytes | None = None) -> bytes:
    """A GLB of ``shape`` in ``colour`` (linear RGB); ``name`` (the model's) goes into every naming field glTF has,
    ``texture`` (PNG bytes) into the BIN chunk as the material's base colour texture."""
    positions, normals, uvs, indices = SHAPES[shape]()
    views, accessors, binary = [], [], bytearray()

    def add(data: bytes, *, target: int | None = None) -> int:
        binary.extend(b"\x00" * (-len(binary) % 4))
        view = {"buffer": 0, "byteOffset": len(binary), "byteLength": len(data)}
        if target:
            view["target"] = target
        binary.extend(data)
        views.append(view)
        return len(views) - 1

    def accessor(rows, kind: str, component: int, fmt: str, *, target: int, bounds: bool = False) -> int:
        flat = [value for row in rows for value in (row if isinstance(row, tuple) else (row,))]
        item = {"bufferView": add(struct.pack(f"<{len(flat)}{fmt}", *flat), target=target), "componentType": component,
                "count": len(rows), "type": kind}
        if bounds:
            item["min"] = [min(row[i] for row in rows) for i in range(3)]
            item["max"] = [max(row[i] for row in rows) for i in range(3)]
        accessors.append(item)
        return len(accessors) - 1

    attributes = {"POSITION": accessor(positions, "VEC3", 5126, "f", target=34962, bounds=True),
                  "NORMAL": accessor(normals, "VEC3", 5126, "f", target=34962)}
    material = {"pbrMetallicRoughness": {"baseColorFactor": [*colour, 1.0], "metallicFactor": 0.0, "roughnessFactor": 0.8}}
    document = {"asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0]}], "nodes": [{"mesh": 0}],
                "meshes": [{"primitives": [{"attributes": attributes, "material": 0}]}], "materials": [material]}
    if texture is not None:
        attributes["TEXCOORD_0"] = accessor(uvs, "VEC2", 5126, "f", target=34962)
        document.update(images=[{"bufferView": add(texture), "mimeType": "image/png"}], textures=[{"source": 0}],
                        samplers=[{}])
        document["textures"][0]["sampler"] = 0
        material["pbrMetallicRoughness"]["baseColorTexture"] = {"index": 0}
    document["meshes"][0]["primitives"][0]["indices"] = accessor(indices, "SCALAR", 5123, "H", target=34963)
    if name:
        document["asset"].update(generator=f"{name} exporter", copyright=f"made by {name}",
                                 extras={"source": name})
        document["asset"]["extensions"] = {"KHR_xmp_json_ld": {"packet": 0}}
        document["extensionsUsed"] = ["KHR_xmp_json_ld"]
        document["extensions"] = {"KHR_xmp_json_ld": {"packets": [
            {"@context": {"xmp": "http://ns.adobe.com/xap/1.0/"}, "xmp:CreatorTool": name}]}}
        document["scenes"][0].update(name=f"{name} scene", extras={"prompt_id": name})
        document["nodes"][0].update(name=f"{name}-node", extras={"by": name})
        document["meshes"][0]["name"] = f"{name}_mesh"
        material["name"] = f"{name} material"
        for item in accessors:
            item["name"] = name
        for view in views:
            view["name"] = name
        if texture is not None:
            document["images"][0]["name"] = f"{name}.png"
            document["textures"][0]["name"] = name
            document["samplers"][0]["name"] = name
    document["buffers"] = [{"byteLength": len(binary)}]
    document["bufferViews"] = views
    document["accessors"] = accessors
    text = json.dumps(document).encode()
    text += b" " * (-len(text) % 4)
    binary.extend(b"\x00" * (-len(binary) % 4))
    body = struct.pack("<I4s", len(text), b"JSON") + text + struct.pack("<I4s", len(binary), b"BIN\x00") + bytes(binary)
    return b"glTF" + struct.pack("<II", 2, 12 + len(body)) + body
