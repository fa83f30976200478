#!/usr/bin/env python3
"""Writes scankd's own small test scenes into scenes/ (and scenes/README.md).

Plain Python 3, standard library only. The output is deterministic, so
running it again reproduces the committed files byte for byte:

    python3 tools/gen_scenes.py            # writes into <repo>/scenes
    python3 tools/gen_scenes.py --check    # exits 1 if a committed file differs

Every scene is authored here; none is copied from elsewhere.
"""
import math
import os
import sys


class Obj:
    """An OBJ file being written: vertices, faces and the counts to report."""

    def __init__(self, header):
        self.lines = ["# " + line if line else "#" for line in header.splitlines()]
        self.num_vertices = 0
        self.num_faces = 0
        self.num_triangles = 0  # after fan triangulation, before dropping degenerates

    def comment(self, text):
        self.lines.append("# " + text)

    def raw(self, line):
        self.lines.append(line)

    def vertex(self, p):
        self.lines.append("v %s %s %s" % tuple(fmt(c) for c in p))
        self.num_vertices += 1
        return self.num_vertices  # 1-based, as faces refer to it

    def face(self, indices):
        self.lines.append("f " + " ".join(str(i) for i in indices))
        self.count_face(len(indices))

    def count_face(self, num_corners):
        self.num_faces += 1
        self.num_triangles += num_corners - 2

    def text(self, eol="\n"):
        return eol.join(self.lines) + eol


def fmt(x):
    """Shortest clean decimal for a coordinate (no '-0')."""
    text = "%.6f" % x
    text = text.rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def add(a, b):
    return tuple(x + y for x, y in zip(a, b))


# ---- Cornell-style box -------------------------------------------------------

def block(obj, name, centre_x, centre_z, size, height, angle_deg):
    """An axis-aligned-in-y box standing on the floor, turned about y; five
    faces (no bottom: it would coincide with the floor), normals outward."""
    obj.raw("g " + name)
    a = math.radians(angle_deg)
    c, s = math.cos(a), math.sin(a)
    h = size / 2.0
    corners = []
    for (dx, dz) in ((-h, -h), (h, -h), (h, h), (-h, h)):
        corners.append((centre_x + c * dx + s * dz, centre_z - s * dx + c * dz))
    bottom = [obj.vertex((x, 0.0, z)) for x, z in corners]
    top = [obj.vertex((x, height, z)) for x, z in corners]
    obj.face([top[0], top[3], top[2], top[1]])  # top, facing up
    for i in range(4):
        j = (i + 1) % 4
        obj.face([bottom[i], top[i], top[j], bottom[j]])  # sides, facing out


def cornell_box():
    obj = Obj(
        "Cornell-style box, authored for scankd (tools/gen_scenes.py).\n"
        "y is up. The box spans x -5..5, y 0..10, z -5..5 and is open at z = +5;\n"
        "a camera at (0, 5, 19) looking at (0, 5, 0) with a 40 degree vertical\n"
        "field of view sees the whole opening. Faces are quads (fan-triangulated\n"
        "by the loader); wall normals face into the box, block normals outward.")
    walls = [
        ("floor", [(-5, 0, -5), (-5, 0, 5), (5, 0, 5), (5, 0, -5)]),
        ("ceiling", [(-5, 10, -5), (5, 10, -5), (5, 10, 5), (-5, 10, 5)]),
        ("back_wall", [(-5, 0, -5), (5, 0, -5), (5, 10, -5), (-5, 10, -5)]),
        ("left_wall", [(-5, 0, -5), (-5, 10, -5), (-5, 10, 5), (-5, 0, 5)]),
        ("right_wall", [(5, 0, -5), (5, 0, 5), (5, 10, 5), (5, 10, -5)]),
    ]
    for name, quad in walls:
        obj.raw("g " + name)
        obj.face([obj.vertex(p) for p in quad])
    # Just below the ceiling, so it never coincides with it; faces down.
    obj.raw("g light")
    obj.face([obj.vertex(p) for p in [(-1.25, 9.98, -1.25), (1.25, 9.98, -1.25),
                                      (1.25, 9.98, 1.25), (-1.25, 9.98, 1.25)]])
    block(obj, "short_block", 2.0, 1.5, 3.0, 3.0, -18.0)
    block(obj, "tall_block", -1.8, -1.7, 3.0, 6.0, 17.0)
    return obj


# ---- Shapes -------------------------------------------------------------------

def icosphere(levels):
    obj = Obj("Icosphere of radius 1: an icosahedron subdivided %d times, vertices\n"
              "pushed onto the sphere; shared vertices, outward winding." % levels)
    t = (1.0 + math.sqrt(5.0)) / 2.0
    verts = [(-1, t, 0), (1, t, 0), (-1, -t, 0), (1, -t, 0), (0, -1, t), (0, 1, t),
             (0, -1, -t), (0, 1, -t), (t, 0, -1), (t, 0, 1), (-t, 0, -1), (-t, 0, 1)]
    verts = [normalise(v) for v in verts]
    faces = [(0, 11, 5), (0, 5, 1), (0, 1, 7), (0, 7, 10), (0, 10, 11), (1, 5, 9),
             (5, 11, 4), (11, 10, 2), (10, 7, 6), (7, 1, 8), (3, 9, 4), (3, 4, 2),
             (3, 2, 6), (3, 6, 8), (3, 8, 9), (4, 9, 5), (2, 4, 11), (6, 2, 10),
             (8, 6, 7), (9, 8, 1)]
    for _ in range(levels):
        midpoints = {}

        def midpoint(a, b):
            key = (min(a, b), max(a, b))
            if key not in midpoints:
                verts.append(normalise(tuple((x + y) / 2 for x, y in zip(verts[a], verts[b]))))
                midpoints[key] = len(verts) - 1
            return midpoints[key]

        next_faces = []
        for a, b, c in faces:
            ab, bc, ca = midpoint(a, b), midpoint(b, c), midpoint(c, a)
            next_faces += [(a, ab, ca), (b, bc, ab), (c, ca, bc), (ab, bc, ca)]
        faces = next_faces
    for v in verts:
        obj.vertex(v)
    for f in faces:
        obj.face([i + 1 for i in f])
    return obj


def normalise(v):
    n = math.sqrt(sum(c * c for c in v))
    return tuple(c / n for c in v)


def torus(major_segments, minor_segments):
    obj = Obj("Torus about the y axis, major radius 1, minor radius 0.35, %d x %d\n"
              "planar quads. Its hole is empty space a good split cuts away."
              % (major_segments, minor_segments))
    R, r = 1.0, 0.35
    for i in range(major_segments):
        u = 2 * math.pi * i / major_segments
        for j in range(minor_segments):
            w = 2 * math.pi * j / minor_segments
            ring = R + r * math.cos(w)
            obj.vertex((ring * math.cos(u), r * math.sin(w), ring * math.sin(u)))

    def index(i, j):
        return (i % major_segments) * minor_segments + (j % minor_segments) + 1

    for i in range(major_segments):
        for j in range(minor_segments):
            obj.face([index(i, j), index(i, j + 1), index(i + 1, j + 1), index(i + 1, j)])
    return obj


def cube(obj, lo, size):
    """A unit-style cube with its own 8 vertices; 6 quads, outward winding."""
    x0, y0, z0 = lo
    x1, y1, z1 = x0 + size, y0 + size, z0 + size
    v = [obj.vertex(p) for p in [(x0, y0, z0), (x1, y0, z0), (x1, y1, z0), (x0, y1, z0),
                                 (x0, y0, z1), (x1, y0, z1), (x1, y1, z1), (x0, y1, z1)]]
    for quad in [(0, 3, 2, 1), (4, 5, 6, 7), (0, 1, 5, 4), (3, 7, 6, 2), (0, 4, 7, 3),
                 (1, 2, 6, 5)]:
        obj.face([v[i] for i in quad])


def box_stack():
    obj = Obj("A stepped pyramid of 14 unit cubes (3x3, then 2x2, then 1), each with\n"
              "its own vertices: neighbouring cubes touch face to face, so many\n"
              "triangles lie exactly in the planes a kd-tree wants to split on.")
    for layer, width in enumerate((3, 2, 1)):
        offset = (3 - width) / 2.0
        for i in range(width):
            for k in range(width):
                cube(obj, (offset + i, float(layer), offset + k), 1.0)
    return obj


# ---- Degenerate cases ---------------------------------------------------------

def one_triangle():
    obj = Obj("A single triangle: the smallest scene there is (root is a leaf).")
    obj.face([obj.vertex((0, 0, 0)), obj.vertex((1, 0, 0)), obj.vertex((0, 1, 0))])
    return obj


def flat_plane(cells):
    obj = Obj("A %d x %d grid of triangles, all in the plane z = 0: the scene box\n"
              "has zero thickness in z, and every z split is degenerate." % (cells, cells))
    for j in range(cells + 1):
        for i in range(cells + 1):
            obj.vertex((-1 + 2.0 * i / cells, -1 + 2.0 * j / cells, 0.0))
    for j in range(cells):
        for i in range(cells):
            a = j * (cells + 1) + i + 1
            b, c, d = a + 1, a + cells + 2, a + cells + 1
            obj.face([a, b, c])
            obj.face([a, c, d])
    return obj


def identical_triangles(copies):
    obj = Obj("%d faces naming the same three vertices: no split can separate\n"
              "them, so the builder must stop on its depth or cost rules." % copies)
    v = [obj.vertex(p) for p in [(-0.5, -0.5, 0.25), (0.75, -0.25, 0.0), (0.0, 0.8, -0.3)]]
    for _ in range(copies):
        obj.face(v)
    return obj


def polygon20():
    obj = Obj("One convex face with 20 corners (a regular 20-gon in the y = 0 plane):\n"
              "the loader must take faces of any size; fan triangulation gives 18.")
    corners = [obj.vertex((math.cos(2 * math.pi * k / 20), 0.0, math.sin(2 * math.pi * k / 20)))
               for k in range(20)]
    obj.face(corners)
    return obj


def mixed_forms_crlf():
    """An octahedron written with every index form, relative indices, the
    statements a loader must skip, tabs, a continuation and CRLF endings."""
    obj = Obj("Octahedron (8 triangles) exercising OBJ syntax: CRLF line endings,\n"
              "v, v/vt, v//vn and v/vt/vn corners, negative (relative) indices,\n"
              "tabs, a backslash line continuation, and vt/vn/g/o/s/usemtl/mtllib\n"
              "statements that are skipped.")
    obj.raw("mtllib does_not_need_to_exist.mtl")
    obj.raw("o octahedron")
    for p in [(1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1)]:
        obj.vertex(p)
    for uv in [(0, 0), (1, 0), (0.5, 1)]:
        obj.raw("vt %s %s" % (fmt(uv[0]), fmt(uv[1])))
    for n in [(0.57735, 0.57735, 0.57735), (-0.57735, -0.57735, -0.57735)]:
        obj.raw("vn %s %s %s" % tuple(fmt(c) for c in n))
    obj.raw("g upper")
    obj.raw("usemtl white")
    obj.raw("s 1")
    # Vertices: 1 +x, 2 -x, 3 +y, 4 -y, 5 +z, 6 -z (6 vertices so far: -1 is 6).
    faces = [
        ("f 1 3 5", 3),                     # v
        ("f 5/1 3/2 2/3", 3),               # v/vt
        ("f 2//1 3//1 6//1", 3),            # v//vn
        ("f 6/1/2 3/2/2 1/3/2", 3),         # v/vt/vn
    ]
    for line, n in faces:
        obj.raw(line)
        obj.count_face(n)
    obj.raw("g lower")
    obj.raw("s off")
    obj.raw("f\t-6 -2\t-3")                # relative: 1 5 4, tabs as separators
    obj.count_face(3)
    obj.raw("f -2/-3 -5/-2 -3/-1")         # relative with vt: 5 2 4
    obj.count_face(3)
    obj.raw("f -5//-1 -1//-2 \\")           # continued on the next line: 2 6 4
    obj.raw("  -3//-1")
    obj.count_face(3)
    obj.raw("f 6/3/1 1/2/2 -3/1/1")         # mixed absolute and relative: 6 1 4
    obj.count_face(3)
    obj.raw("")
    obj.raw("# blank line above, a point and a line element below (skipped)")
    obj.raw("p 1")
    obj.raw("l 1 2")
    return obj


def zero_area():
    obj = Obj("Four good triangles and three of exactly zero area (a repeated\n"
              "vertex, three collinear points, one point three times): the loader\n"
              "drops the three and reports them, leaving 4.")
    v = [obj.vertex(p) for p in [(0, 0, 0), (1, 0, 0), (0, 1, 0), (1, 1, 0), (0, 0, 1),
                                 (1, 1, 1), (2, 2, 2)]]
    obj.face([v[0], v[1], v[2]])
    obj.face([v[1], v[3], v[2]])
    obj.face([v[0], v[1], v[4]])
    obj.face([v[0], v[2], v[4]])
    obj.face([v[0], v[1], v[1]])   # a repeated vertex
    obj.face([v[0], v[5], v[6]])   # collinear: (0,0,0), (1,1,1), (2,2,2)
    obj.face([v[2], v[2], v[2]])   # one point three times
    return obj


# ---- Output ---------------------------------------------------------------------

# (file, builder, what it is and what it stresses, line ending, zero-area triangles)
SCENES = [
    ("cornell_box.obj", cornell_box,
     "Cornell-style box: floor, ceiling, three walls, a short and a tall turned block, "
     "a ceiling light; the demo's default scene. Quads; large and small triangles mixed.",
     "\n", 0),
    ("icosphere.obj", lambda: icosphere(3),
     "icosahedron subdivided 3 times: evenly sized triangles on a closed curved surface.",
     "\n", 0),
    ("torus.obj", lambda: torus(32, 16),
     "torus of 512 planar quads: empty space in the hole for empty-space cuts.",
     "\n", 0),
    ("box_stack.obj", box_stack,
     "stepped pyramid of 14 touching unit cubes: many triangles lying in split planes.",
     "\n", 0),
    ("one_triangle.obj", one_triangle,
     "a single triangle: the smallest scene, the root is a leaf.", "\n", 0),
    ("flat_plane.obj", lambda: flat_plane(20),
     "20x20 grid of triangles all at z = 0: a scene box of zero thickness.", "\n", 0),
    ("identical_triangles.obj", lambda: identical_triangles(1000),
     "the same triangle 1000 times: no split separates them; depth and cost limits.",
     "\n", 0),
    ("polygon20.obj", polygon20,
     "one convex face with 20 corners: faces of any size, fan triangulation.", "\n", 0),
    ("mixed_forms_crlf.obj", mixed_forms_crlf,
     "octahedron in CRLF with v, v/vt, v//vn, v/vt/vn, negative indices, tabs, a "
     "backslash continuation, and skipped vt/vn/g/o/s/usemtl/mtllib/p/l statements.",
     "\r\n", 0),
    ("zero_area.obj", zero_area,
     "4 good triangles and 3 of exactly zero area (repeated vertex, collinear, "
     "one point): dropped and counted by the loader.", "\n", 3),
]


def readme(rows):
    out = ["# scenes/", "",
           "Small scenes authored for scankd by `tools/gen_scenes.py` (run it to regenerate;",
           "`--check` verifies the committed files). The large real-world scenes live outside",
           "the repository in `../shared/scenes`.", "",
           "Triangle counts are after fan triangulation of polygons, before the loader drops",
           "zero-area triangles; \"kept\" is what remains after dropping.", "",
           "| file | vertices | faces | triangles | kept | what it is and what it stresses |",
           "|---|---:|---:|---:|---:|---|"]
    for name, obj, text, dropped in rows:
        out.append("| `%s` | %d | %d | %d | %d | %s |" % (
            name, obj.num_vertices, obj.num_faces, obj.num_triangles,
            obj.num_triangles - dropped, text))
    out += ["", "`cornell_box.obj` coordinates: y is up; the box spans x -5..5, y 0..10, "
            "z -5..5 and is", "open at z = +5. A camera at (0, 5, 19) looking at (0, 5, 0) "
            "with a 40 degree vertical", "field of view frames the opening.", ""]
    return "\n".join(out)


def main(argv):
    check = "--check" in argv[1:]
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scenes")
    os.makedirs(root, exist_ok=True)
    outputs, rows = {}, []
    for name, build, text, eol, dropped in SCENES:
        obj = build()
        outputs[name] = obj.text(eol)
        rows.append((name, obj, text, dropped))
    outputs["README.md"] = readme(rows)
    stale = []
    for name, content in outputs.items():
        path = os.path.join(root, name)
        data = content.encode("ascii")
        if check:
            try:
                with open(path, "rb") as f:
                    if f.read() != data:
                        stale.append(name)
            except OSError:
                stale.append(name)
            continue
        with open(path, "wb") as f:
            f.write(data)
    for name, obj, _, dropped in rows if not check else []:
        print("%-26s %6d vertices %6d faces %6d triangles (%d zero-area) %8d bytes" % (
            name, obj.num_vertices, obj.num_faces, obj.num_triangles, dropped,
            len(outputs[name])))
    if stale:
        print("out of date: " + ", ".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
