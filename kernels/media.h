// Participating media as pbrt-v4 defines them (Physically Based Rendering 4th ed., chapter 11 "Volume Scattering"
// and section 14.1 "The Equation of Transfer", whose volpath integrator uses them): the device-side math only, no
// scene tables and no kernels yet (issue 46).
//
//   - the Henyey-Greenstein phase function (PBR4 11.3.1; pbrt-v4's HGPhaseFunction), also used by the coated
//     materials' walk (kernels/layered.h);
//   - HomogeneousMedium (PBR4 11.4.1) and the uniform grid medium (PBR4 11.4.2, pbrt-v4's GridMedium,
//     "uniformgrid"): its SampledGrid trilinear density lookup and its coarse MajorantGrid (16^3 maxima), walked
//     by a 3-D DDA (pbrt-v4's DDAMajorantIterator, PBR4 11.4.3);
//   - majorant-based free-flight sampling (pbrt-v4's SampleT_maj, PBR4 11.2.2 and 14.1.2: delta / null-scattering
//     tracking), the caller deciding absorption, real or null scattering with pbrt-v4's probabilities, and the
//     weights volpath keeps for it (beta and the rescaled path probabilities r_u, r_l, PBR4 14.1.3);
//   - ratio tracking for shadow rays (PBR4 14.1.4 / 14.1.5: volpath's SampleLd, its T_ray with r_u and r_l).
//
// Shapes for a wavefront: the majorant iterators and the tracker are small structs with a next() that returns one
// segment or one event per call (no callback as pbrt-v4's SampleT_maj takes), so a kernel can stop after any event
// and queue the state. Nothing here allocates, calls virtually or indexes a local array by a run-time value: RGB
// channels and the DDA's axes are picked by selects (channel(), the axis helpers).
//
// RGB in place of pbrt-v4's four sampled wavelengths: distances are sampled in one channel, the hero channel `ch`,
// as pbrt-v4 samples by the first wavelength (sigma_maj[0]). The caller chooses it: either channel 0 always, where
// the estimators below are unbiased with their plain weights (T_ray; beta), or a hero channel drawn uniformly per
// path with hero_channel(u), where the per-channel estimators are divided by the average of the rescaled
// probabilities r_l / r_u (pbrt-v4's spectral MIS over its wavelengths, the one-sample balance heuristic over the
// three channels), which keeps every channel's variance bounded when the channels' extinctions differ. Distances
// are along a unit direction (pbrt-v4 normalises the ray before SampleT_maj and scales tMax by its length).
#pragma once
#include "common.h"

namespace wp {

// ---- Henyey-Greenstein (PBR4 11.3.1) ----
// pbrt-v4's convention: wo and wi both point away from the scattering point; g > 0 scatters forward (wi near -wo).
WP_HD float hg_phase(float cos_t, float g) {
    g = glm::clamp(g, -0.99f, 0.99f);
    const float denom = fmadd(2.0f * g, cos_t, fmadd(g, g, 1.0f));
    return (1.0f / (4.0f * kPi)) * fmadd(-g, g, 1.0f) / (denom * safe_sqrt(denom));
}
// Samples wi for wo; the phase value equals the pdf.
WP_HD vec3 hg_sample(vec3 wo, float g, vec2 u, float& pdf) {
    g = glm::clamp(g, -0.99f, 0.99f);
    float cos_t;
    if (fabsf(g) < 1e-3f)
        cos_t = fmadd(-2.0f, u.x, 1.0f);
    else
        cos_t = -1.0f / (2.0f * g) * (1.0f + g * g - sqr((1.0f - g * g) / (1.0f + g - 2.0f * g * u.x)));
    const float sin_t = safe_sqrt(fmadd(-cos_t, cos_t, 1.0f)), phi = 2.0f * kPi * u.y;
    const Frame fr = Frame::from_normal(wo);
    pdf = hg_phase(cos_t, g);
    return fr.to_world(vec3(sin_t * cosf(phi), sin_t * sinf(phi), cos_t));
}
// pbrt-v4's HGPhaseFunction::p and ::PDF (equal: the sampling is exact).
WP_HD float hg_pdf(vec3 wo, vec3 wi, float g) { return hg_phase(dot_fma(wo, wi), g); }

// ---- RGB channels ----
WP_HD float channel(vec3 v, uint32_t c) { return c == 0u ? v.x : (c == 1u ? v.y : v.z); }
WP_HD float average(vec3 v) { return (v.x + v.y + v.z) * (1.0f / 3.0f); }
WP_HD vec3 exp3(vec3 v) { return vec3(expf(v.x), expf(v.y), expf(v.z)); }
// A hero channel drawn uniformly from u in [0,1) (see the header's comment).
WP_HD uint32_t hero_channel(float u) { return glm::min(uint32_t(u * 3.0f), 2u); }
// pbrt-v4's SampleExponential: t with density a exp(-a t).
WP_HD float sample_exponential(float u, float a) { return -logf(1.0f - u) / a; }

// What a medium is at a point (pbrt-v4's MediumProperties; the phase function is HG with g).
struct MediumProperties {
    vec3 sigma_a, sigma_s, Le;
    float g;
};

// One piece of a ray over which the majorant is constant (pbrt-v4's RayMajorantSegment): [t0, t1), sigma_maj.
struct MajorantSegment {
    float t0, t1;
    vec3 sigma_maj;
};

// ---- homogeneous medium (PBR4 11.4.1) ----
// pbrt-v4's HomogeneousMajorantIterator: one segment, then none.
struct HomogeneousMajorantIterator {
    MajorantSegment seg;
    bool done;
    WP_HD bool next(MajorantSegment& s) {
        if (done) return false;
        s = seg;
        done = true;
        return true;
    }
};
WP_HD HomogeneousMajorantIterator majorant_segment(float t0, float t1, vec3 sigma_maj) {
    return HomogeneousMajorantIterator{MajorantSegment{t0, t1, sigma_maj}, false};
}

// pbrt-v4's HomogeneousMedium: sigma_a and sigma_s already times "scale", Le times "Lescale"; majorant sigma_t.
struct HomogeneousMedium {
    vec3 sigma_a, sigma_s, Le;
    float g;
    WP_HD static HomogeneousMedium make(vec3 sigma_a, vec3 sigma_s, float scale, vec3 Le, float Le_scale, float g) {
        return HomogeneousMedium{sigma_a * scale, sigma_s * scale, Le * Le_scale, g};
    }
    WP_HD vec3 sigma_t() const { return sigma_a + sigma_s; }
    WP_HD bool emissive() const { return max_comp(Le) > 0.0f; }
    // pbrt-v4's SamplePoint: the same everywhere.
    WP_HD MediumProperties props(vec3) const { return MediumProperties{sigma_a, sigma_s, Le, g}; }
    // pbrt-v4's SampleRay: the segment [0, tmax) with sigma_maj = sigma_t.
    WP_HD HomogeneousMajorantIterator sample_ray(float tmax) const { return majorant_segment(0.0f, tmax, sigma_t()); }
};

// ---- grids (PBR4 11.4.2) ----
// pbrt-v4's SampledGrid<Float> over a pointer: nx*ny*nz samples, x fastest, at the cell centres of [0,1]^3.
struct DensityGrid {
    const float* values;
    int nx, ny, nz;
    // A sample; 0 outside the grid (as pbrt-v4's SampledGrid::Lookup(Point3i)).
    WP_HD float at(int x, int y, int z) const {
        if (x < 0 || y < 0 || z < 0 || x >= nx || y >= ny || z >= nz) return 0.0f;
        return values[(size_t(z) * size_t(ny) + size_t(y)) * size_t(nx) + size_t(x)];
    }
    // Trilinear interpolation at p in [0,1]^3 (pbrt-v4's SampledGrid::Lookup(Point3f)).
    WP_HD float lookup(vec3 p) const {
        const vec3 ps(p.x * float(nx) - 0.5f, p.y * float(ny) - 0.5f, p.z * float(nz) - 0.5f);
        const int x = int(floorf(ps.x)), y = int(floorf(ps.y)), z = int(floorf(ps.z));
        const vec3 d = ps - vec3(float(x), float(y), float(z));
        const float d00 = glm::mix(at(x, y, z), at(x + 1, y, z), d.x);
        const float d10 = glm::mix(at(x, y + 1, z), at(x + 1, y + 1, z), d.x);
        const float d01 = glm::mix(at(x, y, z + 1), at(x + 1, y, z + 1), d.x);
        const float d11 = glm::mix(at(x, y + 1, z + 1), at(x + 1, y + 1, z + 1), d.x);
        return glm::mix(glm::mix(d00, d10, d.y), glm::mix(d01, d11, d.y), d.z);
    }
    // The largest sample that a lookup inside [b0, b1] (a box of [0,1]^3) interpolates (pbrt-v4's
    // SampledGrid::MaxValue): an upper bound of the lookup there when the samples are >= 0.
    WP_HD float max_value(vec3 b0, vec3 b1) const {
        const int x0 = glm::max(int(floorf(b0.x * float(nx) - 0.5f)), 0);
        const int y0 = glm::max(int(floorf(b0.y * float(ny) - 0.5f)), 0);
        const int z0 = glm::max(int(floorf(b0.z * float(nz) - 0.5f)), 0);
        const int x1 = glm::min(int(floorf(b1.x * float(nx) - 0.5f)) + 1, nx - 1);
        const int y1 = glm::min(int(floorf(b1.y * float(ny) - 0.5f)) + 1, ny - 1);
        const int z1 = glm::min(int(floorf(b1.z * float(nz) - 0.5f)) + 1, nz - 1);
        float m = at(x0, y0, z0);
        for (int z = z0; z <= z1; ++z)
            for (int y = y0; y <= y1; ++y)
                for (int x = x0; x <= x1; ++x) m = glm::max(m, at(x, y, z));
        return m;
    }
};

// pbrt-v4's MajorantGrid: res.x*res.y*res.z voxels (x fastest) over the medium's bounds [p0, p1], each the largest
// density in it (times sigma_t, the voxel's majorant). pbrt-v4's GridMedium uses 16^3.
constexpr int kMajorantRes = 16;
struct MajorantGrid {
    const float* voxels;
    int nx, ny, nz;
    vec3 p0, p1;
    WP_HD float lookup(int x, int y, int z) const {
        return voxels[(size_t(z) * size_t(ny) + size_t(y)) * size_t(nx) + size_t(x)];
    }
    // Voxel (x, y, z)'s bounds in [0,1]^3.
    WP_HD void voxel_bounds(int x, int y, int z, vec3& b0, vec3& b1) const {
        b0 = vec3(float(x) / float(nx), float(y) / float(ny), float(z) / float(nz));
        b1 = vec3(float(x + 1) / float(nx), float(y + 1) / float(ny), float(z + 1) / float(nz));
    }
};
// Fills voxels[nx*ny*nz] with the density's maxima (pbrt-v4's GridMedium constructor); host or one thread.
WP_HD void build_majorant_grid(const DensityGrid& density, int nx, int ny, int nz, float* voxels) {
    const MajorantGrid g{voxels, nx, ny, nz, vec3(0.0f), vec3(1.0f)};
    for (int z = 0; z < nz; ++z)
        for (int y = 0; y < ny; ++y)
            for (int x = 0; x < nx; ++x) {
                vec3 b0, b1;
                g.voxel_bounds(x, y, z, b0, b1);
                voxels[(size_t(z) * size_t(ny) + size_t(y)) * size_t(nx) + size_t(x)] = density.max_value(b0, b1);
            }
}

// The overlap [t0, t1] of the ray o + t d, t in [0, tmax], with the box [b0, b1] (pbrt-v4's Bounds3::IntersectP,
// the far slab widened by 2 gamma(3) against rounding). False when they do not overlap.
WP_HD bool slab(float o, float d, float lo, float hi, float& t0, float& t1) {
    const float inv = 1.0f / d;
    float tn = (lo - o) * inv, tf = (hi - o) * inv;
    if (tn > tf) {
        const float s = tn;
        tn = tf;
        tf = s;
    }
    tf *= 1.0f + 6.0f * 5.96046448e-08f / (1.0f - 3.0f * 5.96046448e-08f);
    t0 = tn > t0 ? tn : t0;
    t1 = tf < t1 ? tf : t1;
    return t0 <= t1;
}
WP_HD bool box_overlap(vec3 o, vec3 d, float tmax, vec3 b0, vec3 b1, float& t0, float& t1) {
    t0 = 0.0f;
    t1 = tmax;
    return slab(o.x, d.x, b0.x, b1.x, t0, t1) && slab(o.y, d.y, b0.y, b1.y, t0, t1) &&
           slab(o.z, d.z, b0.z, b1.z, t0, t1);
}

// The axis helpers: component a of v, chosen by selects.
WP_HD float axis_get(vec3 v, int a) { return a == 0 ? v.x : (a == 1 ? v.y : v.z); }
WP_HD int axis_get(glm::ivec3 v, int a) { return a == 0 ? v.x : (a == 1 ? v.y : v.z); }
WP_HD vec3 axis_add(vec3 v, int a, float s) {
    return vec3(v.x + (a == 0 ? s : 0.0f), v.y + (a == 1 ? s : 0.0f), v.z + (a == 2 ? s : 0.0f));
}
WP_HD glm::ivec3 axis_add(glm::ivec3 v, int a, int s) {
    return glm::ivec3(v.x + (a == 0 ? s : 0), v.y + (a == 1 ? s : 0), v.z + (a == 2 ? s : 0));
}

// pbrt-v4's DDAMajorantIterator (PBR4 11.4.3): the voxels of a MajorantGrid that the ray crosses over [t_min, t_max),
// in order, each as a segment with sigma_maj = sigma_t * the voxel's maximum. The ray is in the grid's space; t is
// the ray's own parameter (the grid medium's distances along the unit render-space direction).
struct DDAMajorantIterator {
    const float* voxels;
    int nx, ny, nz;
    vec3 sigma_t;
    float t_min, t_max;
    vec3 next_crossing, delta_t;
    glm::ivec3 voxel, step, limit;

    WP_HD bool next(MajorantSegment& s) {
        if (t_min >= t_max) return false;
        // the axis whose voxel boundary comes first (pbrt-v4's cmpToAxis table, as selects)
        const float n0 = next_crossing.x, n1 = next_crossing.y, n2 = next_crossing.z;
        const int a = n0 < n1 ? (n0 < n2 ? 0 : 2) : (n1 < n2 ? 1 : 2);
        const float cross = axis_get(next_crossing, a);
        const float t_exit = glm::min(t_max, cross);
        const float maj = voxels[(size_t(voxel.z) * size_t(ny) + size_t(voxel.y)) * size_t(nx) + size_t(voxel.x)];
        s = MajorantSegment{t_min, t_exit, sigma_t * maj};
        t_min = t_exit;
        if (cross > t_max) t_min = t_max;
        voxel = axis_add(voxel, a, axis_get(step, a));
        if (axis_get(voxel, a) == axis_get(limit, a)) t_min = t_max;
        next_crossing = axis_add(next_crossing, a, axis_get(delta_t, a));
        return true;
    }
};

// One axis of the DDA's set-up: the voxel of the entry point, the next boundary's t, the step between boundaries.
WP_HD void dda_axis(float entry, float dir, int res, float t_min, int& voxel, float& next, float& delta, int& step,
                    int& limit) {
    voxel = int(glm::clamp(entry * float(res), 0.0f, float(res - 1)));
    delta = 1.0f / (fabsf(dir) * float(res));
    if (dir == 0.0f) {  // also -0: never crosses
        next = kInf;
        step = 1;
        limit = res;
    } else if (dir > 0.0f) {
        next = t_min + (float(voxel + 1) / float(res) - entry) / dir;
        step = 1;
        limit = res;
    } else {
        next = t_min + (float(voxel) / float(res) - entry) / dir;
        step = -1;
        limit = -1;
    }
}
// The iterator over [t_min, t_max) of the ray o + t d (the grid's space; [t_min, t_max] inside the grid's bounds,
// from box_overlap).
WP_HD DDAMajorantIterator dda_majorant_iterator(const MajorantGrid& g, vec3 o, vec3 d, float t_min, float t_max,
                                                vec3 sigma_t) {
    DDAMajorantIterator it;
    it.voxels = g.voxels;
    it.nx = g.nx;
    it.ny = g.ny;
    it.nz = g.nz;
    it.sigma_t = sigma_t;
    it.t_min = t_min;
    it.t_max = t_max;
    const vec3 diag = g.p1 - g.p0;
    const vec3 og = (o - g.p0) / diag, dg = d / diag;
    const vec3 entry = og + dg * t_min;
    dda_axis(entry.x, dg.x, g.nx, t_min, it.voxel.x, it.next_crossing.x, it.delta_t.x, it.step.x, it.limit.x);
    dda_axis(entry.y, dg.y, g.ny, t_min, it.voxel.y, it.next_crossing.y, it.delta_t.y, it.step.y, it.limit.y);
    dda_axis(entry.z, dg.z, g.nz, t_min, it.voxel.z, it.next_crossing.z, it.delta_t.z, it.step.z, it.limit.z);
    return it;
}

// pbrt-v4's GridMedium ("uniformgrid") in its own space (the bounds p0, p1; the render-from-medium transform is
// the caller's): density d(p) by trilinear lookup, sigma_a d and sigma_s d (already times "scale"), emission
// Le * Lescale(p) where an Le scale grid is given (values null: none; pbrt-v4's temperature grid is not here).
struct GridMedium {
    vec3 p0, p1;
    vec3 sigma_a, sigma_s, Le;
    float g;
    DensityGrid density, le_scale;
    MajorantGrid majorant;  // its bounds p0, p1
    WP_HD vec3 offset(vec3 p) const { return (p - p0) / (p1 - p0); }
    WP_HD MediumProperties props(vec3 p) const {
        const vec3 q = offset(p);
        const float d = density.lookup(q);
        const vec3 le = le_scale.values ? Le * le_scale.lookup(q) : vec3(0.0f);
        return MediumProperties{sigma_a * d, sigma_s * d, le, g};
    }
    // pbrt-v4's SampleRay: the DDA over the part of [0, tmax) inside the bounds (no segment when none is).
    WP_HD DDAMajorantIterator sample_ray(vec3 o, vec3 d, float tmax) const {
        float t0, t1;
        if (!box_overlap(o, d, tmax, p0, p1, t0, t1)) t0 = t1 = 0.0f;
        return dda_majorant_iterator(majorant, o, d, t0, t1, sigma_a + sigma_s);
    }
};

// ---- majorant tracking: pbrt-v4's SampleT_maj as a step function (PBR4 14.1.2) ----
enum MajorantEventType : uint32_t { kMajorantCollision = 0, kMajorantExit = 1 };
// One event: a collision at t (real or null: the caller decides, medium_event below) with the segment's sigma_maj,
// or the ray's exit past its last segment. T_maj is the majorant transmittance since the previous event (or the
// start), per channel: what pbrt-v4 hands its callback, and returns at the end.
struct MajorantEvent {
    uint32_t type;
    float t;
    vec3 sigma_maj, T_maj;
};

// The tracker's state over a majorant iterator It (HomogeneousMajorantIterator, DDAMajorantIterator): each next(u)
// draws the optical depth -ln(1 - u) to the next collision in the hero channel ch and walks the segments until it
// is spent. pbrt-v4's SampleT_maj draws a fresh number at each segment boundary it passes; carrying the remaining
// optical depth across boundaries instead samples the same exponential distribution (memorylessness), with exactly
// one number per event: what a wavefront stage can key by (path, bounce, event).
template <class It>
struct MajorantTracker {
    It it;
    MajorantSegment seg;
    bool has_seg;
    vec3 tau;  // the majorant's optical depth since the last event (T_maj = exp(-tau))
    uint32_t ch;

    WP_HD MajorantEvent next(float u) {
        float left = -logf(1.0f - u);
        for (;;) {
            if (!has_seg) {
                if (!it.next(seg)) {
                    const vec3 T = exp3(-tau);
                    tau = vec3(0.0f);
                    return MajorantEvent{kMajorantExit, seg.t1, vec3(0.0f), T};
                }
                has_seg = true;
            }
            const float sm = channel(seg.sigma_maj, ch);
            float dt = seg.t1 - seg.t0;
            if (!(dt < kInf)) dt = kInf;  // an unbounded segment (pbrt-v4: the largest float)
            if (sm > 0.0f) {
                const float t = seg.t0 + left / sm;
                if (t < seg.t1) {
                    const vec3 T = exp3(-(tau + (t - seg.t0) * seg.sigma_maj));
                    tau = vec3(0.0f);
                    seg.t0 = t;
                    return MajorantEvent{kMajorantCollision, t, seg.sigma_maj, T};
                }
                left = glm::max(left - sm * dt, 0.0f);
            }
            tau += dt * seg.sigma_maj;
            has_seg = false;
        }
    }
};
template <class It>
WP_HD MajorantTracker<It> majorant_tracker(const It& it, uint32_t ch) {
    MajorantTracker<It> tr;
    tr.it = it;
    tr.seg = MajorantSegment{0.0f, 0.0f, vec3(0.0f)};
    tr.has_seg = false;
    tr.tau = vec3(0.0f);
    tr.ch = ch;
    return tr;
}

// ---- the collision's kind (volpath, PBR4 14.1.3) ----
enum MediumEventKind : uint32_t { kMediumAbsorb = 0, kMediumScatter = 1, kMediumNull = 2 };
struct MediumEventProbs {
    float absorb, scatter, null_;
};
// pbrt-v4's pAbsorb, pScatter, pNull in the hero channel.
WP_HD MediumEventProbs medium_event_probs(const MediumProperties& mp, vec3 sigma_maj, uint32_t ch) {
    const float sm = channel(sigma_maj, ch);
    const float pa = channel(mp.sigma_a, ch) / sm, ps = channel(mp.sigma_s, ch) / sm;
    return MediumEventProbs{pa, ps, glm::max(0.0f, 1.0f - pa - ps)};
}
// pbrt-v4's SampleDiscrete over the three (normalised by their sum).
WP_HD uint32_t sample_medium_event(const MediumEventProbs& p, float u) {
    const float sum = p.absorb + p.scatter + p.null_;
    const float x = u * sum;
    if (x < p.absorb) return kMediumAbsorb;
    if (x < p.absorb + p.scatter || p.null_ == 0.0f) return kMediumScatter;
    return kMediumNull;
}
WP_HD vec3 sigma_null(const MediumProperties& mp, vec3 sigma_maj) {
    return glm::max(sigma_maj - mp.sigma_a - mp.sigma_s, vec3(0.0f));
}

// A camera path's weights through a medium, as volpath keeps them: the throughput beta and the rescaled path
// probabilities r_u (unidirectional: the sampling that made the path) and r_l (light sampling), relative to the
// hero channel's. The estimate of a channel is beta / average(r_u) (times what the path then finds).
struct VolpathWeights {
    vec3 beta, r_u, r_l;
};
// Emission at a collision (any kind: pbrt-v4 adds it before deciding), the radiance to add to L.
WP_HD vec3 volpath_emission(const VolpathWeights& w, const MediumProperties& mp, vec3 sigma_maj, vec3 T_maj,
                            uint32_t ch) {
    const float pdf = channel(sigma_maj, ch) * channel(T_maj, ch);
    const vec3 betap = w.beta * T_maj / pdf, r_e = w.r_u * sigma_maj * T_maj / pdf;
    const float re = average(r_e);
    return re > 0.0f ? betap * mp.sigma_a * mp.Le / re : vec3(0.0f);
}
// A real scattering: beta and r_u by T_maj sigma_s / pdf (the phase function's sample follows).
WP_HD void volpath_scatter(VolpathWeights& w, const MediumProperties& mp, vec3 T_maj, uint32_t ch) {
    const float pdf = channel(T_maj, ch) * channel(mp.sigma_s, ch);
    w.beta *= T_maj * mp.sigma_s / pdf;
    w.r_u *= T_maj * mp.sigma_s / pdf;
}
// A null scattering: the path goes on; false when its weight is 0 (pbrt-v4 then stops the path).
WP_HD bool volpath_null(VolpathWeights& w, const MediumProperties& mp, vec3 sigma_maj, vec3 T_maj, uint32_t ch) {
    const vec3 sn = sigma_null(mp, sigma_maj);
    const float pdf = channel(T_maj, ch) * channel(sn, ch);
    if (pdf == 0.0f) {
        w.beta = vec3(0.0f);
        return false;
    }
    w.beta *= T_maj * sn / pdf;
    w.r_u *= T_maj * sn / pdf;
    w.r_l *= T_maj * sigma_maj / pdf;
    return max_comp(w.beta) > 0.0f && max_comp(w.r_u) > 0.0f;
}
// The ray left the medium (the exit event): T_maj over its last stretch divided by its hero channel.
WP_HD void volpath_exit(VolpathWeights& w, vec3 T_maj, uint32_t ch) {
    const float t = channel(T_maj, ch);
    w.beta *= T_maj / t;
    w.r_u *= T_maj / t;
    w.r_l *= T_maj / t;
}

// ---- ratio tracking for shadow rays (volpath's SampleLd, PBR4 14.1.5) ----
// T_ray, the transmittance's estimate relative to the hero channel's sampling, and the rescaled probabilities r_u,
// r_l of the light path (start them at 1; pbrt-v4 multiplies them by the path's r_p and the light's and the
// phase's pdfs at the end). Every collision is null for a shadow ray: T_ray *= T_maj sigma_n / pdf.
struct RatioTracking {
    vec3 T_ray, r_u, r_l;
};
WP_HD RatioTracking ratio_tracking() { return RatioTracking{vec3(1.0f), vec3(1.0f), vec3(1.0f)}; }
// A collision of the shadow ray; u_rr decides pbrt-v4's Russian roulette (q = 0.75 once the estimate is under
// 0.05). False when T_ray is 0 (the ray is done: no light).
WP_HD bool ratio_collision(RatioTracking& r, const MediumProperties& mp, vec3 sigma_maj, vec3 T_maj, uint32_t ch,
                           float u_rr) {
    const vec3 sn = sigma_null(mp, sigma_maj);
    const float pdf = channel(T_maj, ch) * channel(sigma_maj, ch);
    r.T_ray *= T_maj * sn / pdf;
    r.r_l *= T_maj * sigma_maj / pdf;
    r.r_u *= T_maj * sn / pdf;
    const vec3 Tr = r.T_ray / average(r.r_l + r.r_u);
    if (max_comp(Tr) < 0.05f) {
        const float q = 0.75f;
        if (u_rr < q)
            r.T_ray = vec3(0.0f);
        else
            r.T_ray /= 1.0f - q;
    }
    return max_comp(r.T_ray) > 0.0f;
}
// The exit event: T_maj over the last stretch divided by its hero channel.
WP_HD void ratio_exit(RatioTracking& r, vec3 T_maj, uint32_t ch) {
    const float t = channel(T_maj, ch);
    r.T_ray *= T_maj / t;
    r.r_l *= T_maj / t;
    r.r_u *= T_maj / t;
}
// The transmittance's estimate alone (light sampling's MIS weight over the channels, as volpath's estimate for a
// delta light: T_ray / average(r_l)): unbiased per channel with a uniformly drawn hero channel; with channel 0
// always, T_ray itself is (r_l's channel 0 is 1).
WP_HD vec3 ratio_transmittance(const RatioTracking& r) { return r.T_ray / average(r.r_l); }
// volpath's SampleLd weight of the light sample (PBR4 14.1.5): T_ray over the average of r_l times the path's r_p and
// the light's pdf, plus, unless the light is a delta light, r_u times r_p and the phase function's (or BSDF's) pdf.
// The sample's contribution is beta f L times this.
WP_HD vec3 ratio_light_weight(const RatioTracking& r, vec3 r_p, float light_pdf, float scatter_pdf, bool delta_light) {
    const vec3 rl = r.r_l * r_p * light_pdf;
    return r.T_ray / average(delta_light ? rl : rl + r.r_u * r_p * scatter_pdf);
}

}  // namespace wp
