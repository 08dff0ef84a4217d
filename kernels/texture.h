// Textures: bilinear lookup with repeat wrapping in linear RGBA texels.
#pragma once
#include "scene_view.h"

namespace wp {

WP_HD vec4 tex_lookup(const SceneView& s, uint32_t id, vec2 uv) {
    TexInfo t = s.textures[id];
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

}  // namespace wp
