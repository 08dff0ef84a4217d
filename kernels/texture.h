// Textures: tagged records (kernels/scene_view.h: TexInfo) resolved by a switch. Images: bilinear lookup with repeat
// wrapping in linear RGBA texels, optionally through a uv mapping; 2D checkerboards of two colours or images.
#pragma once
#include "scene_view.h"

namespace wp {

// An image texture's bilinear lookup at uv.
WP_HD vec4 tex_image(const SceneView& s, const TexInfo& t, vec2 uv) {
    float x = fmadd(uv.x - floorf(uv.x), float(t.width), -0.5f);
    float y = fmadd(uv.y - floorf(uv.y), float(t.height), -0.5f);
    float fx = floorf(x), fy = floorf(y);
    float ax = x - fx, ay = y - fy;
    int x0 = int(fx), y0 = int(fy);
    int W = int(t.width), H = int(t.height);
    auto wrap = [](int a, int n) { return ((a % n) + n) % n; };
    int xa = wrap(x0, W), xb = wrap(x0 + 1, W), ya = wrap(y0, H), yb = wrap(y0 + 1, H);
    const F4* p = s.tex_texels + t.offset;
    F4 c00 = load4(&p[ya * W + xa]), c10 = load4(&p[ya * W + xb]), c01 = load4(&p[yb * W + xa]),
       c11 = load4(&p[yb * W + xb]);
    // wa * a + wb * b, per channel with its multiply-add fused (kernels/common.h: fmadd)
    auto mix = [](float wa, vec4 a, float wb, vec4 b) {
        return vec4(fmadd(wb, b.x, wa * a.x), fmadd(wb, b.y, wa * a.y), fmadd(wb, b.z, wa * a.z),
                    fmadd(wb, b.w, wa * a.w));
    };
    auto v = [](const F4& c) { return vec4(c.x, c.y, c.z, c.w); };
    return mix(1.0f - ay, mix(1.0f - ax, v(c00), ax, v(c10)), ay, mix(1.0f - ax, v(c01), ax, v(c11)));
}

// The affine uv mapping of a record m: (m.x u + m.y, m.z v + m.w).
WP_HD vec2 tex_map(const F4& m, vec2 uv) { return vec2(fmadd(m.x, uv.x, m.y), fmadd(m.z, uv.y, m.w)); }

// Which side of a 2D checkerboard (s, t) lies on: false for cells with floor(s) + floor(t) even (pbrt-v4's tex1),
// true for the others (tex2). pbrt-v4 box-filters the edges over the ray differentials' footprint; we point-sample
// (the pixel's samples average the edge).
WP_HD bool checker_odd(vec2 st) {
    float f = floorf(st.x) + floorf(st.y);
    return floorf(f * 0.5f) != f * 0.5f;
}

// The texture at uv. One bilinear lookup at most (inlined once per call site): a checkerboard picks its side's colour
// and texture, a mapped image maps uv, then the image is read.
WP_HD vec4 tex_lookup(const SceneView& s, uint32_t id, vec2 uv) {
    TexInfo t = s.textures[id];
    vec4 k(1.0f);  // a checkerboard side's colour
    if (t.kind == kTexChecker) {
        const F4* r = s.tex_texels + t.offset;
        const F4 side = load4(&r[checker_odd(tex_map(load4(&r[0]), uv)) ? 2 : 1]);
        k = vec4(side.x, side.y, side.z, 1.0f);
        const uint32_t sub = float_bits(side.w);
        if (sub == kNoTexture) return k;
        t = s.textures[sub];  // an image, plain or mapped
    }
    if (t.kind == kTexMapped) {
        uv = tex_map(load4(&s.tex_texels[t.offset]), uv);
        t = s.textures[t.width];
    }
    return k * tex_image(s, t, uv);  // (k is 1 for an image: exact)
}

}  // namespace wp
