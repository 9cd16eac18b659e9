"""A small Omni-RewardBench kind: text-to-3D. Each prompt asks for a simple solid (a shape, its proportions, its
colours); one response makes it, the other gets one thing wrong (the colour, the proportions, the shape, the
smoothness or the arrangement). The responses are binary glTF (GLB) files written here byte by byte, and, as real
exporters do, each names the model that made it in ``asset.generator``: the annotators' copy is cleaned of it.
"""

from __future__ import annotations

import json
import math
import random
import struct
from dataclasses import dataclass

from demo.bundle import MediaFolder, PairRow, Side, text

Vec = tuple[float, float, float]


@dataclass(frozen=True)
class Part:
    """One mesh of a model: its vertices, normals and triangles, a colour (linear RGB) and where it stands."""

    positions: list[Vec]
    normals: list[Vec]
    indices: list[int]
    colour: Vec
    at: Vec = (0.0, 0.0, 0.0)


def box(sx: float, sy: float, sz: float, colour: Vec, at: Vec = (0.0, 0.0, 0.0)) -> Part:
    """A box with flat faces (four vertices a face, each with the face's normal)."""
    hx, hy, hz = sx / 2, sy / 2, sz / 2
    faces = [((1, 0, 0), [(hx, -hy, -hz), (hx, hy, -hz), (hx, hy, hz), (hx, -hy, hz)]),
             ((-1, 0, 0), [(-hx, -hy, hz), (-hx, hy, hz), (-hx, hy, -hz), (-hx, -hy, -hz)]),
             ((0, 1, 0), [(-hx, hy, hz), (hx, hy, hz), (hx, hy, -hz), (-hx, hy, -hz)]),
             ((0, -1, 0), [(-hx, -hy, -hz), (hx, -hy, -hz), (hx, -hy, hz), (-hx, -hy, hz)]),
             ((0, 0, 1), [(-hx, -hy, hz), (hx, -hy, hz), (hx, hy, hz), (-hx, hy, hz)]),
             ((0, 0, -1), [(hx, -hy, -hz), (-hx, -hy, -hz), (-hx, hy, -hz), (hx, hy, -hz)])]
    positions, normals, indices = [], [], []
    for normal, corners in faces:
        start = len(positions)
        positions.extend(corners)
        normals.extend([normal] * 4)
        indices.extend([start, start + 1, start + 2, start, start + 2, start + 3])
    return Part(positions, normals, indices, colour, at)


def lathe(profile: list[tuple[float, float]], segments: int, colour: Vec, at: Vec = (0.0, 0.0, 0.0)) -> Part:
    """A solid of revolution: ``profile`` is (radius, height) points from the bottom up, turned about the y axis.
    Normals are smooth around the axis and follow the profile's slope; few ``segments`` show as facets."""
    positions, normals, indices = [], [], []
    for i in range(len(profile) - 1):
        (r0, y0), (r1, y1) = profile[i], profile[i + 1]
        slope = math.atan2(r0 - r1, y1 - y0)  # the profile's outward normal, tilted up where it narrows
        ny, nr = math.sin(slope), math.cos(slope)
        start = len(positions)
        for s in range(segments + 1):
            angle = 2 * math.pi * s / segments
            c, si = math.cos(angle), math.sin(angle)
            positions.extend([(r0 * c, y0, r0 * si), (r1 * c, y1, r1 * si)])
            normals.extend([(nr * c, ny, nr * si)] * 2)
        for s in range(segments):
            a, b = start + 2 * s, start + 2 * s + 2
            indices.extend([a, a + 1, b, b, a + 1, b + 1])
    for (radius, height), up in ((profile[0], -1.0), (profile[-1], 1.0)):  # the caps
        if radius <= 0:
            continue
        centre = len(positions)
        positions.append((0.0, height, 0.0))
        normals.append((0.0, up, 0.0))
        for s in range(segments + 1):
            angle = 2 * math.pi * s / segments
            positions.append((radius * math.cos(angle), height, radius * math.sin(angle)))
            normals.append((0.0, up, 0.0))
        for s in range(segments):
            a, b = centre + 1 + s, centre + 2 + s
            indices.extend([centre, b, a] if up > 0 else [centre, a, b])
    return Part(positions, normals, indices, colour, at)


def cylinder(radius: float, height: float, colour: Vec, *, segments: int = 40, at: Vec = (0.0, 0.0, 0.0)) -> Part:
    return lathe([(radius, -height / 2), (radius, height / 2)], segments, colour, at)


def cone(radius: float, height: float, colour: Vec, *, segments: int = 40, upside_down: bool = False,
         at: Vec = (0.0, 0.0, 0.0)) -> Part:
    profile = [(radius, -height / 2), (0.0, height / 2)]
    if upside_down:
        profile = [(0.0, -height / 2), (radius, height / 2)]
    return lathe(profile, segments, colour, at)


def sphere(radius: float, colour: Vec, *, segments: int = 40, at: Vec = (0.0, 0.0, 0.0)) -> Part:
    rings = max(3, segments // 2)
    profile = [(radius * math.sin(math.pi * k / rings), -radius * math.cos(math.pi * k / rings)) for k in range(rings + 1)]
    part = lathe(profile, segments, colour, at)
    # A ball's normal is its radius: smooth over the bands too (lathe's follow each band's slope).
    return Part(part.positions, [tuple(c / radius for c in p) for p in part.positions], part.indices, colour, at)


def torus(major: float, minor: float, colour: Vec, *, segments: int = 48) -> Part:
    """A ring: its cross-section, a circle of radius ``minor`` at ``major`` from the axis, turned about it (from the
    bottom, round the outside first, so every normal points out of the ring)."""
    steps = segments // 2
    angles = [-math.pi / 2 + 2 * math.pi * k / steps for k in range(steps + 1)]
    return lathe([(major + minor * math.cos(t), minor * math.sin(t)) for t in angles], segments, colour)


def glb(parts: list[Part], *, generator: str) -> bytes:
    """The parts as one binary glTF 2.0 file: a node, a mesh and a material each."""
    views, accessors, binary = [], [], bytearray()

    def accessor(values: list, kind: str, component: int, fmt: str, target: int, *, bounds: bool = False) -> int:
        flat = [v for row in values for v in (row if isinstance(row, tuple) else (row,))]
        binary.extend(b"\x00" * (-len(binary) % 4))
        views.append({"buffer": 0, "byteOffset": len(binary), "byteLength": len(flat) * struct.calcsize(fmt),
                      "target": target})
        binary.extend(struct.pack(f"<{len(flat)}{fmt}", *flat))
        item = {"bufferView": len(views) - 1, "componentType": component, "count": len(values), "type": kind}
        if bounds:
            item["min"] = [min(row[i] for row in values) for i in range(3)]
            item["max"] = [max(row[i] for row in values) for i in range(3)]
        accessors.append(item)
        return len(accessors) - 1

    nodes, meshes, materials = [], [], []
    for part in parts:
        primitive = {"attributes": {"POSITION": accessor(part.positions, "VEC3", 5126, "f", 34962, bounds=True),
                                    "NORMAL": accessor(part.normals, "VEC3", 5126, "f", 34962)},
                     "indices": accessor(part.indices, "SCALAR", 5123, "H", 34963), "material": len(materials)}
        materials.append({"pbrMetallicRoughness": {"baseColorFactor": [*part.colour, 1.0], "metallicFactor": 0.0,
                                                   "roughnessFactor": 0.7}})
        meshes.append({"primitives": [primitive]})
        nodes.append({"mesh": len(meshes) - 1, "translation": list(part.at)})
    binary.extend(b"\x00" * (-len(binary) % 4))
    document = {"asset": {"version": "2.0", "generator": generator}, "scene": 0,
                "scenes": [{"nodes": list(range(len(nodes)))}], "nodes": nodes, "meshes": meshes,
                "materials": materials, "accessors": accessors, "bufferViews": views,
                "buffers": [{"byteLength": len(binary)}]}
    body = json.dumps(document, separators=(",", ":"), sort_keys=True).encode()
    body += b" " * (-len(body) % 4)
    chunks = struct.pack("<I4s", len(body), b"JSON") + body + struct.pack("<I4s", len(binary), b"BIN\x00") + bytes(binary)
    return b"glTF" + struct.pack("<II", 2, 12 + len(chunks)) + chunks


RED, BLUE, GREEN, YELLOW = (0.8, 0.05, 0.04), (0.05, 0.15, 0.8), (0.06, 0.5, 0.1), (0.9, 0.7, 0.05)
ORANGE, GREY, PURPLE = (0.95, 0.3, 0.02), (0.35, 0.35, 0.36), (0.35, 0.08, 0.6)
WHITE, BLACK, TEAL = (0.85, 0.85, 0.85), (0.03, 0.03, 0.03), (0.02, 0.4, 0.45)


@dataclass(frozen=True)
class Solid:
    prompt: str
    right: list[Part]
    wrong: list[Part]
    fault: str  # what the wrong one gets wrong, for the pair's metadata


SOLIDS = (
    Solid("A red cube.", [box(1, 1, 1, RED)], [box(1, 1, 1, BLUE)], "colour"),
    Solid("A tall green cylinder, about twice as high as it is wide.", [cylinder(0.5, 2, GREEN)],
          [cylinder(0.5, 0.5, GREEN)], "proportions"),
    Solid("A smooth yellow ball.", [sphere(1, YELLOW, segments=48)], [sphere(1, YELLOW, segments=7)], "smoothness"),
    Solid("An orange traffic cone, round at the base.", [cone(0.6, 1.6, ORANGE)],
          [cone(0.6, 1.6, ORANGE, segments=4)], "shape"),
    Solid("A teal ring doughnut (a torus).", [torus(1, 0.35, TEAL)], [cylinder(1.35, 0.7, TEAL)], "shape"),
    Solid("A flat grey slab, like a paving stone.", [box(2, 0.2, 1.2, GREY)], [box(1.2, 1.2, 1.2, GREY)], "proportions"),
    Solid("A purple cone standing on its base, point up.", [cone(0.7, 1.4, PURPLE)],
          [cone(0.7, 1.4, PURPLE, upside_down=True)], "orientation"),
    Solid("A white ball resting on top of a black cube.", [box(1, 1, 1, BLACK), sphere(0.45, WHITE, at=(0, 0.95, 0))],
          [box(1, 1, 1, BLACK), sphere(0.45, WHITE, at=(1.1, -0.05, 0))], "arrangement"),
)
MESH_MODELS = ("meshsmith-3d", "polyforge-lite")
MESH_CRITERIA = ["Matches the requested shape and proportions", "Matches the requested colours"]


def text_to_3d_rows(media: MediaFolder, *, seed: str = "t23d") -> list[PairRow]:
    """One pair per solid: a GLB that makes it and one that gets one thing wrong, the better model usually right."""
    rows = []
    for i, solid in enumerate(SOLIDS):
        rng = random.Random(f"{seed}:{i}")
        strong, weak = MESH_MODELS if rng.random() < 0.75 else MESH_MODELS[::-1]
        sides = [Side(model, [media.model3d(glb(parts, generator=f"{model} exporter 1.2"), alt="generated 3D model")])
                 for model, parts in ((strong, solid.right), (weak, solid.wrong))]
        rows.append(PairRow(
            pair_id=f"demo-t23d-{i + 1:03d}", prompt_id=f"demo-t23d-prompt-{i + 1:03d}", task="text-to-3d",
            prompt=[text(solid.prompt, "plain")], first=sides[0], second=sides[1], source="concord-demo-omni",
            metadata={"category": "solids", "fault": solid.fault}, criteria=MESH_CRITERIA,
        ))
    return rows
