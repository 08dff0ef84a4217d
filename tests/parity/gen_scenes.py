#!/usr/bin/env python3
"""Writes the parity suite's feature scenes (tests/parity/scenes/*.pbrt) and their small textures.

Dev-time only (CI reads the committed .pbrt files, never runs this). Each scene isolates one feature on a common
stage: a grey floor, a reddish back wall, a one-sided area light above, a dim constant sky, and one object.
To add a scene: add an entry to SCENES (or write the .pbrt by hand), add a manifest line, run
make_references.sh NAME. Python 3 standard library only.
"""
import math, os, struct, zlib

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "scenes")
RES = 48


def header(film_extra="", res=RES, maxdepth=5, integrator="volpath", camera_extra="", pixelfilter='PixelFilter "box"\n'):
    return f"""# wavepath parity suite (tests/parity/gen_scenes.py): written for the test
LookAt 0 1.6 -4.2   0 0.6 0   0 1 0
Camera "perspective" "float fov" 38{camera_extra}
Film "rgb" "integer xresolution" {res} "integer yresolution" {res}{film_extra}
{pixelfilter}Sampler "independent" "integer pixelsamples" 64
Integrator "{integrator}" "integer maxdepth" {maxdepth}
WorldBegin
"""


FLOOR = """AttributeBegin
  Material "diffuse" "rgb reflectance" [0.5 0.5 0.5]
  Shape "trianglemesh" "point3 P" [-4 0 -4  4 0 -4  4 0 4  -4 0 4] "integer indices" [0 2 1 0 3 2]
        "point2 uv" [0 0 1 0 1 1 0 1]
AttributeEnd
"""
WALL = """AttributeBegin
  Material "diffuse" "rgb reflectance" [0.6 0.35 0.25]
  Shape "trianglemesh" "point3 P" [-4 0 2.5  4 0 2.5  4 4 2.5  -4 4 2.5] "integer indices" [0 1 2 0 2 3]
AttributeEnd
"""
AREA = """AttributeBegin
  AreaLightSource "diffuse" "rgb L" [6 6 6]
  Material "diffuse" "rgb reflectance" [0 0 0]
  Shape "trianglemesh" "point3 P" [-0.75 3 -0.75  0.75 3 -0.75  0.75 3 0.75  -0.75 3 0.75]
        "integer indices" [0 1 2 0 2 3]
AttributeEnd
"""
SKY = 'LightSource "infinite" "rgb L" [0.08 0.08 0.08]\n'
STAGE = FLOOR + WALL + AREA + SKY


def sphere(mat, r=0.7, y=0.7):
    return f"""AttributeBegin
  {mat}
  Translate 0 {y} 0
  Shape "sphere" "float radius" {r}
AttributeEnd
"""


def mat_scene(mat):
    return header() + STAGE + sphere(mat)


# ----------------------------------------------------------------------------- small images (PNG, PFM)
def write_png(path, w, h, pix):  # pix[y][x] = (r, g, b) 0..255, row 0 at the top
    raw = b"".join(b"\0" + bytes(c for p in row for c in p) for row in pix)
    def chunk(t, d):
        return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xffffffff)
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def write_pfm(path, w, h, pix):  # pix[y][x] = (r, g, b) floats, row 0 at the top (PFM stores bottom-up)
    with open(path, "wb") as f:
        f.write(f"PF\n{w} {h}\n-1.0\n".encode())
        for row in reversed(pix):
            for p in row:
                f.write(struct.pack("<3f", *p))


def spectrum_files():
    os.makedirs(os.path.join(OUT, "spds"), exist_ok=True)
    for name, samples in (("eta", SPD_ETA), ("k", SPD_K)):
        with open(os.path.join(OUT, "spds", f"test-metal.{name}.spd"), "w") as f:
            f.write(f"# a copper-like conductor's {name}, made up for the parity suite: wavelength (nm), value\n")
            f.writelines(f"{l} {v}\n" for l, v in samples)


def textures():
    os.makedirs(os.path.join(OUT, "textures"), exist_ok=True)
    # 16x16: four colour quadrants with a white cross, so scale and offset are visible
    pix = []
    for y in range(16):
        row = []
        for x in range(16):
            if x in (7, 8) or y in (7, 8):
                c = (240, 240, 240)
            else:
                c = [(200, 40, 30), (40, 160, 60), (30, 60, 200), (220, 200, 40)][(x >= 8) + 2 * (y >= 8)]
            row.append(c)
        pix.append(row)
    write_png(os.path.join(OUT, "textures", "quadrants.png"), 16, 16, pix)
    # 64x64 height field for bump mapping: diagonal sine ridges, 8 periods across
    bump = [[(int(127.5 + 127 * math.sin(2 * math.pi * (x + y) / 16.0)),) * 3 for x in range(64)] for y in range(64)]
    write_png(os.path.join(OUT, "textures", "ridges.png"), 64, 64, bump)
    # 32x32 equal-area octahedral sky for the infinite light: a blue-to-white gradient in the image's diagonal
    # plus one bright warm patch (a sun) off centre
    env = []
    for y in range(32):
        row = []
        for x in range(32):
            t = (x + y) / 62.0
            c = [0.2 + 0.6 * t, 0.3 + 0.5 * t, 0.6 + 0.3 * t]
            if 5 <= x < 9 and 20 <= y < 24:
                c = [12.0, 10.0, 7.0]
            row.append(tuple(c))
        env.append(row)
    write_pfm(os.path.join(OUT, "textures", "sky.pfm"), 32, 32, env)


TEXFLOOR = """AttributeBegin
  Material "diffuse" "texture reflectance" "t"
  Shape "trianglemesh" "point3 P" [-2 0 -2  2 0 -2  2 0 2  -2 0 2] "integer indices" [0 2 1 0 3 2]
        "point2 uv" [0 0 1 0 1 1 0 1]
AttributeEnd
"""


def tex_scene(texdef):
    # the textured floor fills most of the frame; lit by the area light and the sky, no other object
    return header() + texdef + "\n" + TEXFLOOR + WALL + AREA + SKY


def light_scene(lights, extra=""):
    return header() + FLOOR + WALL + lights + sphere('Material "diffuse" "rgb reflectance" [0.7 0.7 0.7]') + extra


def icosphere_mesh(sub=1, flip_normals_extra=False):
    t = (1 + 5 ** 0.5) / 2
    v = [(-1, t, 0), (1, t, 0), (-1, -t, 0), (1, -t, 0), (0, -1, t), (0, 1, t), (0, -1, -t), (0, 1, -t),
         (t, 0, -1), (t, 0, 1), (-t, 0, -1), (-t, 0, 1)]
    f = [(0, 11, 5), (0, 5, 1), (0, 1, 7), (0, 7, 10), (0, 10, 11), (1, 5, 9), (5, 11, 4), (11, 10, 2), (10, 7, 6),
         (7, 1, 8), (3, 9, 4), (3, 4, 2), (3, 2, 6), (3, 6, 8), (3, 8, 9), (4, 9, 5), (2, 4, 11), (6, 2, 10),
         (8, 6, 7), (9, 8, 1)]
    v = [tuple(c / math.sqrt(sum(x * x for x in p)) for c in p) for p in v]
    return v, f


def fmt(nums, prec=5):
    return " ".join(f"{x:.{prec}g}" for x in nums)


SCENES = {}
# --- materials
SCENES["mat_diffuse"] = mat_scene('Material "diffuse"')
SCENES["mat_diffuse_color"] = mat_scene('Material "diffuse" "rgb reflectance" [0.8 0.3 0.1]')
# a sampled reflectance spectrum (wavelength, value pairs): the Cornell box's measured red wall
CORNELL_RED = "[ 400 0.040 404 0.046 408 0.048 412 0.053 416 0.049 420 0.050 424 0.053 428 0.055 432 0.057 436 0.056 440 0.059 444 0.057 448 0.061 452 0.061 456 0.060 460 0.062 464 0.062 468 0.062 472 0.061 476 0.062 480 0.060 484 0.059 488 0.057 492 0.058 496 0.058 500 0.058 504 0.056 508 0.055 512 0.056 516 0.059 520 0.057 524 0.055 528 0.059 532 0.059 536 0.058 540 0.059 544 0.061 548 0.061 552 0.063 556 0.063 560 0.067 564 0.068 568 0.072 572 0.080 576 0.090 580 0.099 584 0.124 588 0.154 592 0.192 596 0.255 600 0.287 604 0.349 608 0.402 612 0.443 616 0.487 620 0.513 624 0.558 628 0.584 632 0.620 636 0.606 640 0.609 644 0.651 648 0.612 652 0.610 656 0.650 660 0.638 664 0.627 668 0.620 672 0.630 676 0.628 680 0.642 684 0.639 688 0.657 692 0.639 696 0.635 700 0.642]"
SCENES["mat_diffuse_spectrum"] = mat_scene('Material "diffuse" "spectrum reflectance" ' + CORNELL_RED)
SCENES["mat_diffusetransmission"] = mat_scene(
    'Material "diffusetransmission" "rgb reflectance" [0.3 0.3 0.3] "rgb transmittance" [0.5 0.4 0.3]')
SCENES["mat_conductor_default"] = mat_scene('Material "conductor"')  # pbrt's default: copper, smooth
SCENES["mat_conductor_named_au"] = mat_scene(
    'Material "conductor" "spectrum eta" "metal-Au-eta" "spectrum k" "metal-Au-k"')
SCENES["mat_conductor_rough_al"] = mat_scene(
    'Material "conductor" "spectrum eta" "metal-Al-eta" "spectrum k" "metal-Al-k" "float roughness" 0.3')
SCENES["mat_conductor_rough_low"] = mat_scene(
    'Material "conductor" "spectrum eta" "metal-Ag-eta" "spectrum k" "metal-Ag-k" "float roughness" 0.05')
# a conductor's eta and k from spectrum files (.spd, read relative to the scene's folder): a copper-like metal made
# up for the test, strongly coloured so that the RGB conversion shows (spectrum_files() writes them). The samples
# span 360-830 nm, all the wavelengths pbrt-v4 samples: its spectra are 0 outside their samples
SPD_ETA = [(360, 1.3), (450, 1.2), (500, 1.1), (550, 0.9), (575, 0.5), (600, 0.3), (650, 0.22), (700, 0.2),
           (830, 0.23)]
SPD_K = [(360, 1.8), (450, 2.3), (500, 2.5), (550, 2.6), (600, 3.2), (650, 3.7), (700, 4.1), (830, 5.2)]
SCENES["mat_conductor_spd"] = mat_scene(
    'Material "conductor" "spectrum eta" "spds/test-metal.eta.spd" "spectrum k" "spds/test-metal.k.spd" '
    '"float roughness" 0.05')
SCENES["mat_conductor_etak_rgb"] = mat_scene(
    'Material "conductor" "rgb eta" [0.2 0.9 1.1] "rgb k" [3.9 2.4 2.2] "float roughness" 0.15')
SCENES["mat_conductor_reflectance"] = mat_scene(
    'Material "conductor" "rgb reflectance" [0.9 0.6 0.3] "float roughness" 0.2')
SCENES["mat_dielectric_smooth"] = mat_scene('Material "dielectric" "float eta" 1.5')
SCENES["mat_dielectric_rough"] = mat_scene('Material "dielectric" "float eta" 1.5 "float roughness" 0.3')
SCENES["mat_dielectric_water"] = mat_scene('Material "dielectric" "float eta" 1.33 "float roughness" 0.1')
SCENES["mat_coateddiffuse_default"] = mat_scene('Material "coateddiffuse"')
SCENES["mat_coateddiffuse_rough"] = mat_scene(
    'Material "coateddiffuse" "rgb reflectance" [0.7 0.25 0.1] "float roughness" 0.3')
SCENES["mat_coateddiffuse_albedo"] = mat_scene(
    'Material "coateddiffuse" "rgb reflectance" [0.2 0.5 0.8] "float roughness" 0.1 "float thickness" 0.1 '
    '"rgb albedo" [0.8 0.8 0.5] "float g" 0.5')
SCENES["mat_coateddiffuse_thick"] = mat_scene(
    'Material "coateddiffuse" "rgb reflectance" [0.6 0.6 0.6] "float roughness" 0 "float thickness" 1 '
    '"rgb albedo" [0.5 0.3 0.3] "float g" -0.4')
SCENES["mat_coatedconductor_smooth"] = mat_scene('Material "coatedconductor"')
SCENES["mat_coatedconductor_rough"] = mat_scene(
    'Material "coatedconductor" "float interface.roughness" 0.2 "float conductor.roughness" 0.3 '
    '"spectrum conductor.eta" "metal-Au-eta" "spectrum conductor.k" "metal-Au-k"')
# --- lights (each alone with the floor, wall and a grey sphere; no area light and no sky unless named)
SCENES["light_area_quad"] = light_scene(AREA)
SCENES["light_area_twosided"] = light_scene("""AttributeBegin
  AreaLightSource "diffuse" "rgb L" [4 3 2] "bool twosided" true
  Material "diffuse" "rgb reflectance" [0 0 0]
  Translate 1.3 1.2 0.3
  Rotate 60 0 1 0
  Shape "trianglemesh" "point3 P" [-0.4 -0.4 0  0.4 -0.4 0  0.4 0.4 0  -0.4 0.4 0] "integer indices" [0 1 2 0 2 3]
AttributeEnd
""")
SCENES["light_area_sphere"] = light_scene("""AttributeBegin
  AreaLightSource "diffuse" "rgb L" [3 4 6]
  Translate -1.2 2.2 -0.5
  Shape "sphere" "float radius" 0.3
AttributeEnd
""")
SCENES["light_point"] = light_scene(
    'LightSource "point" "point3 from" [1.2 2.5 -1.0] "rgb I" [8 7 6]\n')
SCENES["light_spot"] = light_scene(
    'LightSource "spot" "point3 from" [0 3 -1.5] "point3 to" [0 0 0.5] "rgb I" [20 20 20] '
    '"float coneangle" 25 "float conedeltaangle" 8\n')
SCENES["light_distant"] = light_scene(
    'LightSource "distant" "point3 from" [1 3 -2] "point3 to" [0 0 0] "rgb L" [2 2 1.6]\n')
SCENES["light_infinite_constant"] = light_scene('LightSource "infinite" "rgb L" [0.6 0.7 0.9]\n')
SCENES["light_infinite_image"] = light_scene('AttributeBegin\n  Rotate -90 1 0 0\n'
                                             '  LightSource "infinite" "string filename" "textures/sky.pfm"\n'
                                             'AttributeEnd\n')
# --- textures (on a floor quad with uv 0..1)
IMG = 'Texture "t" "spectrum" "imagemap" "string filename" "textures/quadrants.png"'
SCENES["tex_imagemap"] = tex_scene(IMG)
SCENES["tex_imagemap_uvscale"] = tex_scene(IMG + ' "float uscale" 3 "float vscale" 2')
SCENES["tex_imagemap_uvdelta"] = tex_scene(IMG + ' "float udelta" 0.25 "float vdelta" 0.4')
SCENES["tex_checkerboard"] = tex_scene(
    'Texture "t" "spectrum" "checkerboard" "float uscale" 4 "float vscale" 4 '
    '"rgb tex1" [0.8 0.8 0.8] "rgb tex2" [0.1 0.2 0.5]')
SCENES["tex_scale"] = tex_scene(IMG.replace('"t"', '"img"') +
                                '\nTexture "t" "spectrum" "scale" "texture tex" "img" "float scale" 0.5')
# bump mapping: a float image texture as the floor's "displacement" (pbrt-v4 bump-maps with it)
SCENES["tex_bump"] = header() + 'Texture "bump" "float" "imagemap" "string filename" "textures/ridges.png" ' + \
    '"string encoding" "linear"\nTexture "b" "float" "scale" "texture tex" "bump" "float scale" 0.2\n' + """AttributeBegin
  Material "diffuse" "rgb reflectance" [0.6 0.6 0.6] "texture displacement" "b"
  Shape "trianglemesh" "point3 P" [-2 0 -2  2 0 -2  2 0 2  -2 0 2] "integer indices" [0 2 1 0 3 2]
        "point2 uv" [0 0 1 0 1 1 0 1]
AttributeEnd
""" + WALL + AREA + SKY
SCENES["tex_constant"] = tex_scene('Texture "t" "spectrum" "constant" "rgb value" [0.3 0.6 0.4]')
# --- shapes
cv, cf = icosphere_mesh()
ctrl = []
for p in cv:
    ctrl += [0.7 * p[0], 0.7 * p[1] + 0.7, 0.7 * p[2]]
SCENES["shape_loopsubdiv"] = header() + STAGE + f"""AttributeBegin
  Material "diffuse" "rgb reflectance" [0.3 0.6 0.3]
  Shape "loopsubdiv" "integer levels" 3 "integer indices" [{fmt([i for t in cf for i in t])}]
        "point3 P" [{fmt(ctrl)}]
AttributeEnd
"""
# instancing: one object, three instances
SCENES["instancing"] = header() + STAGE + """ObjectBegin "ball"
  Material "diffuse" "rgb reflectance" [0.2 0.4 0.8]
  Shape "sphere" "float radius" 0.4
  Translate 0 0.5 0
  Shape "sphere" "float radius" 0.2
ObjectEnd
AttributeBegin
  Translate -1.1 0.4 0
  ObjectInstance "ball"
AttributeEnd
AttributeBegin
  Translate 0 0.4 0.3
  Scale 1.3 1.3 1.3
  ObjectInstance "ball"
AttributeEnd
AttributeBegin
  Translate 1.1 0.4 -0.2
  Rotate 40 0 0 1
  ObjectInstance "ball"
AttributeEnd
"""
# shading normals: an icosahedron (20 flat triangles) with per-vertex normals of the sphere it approximates
ip, inn = [], []
for p in cv:
    ip += [0.7 * p[0], 0.7 * p[1] + 0.7, 0.7 * p[2]]
    inn += list(p)
ico = f"""  Shape "trianglemesh" "integer indices" [{fmt([i for t in cf for i in t])}]
        "point3 P" [{fmt(ip)}]
        "normal N" [{fmt(inn)}]
"""
SCENES["shading_normals_diffuse"] = header() + STAGE + "AttributeBegin\n  Material \"diffuse\" \"rgb reflectance\" [0.7 0.7 0.7]\n" + ico + "AttributeEnd\n"
SCENES["shading_normals_conductor"] = header() + STAGE + ("AttributeBegin\n  Material \"conductor\" \"spectrum eta\" "
                                                          "\"metal-Al-eta\" \"spectrum k\" \"metal-Al-k\" \"float roughness\" 0.1\n" + ico + "AttributeEnd\n")
# --- film sensor (the grey-sphere stage; only the Film line differs)
film_base = header() + STAGE + sphere('Material "diffuse" "rgb reflectance" [0.7 0.7 0.7]')
def film_scene(extra):
    return header(film_extra=" " + extra) + STAGE + sphere('Material "diffuse" "rgb reflectance" [0.7 0.7 0.7]')
SCENES["film_iso"] = film_scene('"float iso" 400')
# pbrt-v4's exposure time is the camera's shutter interval (shutterclose - shutteropen), not a Film parameter
SCENES["film_exposuretime"] = header(camera_extra=' "float shutteropen" 0 "float shutterclose" 0.25') + STAGE + sphere(
    'Material "diffuse" "rgb reflectance" [0.7 0.7 0.7]')
SCENES["film_whitebalance"] = film_scene('"float whitebalance" 3200')
SCENES["film_sensor_named"] = film_scene('"string sensor" "canon_eos_100d" "float iso" 150')

# --- pixel filters: pbrt-v4's default (no PixelFilter directive: gaussian, radius 1.5, sigma 0.5) and explicit ones;
# the instancing stage has the most edges
def filter_scene(pf):
    return header(pixelfilter=pf) + SCENES["instancing"][SCENES["instancing"].index("WorldBegin\n") + 11:]
SCENES["filter_default"] = filter_scene("")
SCENES["filter_gaussian"] = filter_scene('PixelFilter "gaussian"\n')
SCENES["filter_mitchell"] = filter_scene('PixelFilter "mitchell"\n')

if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    textures()
    spectrum_files()
    for name, text in SCENES.items():
        with open(os.path.join(OUT, name + ".pbrt"), "w") as f:
            f.write(text)
    print(len(SCENES), "scenes written to", OUT)
