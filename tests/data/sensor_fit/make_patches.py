# Writes patches_cie1931.pbrt and patches_canon_eos_100d.pbrt: 24 diffuse patches of different colours under a
# uniform white infinite light, 48x32 pixels (8x8 per patch). Render both with pbrt-v4 and fit the sensor matrix:
#   pbrt --nthreads 1 --spp 1024 --outfile cie.pfm patches_cie1931.pbrt
#   pbrt --nthreads 1 --spp 1024 --outfile canon.pfm patches_canon_eos_100d.pbrt
#   python3 fit.py cie.pfm canon.pfm      # M (rows) with canon = M cie: host/scene/pbrt_film.cpp
cols = [(0.8, 0.1, 0.1), (0.1, 0.8, 0.1), (0.1, 0.1, 0.8), (0.8, 0.8, 0.1), (0.1, 0.8, 0.8), (0.8, 0.1, 0.8),
        (0.9, 0.9, 0.9), (0.5, 0.5, 0.5), (0.2, 0.2, 0.2), (0.6, 0.3, 0.1), (0.1, 0.3, 0.6), (0.3, 0.6, 0.1),
        (0.45, 0.3, 0.25), (0.75, 0.55, 0.45), (0.35, 0.45, 0.6), (0.35, 0.4, 0.2), (0.5, 0.5, 0.7), (0.4, 0.75, 0.65),
        (0.85, 0.45, 0.15), (0.25, 0.3, 0.65), (0.75, 0.3, 0.35), (0.3, 0.15, 0.4), (0.6, 0.75, 0.2), (0.9, 0.6, 0.1)]
for sensor in ["cie1931", "canon_eos_100d"]:
    s = f'''LookAt 0 0 10  0 0 0  0 1 0
Camera "perspective" "float fov" [22.619865]
Film "rgb" "integer xresolution" [48] "integer yresolution" [32] "string sensor" "{sensor}" "string filename" "x.pfm"
PixelFilter "box"
Sampler "independent"
Integrator "path" "integer maxdepth" [1]
WorldBegin
LightSource "infinite" "rgb L" [1 1 1]
'''
    for i, c in enumerate(cols):
        x0 = -3 + (i % 6)
        y0 = -2 + (i // 6)
        s += f'''AttributeBegin
Material "diffuse" "rgb reflectance" [{c[0]} {c[1]} {c[2]}]
Shape "trianglemesh" "integer indices" [0 1 2 0 2 3] "point3 P" [{x0} {y0} 0 {x0+1} {y0} 0 {x0+1} {y0+1} 0 {x0} {y0+1} 0]
AttributeEnd
'''
    open(f"patches_{sensor}.pbrt", "w").write(s)
