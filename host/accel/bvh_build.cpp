#include "host/accel/bvh_build.h"
#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>
#include <numeric>
#include <queue>
#include <stdexcept>
#include <thread>
#if defined(__SSE2__) || defined(_M_X64)
#include <emmintrin.h>
#endif

namespace wp {
namespace {

struct Ctx {
    const std::vector<AABB>& boxes;
    std::vector<vec3> cent;
    BVHBuildOptions opt;
    BVHBuild out;
};

AABB bounds_of(Ctx& c, uint32_t b, uint32_t e, AABB* cb = nullptr) {
    AABB r, cr;
    for (uint32_t i = b; i < e; ++i) {
        r.grow(c.boxes[c.out.order[i]]);
        cr.grow(c.cent[c.out.order[i]]);
    }
    if (cb) *cb = cr;
    return r;
}

// Split [b, e); returns the split position (b < m < e).
uint32_t split(Ctx& c, uint32_t b, uint32_t e, int depth) {
    AABB cb;
    AABB box = bounds_of(c, b, e, &cb);
    uint32_t n = e - b;
    auto& ord = c.out.order;
    int best_axis = -1, best_bin = -1;
    float best_cost = kInf;
    const int B = c.opt.bins;
    if (depth < c.opt.max_depth) {
        for (int axis = 0; axis < 3; ++axis) {
            float lo = cb.lo[axis], ext = cb.hi[axis] - lo;
            if (!(ext > 0.0f)) continue;
            std::vector<AABB> bb(B);
            std::vector<uint32_t> cnt(B, 0);
            float k = B / ext;
            for (uint32_t i = b; i < e; ++i) {
                int bi = std::min(B - 1, int((c.cent[ord[i]][axis] - lo) * k));
                bb[bi].grow(c.boxes[ord[i]]);
                ++cnt[bi];
            }
            std::vector<float> left_cost(B);
            AABB acc;
            uint32_t na = 0;
            for (int i = 0; i < B - 1; ++i) {
                acc.grow(bb[i]);
                na += cnt[i];
                left_cost[i] = na ? acc.area() * na : 0.0f;
            }
            acc = AABB();
            na = 0;
            for (int i = B - 1; i > 0; --i) {
                acc.grow(bb[i]);
                na += cnt[i];
                float cost = left_cost[i - 1] + (na ? acc.area() * na : 0.0f);
                if (na > 0 && na < n && cost < best_cost) {
                    best_cost = cost;
                    best_axis = axis;
                    best_bin = i;
                }
            }
        }
    }
    if (best_axis >= 0) {
        float lo = cb.lo[best_axis], k = B / (cb.hi[best_axis] - lo);
        auto mid = std::partition(ord.begin() + b, ord.begin() + e, [&](uint32_t p) {
            return std::min(B - 1, int((c.cent[p][best_axis] - lo) * k)) < best_bin;
        });
        uint32_t m = uint32_t(mid - ord.begin());
        if (m > b && m < e) return m;
    }
    // Median split on the largest centroid extent (degenerate centroids, or depth limit reached).
    vec3 ext = cb.hi - cb.lo;
    int axis = ext.y > ext.x ? 1 : 0;
    if (ext.z > ext[axis]) axis = 2;
    uint32_t m = b + n / 2;
    std::nth_element(ord.begin() + b, ord.begin() + m, ord.begin() + e,
                     [&](uint32_t x, uint32_t y) { return c.cent[x][axis] < c.cent[y][axis]; });
    (void)box;
    return m;
}

// Should [b, e) become a leaf? SAH: leaf cost n against the best split estimate, bounded by max_leaf.
bool make_leaf(Ctx& c, uint32_t b, uint32_t e) { return e - b <= c.opt.max_leaf; }

void set_child(BVHNode& n, int k, const AABB& bx, uint32_t child, uint32_t count) {
    if (k == 0) {
        n.a = F4{bx.lo.x, bx.hi.x, bx.lo.y, bx.hi.y};
        n.c.x = bx.lo.z;
        n.c.y = bx.hi.z;
        n.d.x = child;
        n.d.z = count;
    } else {
        n.b = F4{bx.lo.x, bx.hi.x, bx.lo.y, bx.hi.y};
        n.c.z = bx.lo.z;
        n.c.w = bx.hi.z;
        n.d.y = child;
        n.d.w = count;
    }
}

// Node `slot` gets children for [b, m) and [m, e).
void build_node(Ctx& c, uint32_t slot, uint32_t b, uint32_t e, int depth) {
    c.out.depth = std::max(c.out.depth, depth + 1);
    uint32_t m = split(c, b, e, depth);
    uint32_t lo[2] = {b, m}, hi[2] = {m, e};
    uint32_t inner[2] = {kInvalid, kInvalid};
    for (int k = 0; k < 2; ++k) {
        AABB bx = bounds_of(c, lo[k], hi[k]);
        if (make_leaf(c, lo[k], hi[k])) {
            set_child(c.out.nodes[slot], k, bx, lo[k], hi[k] - lo[k]);
        } else {
            inner[k] = uint32_t(c.out.nodes.size());
            c.out.nodes.push_back(BVHNode{});
            set_child(c.out.nodes[slot], k, bx, inner[k], 0);
        }
    }
    for (int k = 0; k < 2; ++k)
        if (inner[k] != kInvalid) build_node(c, inner[k], lo[k], hi[k], depth + 1);
}

// ---- Spatial splits (SBVH: Stich, Friedrich, Dietrich 2009) ----
// The builder works on references (a primitive and the box of the part of it the reference stands for) held
// per node in vectors; leaves append their references to out.order / out.ref_boxes as they are made (depth
// first, the same node numbering as the object-split builder above).
namespace sbvh {

// A reference: a primitive and the box of the part of it that the reference stands for. 28 bytes, read by the
// 4-wide loads below as lo from its first 16 bytes and hi from bytes 12-27 (one lane too many each, ignored).
struct Ref {
    AABB box;
    uint32_t prim;
};
static_assert(sizeof(AABB) == 24 && sizeof(Ref) == 28, "the 4-wide loads read Ref's box at bytes 0-15 and 12-27");

// Four floats (x, y, z and an ignored lane): SSE2 on x86-64, plain floats elsewhere or with WP_BVH_NO_SSE defined (the
// same trees, 1.5x slower). min and max are glm's (glm::min(a, b) is b < a ? b : a), so boxes grown this way are bit for
// bit those of AABB::grow (signed zeros too).
#if (defined(__SSE2__) || defined(_M_X64)) && !defined(WP_BVH_NO_SSE)
struct V4 {
    __m128 v;
};
inline V4 v4_load(const float* p) { return {_mm_loadu_ps(p)}; }
inline V4 v4_set(float x, float y, float z) { return {_mm_setr_ps(x, y, z, 0.0f)}; }
inline V4 v4_splat(float x) { return {_mm_set1_ps(x)}; }
inline V4 v4_min(V4 a, V4 b) { return {_mm_min_ps(b.v, a.v)}; }
inline V4 v4_max(V4 a, V4 b) { return {_mm_max_ps(b.v, a.v)}; }
inline V4 operator+(V4 a, V4 b) { return {_mm_add_ps(a.v, b.v)}; }
inline V4 operator-(V4 a, V4 b) { return {_mm_sub_ps(a.v, b.v)}; }
inline V4 operator*(V4 a, V4 b) { return {_mm_mul_ps(a.v, b.v)}; }
inline void v4_store(float* p, V4 a) { _mm_storeu_ps(p, a.v); }
// min(int(x), top) per lane for x >= 0 (x's NaN lanes give top)
inline void v4_bins(V4 x, V4 top, int out[4]) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out), _mm_cvttps_epi32(_mm_min_ps(x.v, top.v)));
}
#else
struct V4 {
    float v[4];
};
inline V4 v4_load(const float* p) { return {{p[0], p[1], p[2], p[3]}}; }
inline V4 v4_set(float x, float y, float z) { return {{x, y, z, 0.0f}}; }
inline V4 v4_splat(float x) { return {{x, x, x, x}}; }
#define WP_V4_OP(name, expr)                    \
    inline V4 name(V4 a, V4 b) {                \
        V4 r;                                   \
        for (int i = 0; i < 4; ++i) {           \
            const float x = a.v[i], y = b.v[i]; \
            r.v[i] = (expr);                    \
        }                                       \
        return r;                               \
    }
WP_V4_OP(v4_min, y < x ? y : x)
WP_V4_OP(v4_max, x < y ? y : x)
WP_V4_OP(operator+, x + y)
WP_V4_OP(operator-, x - y)
WP_V4_OP(operator*, (x * y))
#undef WP_V4_OP
inline void v4_store(float* p, V4 a) {
    for (int i = 0; i < 4; ++i) p[i] = a.v[i];
}
inline void v4_bins(V4 x, V4 top, int out[4]) {
    for (int i = 0; i < 3; ++i) out[i] = x.v[i] < top.v[i] ? int(x.v[i]) : int(top.v[i]);
    out[3] = 0;
}
#endif
inline V4 ref_lo(const Ref& r) { return v4_load(&r.box.lo.x); }
inline V4 ref_hi(const Ref& r) { return v4_load(&r.box.hi.x); }

struct Box4 {
    V4 lo = v4_splat(kInf), hi = v4_splat(-kInf);
    void grow(V4 l, V4 h) {
        lo = v4_min(lo, l);
        hi = v4_max(hi, h);
    }
    void grow(const Box4& b) { grow(b.lo, b.hi); }
    // AABB::area's arithmetic (the same float)
    float area() const {
        float e[4];
        v4_store(e, v4_max(hi - lo, v4_splat(0.0f)));
        return 2.0f * (e[0] * e[1] + e[1] * e[2] + e[2] * e[0]);
    }
    AABB aabb() const {
        float l[4], h[4];
        v4_store(l, lo);
        v4_store(h, hi);
        AABB b;
        b.lo = vec3(l[0], l[1], l[2]);
        b.hi = vec3(h[0], h[1], h[2]);
        return b;
    }
};

// The object split's bin of a reference on each axis: min(B - 1, int((centroid - cb.lo) * B / extent)), as the
// scalar builder computes it (an axis without extent: bin 0). The same function bins and partitions, so the two
// agree on every reference.
struct Binner {
    V4 half = v4_splat(0.5f), lo, k, top;
    Binner(const AABB& cb, int B) {
        float kk[3];
        for (int axis = 0; axis < 3; ++axis) {
            const float ext = cb.hi[axis] - cb.lo[axis];
            kk[axis] = ext > 0.0f ? B / ext : 0.0f;
        }
        lo = v4_set(cb.lo.x, cb.lo.y, cb.lo.z);
        k = v4_set(kk[0], kk[1], kk[2]);
        top = v4_splat(float(B - 1));
    }
    // the centroid (0.5 * (lo + hi), glm's order of operations) and its bins
    V4 bins(V4 rlo, V4 rhi, int out[4]) const {
        const V4 c = (rlo + rhi) * half;
        v4_bins((c - lo) * k, top, out);
        return c;
    }
};

// A node's references and a spare buffer of as many, into which an object split writes its children's (whose
// spare buffer is then the node's): each level reads and writes its references once, nothing allocated.
struct Span {
    Ref* refs = nullptr;
    Ref* spare = nullptr;
    size_t n = 0;
    AABB box, cb;  // the references' boxes' union and their centroids' bounds
};

struct SCtx {
    const std::vector<AABB>& boxes;
    const std::vector<std::array<vec3, 3>>* tris;
    BVHBuildOptions opt;
    float root_area = 0.0f;
    int threads = 1;
    size_t fork_min = 0;  // a sixteenth of the input's references
    size_t refs_total = 0, refs_cap = 0;
    BVHBuild out;
    // per-node bins, reused (allocating them per node and axis cost more than binning a small node)
    std::vector<Box4> bb, left4;
    std::vector<AABB> left, sbb;
    std::vector<uint32_t> cnt, cnt2, scnt;
    std::vector<float> left_cost, planes;
    std::vector<int> touched[3];
    std::vector<Ref> sl, sr;  // a spatial split's sides, before they are copied to the children's buffer
};

vec3 centroid(const AABB& b) { return 0.5f * (b.lo + b.hi); }

AABB meet(const AABB& a, const AABB& b) {
    AABB r;
    r.lo = glm::max(a.lo, b.lo);
    r.hi = glm::min(a.hi, b.hi);
    return r;
}

AABB join(AABB a, const AABB& b) {
    a.grow(b);
    return a;
}

// Boxes of the parts of reference r on either side of the plane x[axis] = pos (invalid: no part on that side).
// Triangles: the vertices on each side plus the edges' crossing points (each rounded outward by one ulp on the
// other axes, so that the box covers the exact crossing), intersected with r's box and the half-space.
void split_ref(const SCtx& c, const Ref& r, int axis, float pos, AABB& L, AABB& R) {
    const std::array<vec3, 3>* t = c.tris ? &(*c.tris)[r.prim] : nullptr;
    AABB bl = r.box, br = r.box;
    bl.hi[axis] = std::min(bl.hi[axis], pos);
    br.lo[axis] = std::max(br.lo[axis], pos);
    if (!t || std::isnan((*t)[0].x)) {
        L = bl;
        R = br;
        return;
    }
    L = AABB();
    R = AABB();
    const float inf = std::numeric_limits<float>::infinity();
    for (int i = 0; i < 3; ++i) {
        vec3 v0 = (*t)[i], v1 = (*t)[(i + 1) % 3];
        float a0 = v0[axis], a1 = v1[axis];
        if (a0 <= pos) L.grow(v0);
        if (a0 >= pos) R.grow(v0);
        if ((a0 < pos && a1 > pos) || (a0 > pos && a1 < pos)) {
            double s = (double(pos) - a0) / (double(a1) - double(a0));
            AABB p;
            for (int k = 0; k < 3; ++k) {
                float f = float(double(v0[k]) + s * (double(v1[k]) - double(v0[k])));
                p.lo[k] = std::nextafter(f, -inf);
                p.hi[k] = std::nextafter(f, inf);
            }
            p.lo[axis] = p.hi[axis] = pos;
            L.grow(p);
            R.grow(p);
        }
    }
    L = meet(L, bl);
    R = meet(R, br);
}

struct Split {
    float cost = kInf;
    int axis = -1;
    int bin = -1;      // object split: first bin of the right side
    float pos = 0.0f;  // spatial split: the plane
    AABB L, R;
    uint32_t nl = 0;        // object split: references on the left
    vec3 max_extent{0.0f};  // object split: the references' largest extent on each axis
};

// The object-split binning of the builder above, over references (their boxes' centroids).
Split object_split(SCtx& c, const Span& s) {
    Split best;
    const int B = c.opt.bins;
    const size_t n = s.n;
    const AABB& cb = s.cb;
    // One pass over the references bins all three axes. Only the bins a reference falls in are swept and then
    // emptied again (the touched lists): most nodes are small, and sweeping (and clearing) every one of 3 x 32
    // bins per node would be most of the build. The planes between two non-empty bins all cost the same; the one
    // next to the right bin is taken, as the full sweep from the right took it. Bins, sweep and boxes in 4-wide
    // registers (the same floats as AABB's), the touched bins as bit masks (no sort, no branch per reference).
    // docs/DECISIONS.md: split-binning.
    if (c.bb.size() < size_t(3 * B)) {
        c.bb.assign(3 * B, Box4());
        c.cnt.assign(3 * B, 0);
    }
    c.left4.resize(B);
    c.left_cost.resize(B);
    Box4 best_l, best_r;
    Box4* bb = c.bb.data();
    uint32_t* cnt = c.cnt.data();
    for (int axis = 0; axis < 3; ++axis) c.touched[axis].clear();
    const Binner bin(cb, B);
    V4 mx = v4_splat(0.0f);  // the largest extent (for BVHBuildOptions::split_gamma)
    // one pass over the references: each grows its bin's box on every axis; touch(axis, bin index, bin) counts it
    auto bin_refs = [&](auto&& touch) {
        for (size_t j = 0; j < n; ++j) {
            const V4 lo = ref_lo(s.refs[j]), hi = ref_hi(s.refs[j]);
            mx = v4_max(mx, hi - lo);
            int i[4];
            bin.bins(lo, hi, i);
            for (int axis = 0; axis < 3; ++axis) {
                const int bi = axis * B + i[axis];
                bb[bi].grow(lo, hi);
                touch(axis, bi, i[axis]);
            }
        }
    };
    if (B <= 64) {
        // the touched bins as bit masks (no branch per reference), listed in order after the pass (no sort)
        uint64_t mask[3] = {0, 0, 0};
        bin_refs([&](int axis, int bi, int k) {
            ++cnt[bi];
            mask[axis] |= uint64_t(1) << k;
        });
        for (int axis = 0; axis < 3; ++axis)
            for (uint64_t m = mask[axis]; m; m &= m - 1) c.touched[axis].push_back(__builtin_ctzll(m));
    } else {
        bin_refs([&](int axis, int bi, int k) {
            if (cnt[bi]++ == 0) c.touched[axis].push_back(k);
        });
        for (int axis = 0; axis < 3; ++axis) std::sort(c.touched[axis].begin(), c.touched[axis].end());
    }
    for (int axis = 0; axis < 3; ++axis) {
        std::vector<int>& t = c.touched[axis];
        Box4* ab = bb + axis * B;
        uint32_t* ac = cnt + axis * B;
        const int m = int(t.size());
        if (cb.hi[axis] - cb.lo[axis] > 0.0f && m > 1) {
            Box4 acc;
            uint32_t na = 0;
            for (int j = 0; j < m - 1; ++j) {
                acc.grow(ab[t[j]]);
                na += ac[t[j]];
                c.left4[j] = acc;
                c.left_cost[j] = acc.area() * na;
            }
            acc = Box4();
            na = 0;
            for (int j = m - 1; j > 0; --j) {
                acc.grow(ab[t[j]]);
                na += ac[t[j]];
                float cost = c.left_cost[j - 1] + acc.area() * na;
                if (cost < best.cost) {
                    best.cost = cost;
                    best.axis = axis;
                    best.bin = t[j];
                    best_l = c.left4[j - 1];
                    best_r = acc;
                    best.nl = uint32_t(n - na);
                }
            }
        }
        for (int i : t) {
            ab[i] = Box4();
            ac[i] = 0;
        }
    }
    if (best.axis >= 0) {
        best.L = best_l.aabb();
        best.R = best_r.aabb();
    }
    float e[4];
    v4_store(e, mx);
    best.max_extent = vec3(e[0], e[1], e[2]);
    return best;
}

// Binned spatial split over the node box: each reference is chopped into the bins it spans (enter and exit
// counts at its first and last non-empty part), then the planes between bins are swept.
Split spatial_split(SCtx& c, const Span& s) {
    const AABB& box = s.box;
    Split best;
    const int B = c.opt.split_bins > 0 ? c.opt.split_bins : c.opt.bins;
    for (int axis = 0; axis < 3; ++axis) {
        float lo = box.lo[axis], ext = box.hi[axis] - lo;
        if (!(ext > 0.0f)) continue;
        c.sbb.assign(B, AABB());
        c.scnt.assign(2 * B, 0);
        c.left.resize(B);
        c.cnt2.resize(B);
        AABB* bb = c.sbb.data();
        AABB* left = c.left.data();
        uint32_t *enter = c.scnt.data(), *exit = c.scnt.data() + B, *nleft = c.cnt2.data();
        float k = B / ext;
        auto bin_of = [&](float x) { return std::max(0, std::min(B - 1, int((x - lo) * k))); };
        // the planes between bins (plane[i] between bins i - 1 and i), computed once per axis, not per bin and
        // reference (docs/DECISIONS.md: split-binning)
        c.planes.resize(B + 1);
        float* plane = c.planes.data();
        for (int i = 0; i <= B; ++i) plane[i] = lo + ext * float(i) / float(B);
        for (size_t j = 0; j < s.n; ++j) {
            const Ref& r = s.refs[j];
            int f = bin_of(r.box.lo[axis]), l = std::max(f, bin_of(r.box.hi[axis]));
            if (f == l) {  // within one bin: no chopping
                bb[f].grow(r.box);
                ++enter[f];
                ++exit[f];
                continue;
            }
            const std::array<vec3, 3>* t = c.tris ? &(*c.tris)[r.prim] : nullptr;
            if (t && std::isnan((*t)[0].x)) t = nullptr;
            int first = -1, last = -1;
            // The part of the reference in bin i: its triangle's vertices in the bin and the edges' crossings of the
            // bin's two planes (each plane's crossings computed once, shared by the bins on its sides), within the
            // reference's box and the bin's slab. An estimate for choosing the plane (no outward rounding, unlike
            // split_ref, which makes the chosen split's boxes, and is far dearer: docs/DECISIONS.md: split-binning).
            vec3 v[3];
            float a[3];
            if (t)
                for (int q = 0; q < 3; ++q) {
                    v[q] = (*t)[q];
                    a[q] = v[q][axis];
                }
            AABB below;  // crossings of the bin's lower plane
            for (int i = f; i <= l; ++i) {
                AABB part = below, above;
                const float p0 = plane[i], p1 = plane[i + 1];
                if (t) {
                    for (int q = 0; q < 3; ++q) {
                        const int q1 = q == 2 ? 0 : q + 1;
                        const float a0 = a[q], a1 = a[q1];
                        if ((i == f || a0 >= p0) && (i == l || a0 <= p1)) part.grow(v[q]);
                        if (i < l && ((a0 < p1 && a1 > p1) || (a0 > p1 && a1 < p1))) {
                            const vec3 &v0 = v[q], &v1 = v[q1];
                            vec3 x = v0 + (v1 - v0) * ((p1 - a0) / (a1 - a0));
                            x[axis] = p1;
                            above.grow(x);
                        }
                    }
                    part.grow(above);
                } else {
                    part = r.box;
                }
                AABB slab = r.box;
                if (i > f) slab.lo[axis] = std::max(slab.lo[axis], p0);
                if (i < l) slab.hi[axis] = std::min(slab.hi[axis], p1);
                part = meet(part, slab);
                below = above;
                if (!part.valid()) continue;
                bb[i].grow(part);
                if (first < 0) first = i;
                last = i;
            }
            if (first < 0) {  // not expected: keep the whole box in its first bin
                bb[f].grow(r.box);
                first = last = f;
            }
            ++enter[first];
            ++exit[last];
        }
        AABB acc;
        uint32_t na = 0;
        for (int i = 0; i < B - 1; ++i) {
            acc.grow(bb[i]);
            na += enter[i];
            left[i] = acc;
            nleft[i] = na;
        }
        acc = AABB();
        na = 0;
        for (int i = B - 1; i > 0; --i) {
            acc.grow(bb[i]);
            na += exit[i];
            uint32_t nl = nleft[i - 1];
            if (na == 0 || nl == 0) continue;
            float cost = left[i - 1].area() * nl + acc.area() * na;
            if (cost < best.cost) {
                best.cost = cost;
                best.axis = axis;
                best.pos = plane[i];
                best.L = left[i - 1];
                best.R = acc;
            }
        }
    }
    return best;
}

// A node's two children: spans of the node's spare buffer (object splits), of its own (median splits), or of a
// buffer of their own (spatial splits, which may add references).
struct Children {
    Span side[2];
    std::vector<Ref> owned;  // a spatial split's children's references and their spare buffers
};

// s.box and s.cb from s's references
void measure(Span& s) {
    const V4 half = v4_splat(0.5f);
    Box4 b, cb;
    for (size_t j = 0; j < s.n; ++j) {
        const V4 lo = ref_lo(s.refs[j]), hi = ref_hi(s.refs[j]), cc = (lo + hi) * half;
        b.grow(lo, hi);
        cb.grow(cc, cc);
    }
    s.box = b.aabb();
    s.cb = cb.aabb();
}

// Performs spatial split sp with reference unsplitting into ch (a buffer of its own); false (nothing changed) when a
// side would be empty or the reference budget would be exceeded.
bool do_spatial(SCtx& c, const Span& s, const Split& sp, Children& ch) {
    struct Straddle {
        Ref r;
        AABB l, h;
    };
    const int a = sp.axis;
    std::vector<Ref>& L = c.sl;
    std::vector<Ref>& R = c.sr;
    L.clear();
    R.clear();
    std::vector<Straddle> st;
    AABB lb, rb;
    for (size_t j = 0; j < s.n; ++j) {
        const Ref& r = s.refs[j];
        if (r.box.hi[a] <= sp.pos) {
            L.push_back(r);
            lb.grow(r.box);
        } else if (r.box.lo[a] >= sp.pos) {
            R.push_back(r);
            rb.grow(r.box);
        } else {
            AABB pl, pr;
            split_ref(c, r, a, sp.pos, pl, pr);
            if (!pl.valid() && !pr.valid()) pl = r.box;  // not expected
            if (!pr.valid()) {
                L.push_back(Ref{pl, r.prim});
                lb.grow(pl);
            } else if (!pl.valid()) {
                R.push_back(Ref{pr, r.prim});
                rb.grow(pr);
            } else {
                st.push_back(Straddle{r, pl, pr});
            }
        }
    }
    for (const Straddle& x : st) {
        lb.grow(x.l);
        rb.grow(x.h);
    }
    size_t nl = L.size() + st.size(), nr = R.size() + st.size();
    for (const Straddle& x : st) {
        // The paper's unsplitting test: the split reference against all of it on one side.
        float c_split = lb.area() * float(nl) + rb.area() * float(nr);
        AABB lu = join(lb, x.r.box), ru = join(rb, x.r.box);
        float c_left = lu.area() * float(nl) + rb.area() * float(nr - 1);
        float c_right = lb.area() * float(nl - 1) + ru.area() * float(nr);
        if (c_left < c_split && c_left <= c_right && nr > 1) {
            L.push_back(x.r);
            lb = lu;
            --nr;
        } else if (c_right < c_split && nl > 1) {
            R.push_back(x.r);
            rb = ru;
            --nl;
        } else {
            L.push_back(Ref{x.l, x.r.prim});
            R.push_back(Ref{x.h, x.r.prim});
        }
    }
    const size_t n = s.n, extra = L.size() + R.size() - n;
    if (L.empty() || R.empty() || c.refs_total + extra > c.refs_cap) return false;
    c.refs_total += extra;
    const size_t m = L.size() + R.size();
    ch.owned.resize(2 * m);
    Ref* p = ch.owned.data();
    std::copy(L.begin(), L.end(), p);
    std::copy(R.begin(), R.end(), p + L.size());
    ch.side[0] = Span{p, p + m, L.size()};
    ch.side[1] = Span{p + L.size(), p + m + L.size(), R.size()};
    measure(ch.side[0]);
    measure(ch.side[1]);
    return true;
}

// Splits s into two non-empty children, with their boxes (the object split's bins give them, else measure).
void partition(SCtx& c, const Span& s, int depth, Children& ch) {
    const int B = c.opt.bins;
    if (depth < c.opt.max_depth) {
        Split os = object_split(c, s);
        // Spatial splits need not reduce the reference count, so they stop early enough to leave the object
        // splits below room to finish under max_depth: depth + 2 log2(n) < max_depth.
        bool try_spatial = c.refs_total < c.refs_cap && depth + 2 * std::ilogb(double(s.n)) + 2 < c.opt.max_depth;
        if (s.n < c.opt.split_min_refs) try_spatial = false;
        if (try_spatial && os.axis >= 0) {
            AABB ov = meet(os.L, os.R);
            try_spatial = ov.valid() && ov.area() > c.opt.split_alpha * c.root_area &&
                          ov.area() > c.opt.split_beta * s.box.area();
            if (try_spatial && c.opt.split_gamma > 0.0f) {
                bool large = false;
                for (int a = 0; a < 3; ++a) large |= os.max_extent[a] > c.opt.split_gamma * (s.box.hi[a] - s.box.lo[a]);
                try_spatial = large;
            }
        }
        if (try_spatial) {
            Split ss = spatial_split(c, s);
            if (ss.axis >= 0 && ss.cost < os.cost && do_spatial(c, s, ss, ch)) return;
        }
        if (os.axis >= 0 && os.nl > 0 && os.nl < s.n) {
            // Stable: each side keeps the node's order. The left side first, the right after os.nl references.
            const Binner bin(s.cb, B);
            Ref *L = s.spare, *R = s.spare + os.nl;
            const size_t nr_max = s.n - os.nl;
            size_t nl = 0, nr = 0;
            Box4 cl, cr;
            for (size_t j = 0; j < s.n; ++j) {
                const Ref& r = s.refs[j];
                const V4 lo = ref_lo(r), hi = ref_hi(r);
                int i[4];
                const V4 cc = bin.bins(lo, hi, i);
                if (i[os.axis] < os.bin) {
                    if (nl == os.nl) throw std::logic_error("build_bvh: the object split's counts disagree");
                    L[nl++] = r;
                    cl.grow(cc, cc);
                } else {
                    if (nr == nr_max) throw std::logic_error("build_bvh: the object split's counts disagree");
                    R[nr++] = r;
                    cr.grow(cc, cc);
                }
            }
            ch.side[0] = Span{L, s.refs, nl, os.L, cl.aabb()};
            ch.side[1] = Span{R, s.refs + nl, nr, os.R, cr.aabb()};
            return;
        }
    }
    // Median split on the largest centroid extent (degenerate centroids, or depth limit reached).
    vec3 ext = s.cb.hi - s.cb.lo;
    int axis = ext.y > ext.x ? 1 : 0;
    if (ext.z > ext[axis]) axis = 2;
    size_t m = s.n / 2;
    std::nth_element(s.refs, s.refs + m, s.refs + s.n,
                     [&](const Ref& x, const Ref& y) { return centroid(x.box)[axis] < centroid(y.box)[axis]; });
    ch.side[0] = Span{s.refs, s.spare, m};
    ch.side[1] = Span{s.refs + m, s.spare + m, s.n - m};
    measure(ch.side[0]);
    measure(ch.side[1]);
}

void emit_leaf(SCtx& c, BVHNode& node, int k, const Span& s) {
    set_child(node, k, s.box, uint32_t(c.out.order.size()), uint32_t(s.n));
    for (size_t j = 0; j < s.n; ++j) c.out.order.push_back(s.refs[j].prim);
    if (c.opt.ref_boxes)
        for (size_t j = 0; j < s.n; ++j) c.out.ref_boxes.push_back(s.refs[j].box);
}

void build_node(SCtx& c, uint32_t slot, const Span& s, int depth);

// Subtree `s` under node `slot` built apart (in its own context, on a thread of its own when there are several),
// then appended: its nodes after those made so far, its leaves after the leaves so far (the depth-first layout of
// a build in one piece, since the subtree is built last of the node's). It spends `budget` more references at most.
// Its references and spare buffer are its own part of the parent's.
struct Fork {
    SCtx c;
    uint32_t slot;
    Span s;
    int depth;
    std::thread t;
    Fork(const SCtx& parent, uint32_t slot, const Span& s, int depth, size_t budget)
        : c{parent.boxes, parent.tris, parent.opt}, slot(slot), s(s), depth(depth) {
        c.root_area = parent.root_area;
        c.threads = parent.threads;
        c.fork_min = parent.fork_min;
        c.refs_total = 0;
        c.refs_cap = budget;
        c.out.nodes.reserve(s.n);
        c.out.order.reserve(s.n);
        if (c.opt.ref_boxes) c.out.ref_boxes.reserve(s.n);
        c.out.nodes.push_back(BVHNode{});  // stands for `slot`
    }
    std::exception_ptr error;
    void run() {
        try {
            build_node(c, 0, s, depth);
        } catch (...) { error = std::current_exception(); }
    }
    void append_to(SCtx& p) {
        const uint32_t base = uint32_t(p.out.nodes.size()) - 1, leaf0 = uint32_t(p.out.order.size());
        auto map = [&](BVHNode& n) {
            uint32_t* ref[2] = {&n.d.x, &n.d.y};
            const uint32_t cnt[2] = {n.d.z, n.d.w};
            for (int k = 0; k < 2; ++k) *ref[k] += cnt[k] > 0 ? leaf0 : base;
        };
        BVHNode root = c.out.nodes[0];
        map(root);
        p.out.nodes[slot] = root;  // its children's boxes and indices
        for (size_t i = 1; i < c.out.nodes.size(); ++i) {
            map(c.out.nodes[i]);
            p.out.nodes.push_back(c.out.nodes[i]);
        }
        p.out.order.insert(p.out.order.end(), c.out.order.begin(), c.out.order.end());
        p.out.ref_boxes.insert(p.out.ref_boxes.end(), c.out.ref_boxes.begin(), c.out.ref_boxes.end());
        p.out.depth = std::max(p.out.depth, c.out.depth);
        p.refs_total += c.refs_total;
    }
};

void build_node(SCtx& c, uint32_t slot, const Span& s, int depth) {
    c.out.depth = std::max(c.out.depth, depth + 1);
    Children ch;
    partition(c, s, depth, ch);
    const Span* side = ch.side;
    uint32_t inner[2] = {kInvalid, kInvalid};
    for (int k = 0; k < 2; ++k) {
        if (side[k].n <= c.opt.max_leaf) {
            emit_leaf(c, c.out.nodes[slot], k, side[k]);
        } else {
            inner[k] = uint32_t(c.out.nodes.size());
            c.out.nodes.push_back(BVHNode{});
            set_child(c.out.nodes[slot], k, side[k].box, inner[k], 0);
        }
    }
    // Where both sides hold a sixteenth of the input or more (and 4096 references), the second side is built apart,
    // on a thread of its own when there are several (a few dozen subtrees at most, so that the cores stay busy when
    // the sides differ in work). The same subtrees are built apart with one thread, so the tree does not depend on
    // the thread count: the reference budget left is shared between the two sides in proportion to their
    // references (docs/DECISIONS.md: build-threads).
    constexpr size_t kForkMin = 4096;
    if (inner[0] != kInvalid && inner[1] != kInvalid &&
        std::min(side[0].n, side[1].n) >= std::max(kForkMin, c.fork_min)) {
        const size_t left = c.refs_cap > c.refs_total ? c.refs_cap - c.refs_total : 0;
        const size_t n0 = side[0].n, n1 = side[1].n;
        const size_t b1 = size_t(double(left) * double(n1) / double(n0 + n1));
        Fork f(c, inner[1], side[1], depth + 1, b1);
        const size_t cap = c.refs_cap;
        c.refs_cap = c.refs_total + (left - b1);
        if (c.threads > 1) f.t = std::thread([&f] { f.run(); });
        try {
            build_node(c, inner[0], side[0], depth + 1);
        } catch (...) {
            if (f.t.joinable()) f.t.join();
            throw;
        }
        if (c.threads <= 1) f.run();
        if (f.t.joinable()) f.t.join();
        if (f.error) std::rethrow_exception(f.error);
        c.refs_cap = cap;
        f.append_to(c);
        return;
    }
    for (int k = 0; k < 2; ++k)
        if (inner[k] != kInvalid) build_node(c, inner[k], side[k], depth + 1);
}

BVHBuild build(const std::vector<AABB>& boxes, const BVHBuildOptions& opt,
               const std::vector<std::array<vec3, 3>>* tris) {
    if (tris && tris->size() != boxes.size())
        throw std::invalid_argument("build_bvh: triangles and boxes differ in count");
    SCtx c{boxes, tris, opt};
    size_t n = boxes.size();
    if (n == 0) return c.out;
    std::vector<Ref> buf(2 * n);  // the references and their spare buffer (Span)
    Span root{buf.data(), buf.data() + n, n};
    for (size_t i = 0; i < n; ++i) buf[i] = Ref{boxes[i], uint32_t(i)};
    measure(root);
    c.root_area = root.box.area();
    c.threads = opt.threads > 0 ? opt.threads : int(std::max(1u, std::thread::hardware_concurrency()));
    c.refs_total = n;
    c.fork_min = n / 16;
    c.refs_cap = size_t(std::max(1.0, double(opt.split_max_growth)) * double(n));
    c.out.order.reserve(n);
    if (opt.ref_boxes) c.out.ref_boxes.reserve(n);
    c.out.nodes.reserve(n);  // fewer inner nodes than references (more only where spatial splits add references)
    c.out.nodes.push_back(BVHNode{});
    if (n <= opt.max_leaf) {  // as the object-split builder: both child slots name the one leaf
        c.out.depth = 1;
        emit_leaf(c, c.out.nodes[0], 0, root);
        set_child(c.out.nodes[0], 1, root.box, 0, uint32_t(n));
        return c.out;
    }
    build_node(c, 0, root, 0);
    return c.out;
}

}  // namespace sbvh

}  // namespace

std::array<vec3, 3> kNotATriangle() {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    return {vec3(nan), vec3(nan), vec3(nan)};
}

double bvh_sah_cost(const std::vector<BVHNode>& nodes, float traversal_cost) {
    if (nodes.empty()) return 0.0;
    AABB root = child_box(nodes[0], 0);
    root.grow(child_box(nodes[0], 1));
    double c = double(traversal_cost) * root.area();
    const bool one_leaf = nodes.size() == 1 && nodes[0].d.z > 0 && nodes[0].d.x == nodes[0].d.y;  // both slots name it
    for (const BVHNode& n : nodes) {
        const uint32_t cnt[2] = {n.d.z, n.d.w};
        for (int k = 0; k < (one_leaf ? 1 : 2); ++k)
            c += double(child_box(n, k).area()) * (cnt[k] > 0 ? double(cnt[k]) : double(traversal_cost));
    }
    return c / std::max(1e-30, double(root.area()));
}

namespace {
// The binned SAH object-split builder, exact boxes (build_bvh pads them).
BVHBuild build_exact(const std::vector<AABB>& boxes, const BVHBuildOptions& opt) {
    Ctx c{boxes, {}, opt, {}};
    uint32_t n = uint32_t(boxes.size());
    c.out.order.resize(n);
    std::iota(c.out.order.begin(), c.out.order.end(), 0u);
    c.cent.resize(n);
    for (uint32_t i = 0; i < n; ++i) c.cent[i] = 0.5f * (boxes[i].lo + boxes[i].hi);
    if (n == 0) return c.out;
    c.out.nodes.push_back(BVHNode{});
    if (n <= opt.max_leaf) {
        // A root that is one leaf: both child slots name it (a second test of the same few primitives is harmless).
        c.out.depth = 1;
        AABB bx = bounds_of(c, 0, n);
        set_child(c.out.nodes[0], 0, bx, 0, n);
        set_child(c.out.nodes[0], 1, bx, 0, n);
        return c.out;
    }
    build_node(c, 0, 0, n, 0);
    return c.out;
}

// ---- Optimisation by reinsertion (Bittner, Hapala, Havran 2013) ----
namespace opt2 {

struct TNode {
    AABB box;
    int parent = -1;
    int child[2] = {-1, -1};
    uint32_t idx = 0, count = 0;  // count > 0: a leaf, primitives [idx, idx + count) of the build's order
    int height = 0;               // 0 for a leaf
    bool leaf() const { return count > 0; }
};

struct Tree {
    std::vector<TNode> n;
    int root = 0;

    explicit Tree(const BVHBuild& b) {
        n.resize(b.nodes.size());
        for (size_t i = 0; i < b.nodes.size(); ++i) {
            const BVHNode& bn = b.nodes[i];
            const uint32_t ref[2] = {bn.d.x, bn.d.y}, cnt[2] = {bn.d.z, bn.d.w};
            for (int k = 0; k < 2; ++k) {
                int c;
                if (cnt[k] > 0) {
                    c = int(n.size());
                    n.emplace_back();
                    n[c].idx = ref[k];
                    n[c].count = cnt[k];
                    n[c].box = child_box(bn, k);
                } else {
                    c = int(ref[k]);
                }
                n[i].child[k] = c;
                n[c].parent = int(i);
            }
        }
        // boxes and heights of the inner nodes, bottom-up: a pre-order walk, refitted in reverse
        std::vector<int> order;
        std::vector<int> st{root};
        while (!st.empty()) {
            int t = st.back();
            st.pop_back();
            order.push_back(t);
            if (!n[t].leaf()) st.insert(st.end(), {n[t].child[0], n[t].child[1]});
        }
        for (auto it = order.rbegin(); it != order.rend(); ++it) refit_one(*it);
    }
    void refit_one(int t) {
        if (n[t].leaf()) return;
        const TNode &a = n[n[t].child[0]], &b = n[n[t].child[1]];
        n[t].box = a.box;
        n[t].box.grow(b.box);
        n[t].height = 1 + std::max(a.height, b.height);
    }
    void refit_up(int t) {
        for (; t != -1; t = n[t].parent) refit_one(t);
    }
    int depth(int t) const {
        int d = 0;
        for (; n[t].parent != -1; t = n[t].parent) ++d;
        return d;
    }
    void replace_child(int parent, int old_c, int new_c) {
        if (parent == -1) {
            root = new_c;
        } else {
            TNode& p = n[parent];
            p.child[p.child[0] == old_c ? 0 : 1] = new_c;
        }
        n[new_c].parent = parent;
    }
    // SAH cost relative to the root's area: inner nodes cost their area, leaves their area times their primitives.
    // (Every node is in the tree: a reinsertion reuses the two nodes it removes.)
    double cost() const {
        double c = 0;
        for (const TNode& t : n) c += double(t.box.area()) * (t.leaf() ? double(t.count) : 1.0);
        return c / std::max(1e-30, double(n[root].box.area()));
    }

    // Where subtree l adds the least area: branch and bound over the tree, the induced cost of a node being the
    // area its ancestors grow by (Bittner et al. 2013, section 4.2). The new inner node may not push any leaf below
    // max_depth.
    int best_sibling(int l, int max_depth) const {
        const AABB& lb = n[l].box;
        const float al = lb.area();
        using Item = std::pair<float, int>;
        std::priority_queue<Item, std::vector<Item>, std::greater<Item>> pq;
        pq.push({0.0f, root});
        float best_cost = std::numeric_limits<float>::infinity();
        int best = -1;
        while (!pq.empty()) {
            auto [ci, x] = pq.top();
            pq.pop();
            if (ci + al >= best_cost) break;
            AABB u = n[x].box;
            u.grow(lb);
            const float direct = u.area();
            if (ci + direct < best_cost && depth(x) + 1 + std::max(n[l].height, n[x].height) <= max_depth) {
                best_cost = ci + direct;
                best = x;
            }
            if (!n[x].leaf()) {
                const float cc = ci + direct - n[x].box.area();
                if (cc + al < best_cost) {
                    pq.push({cc, n[x].child[0]});
                    pq.push({cc, n[x].child[1]});
                }
            }
        }
        return best;
    }

    // Removes inner node t (with a parent and a grandparent) and its parent, and reinserts t's two subtrees.
    void reinsert(int t, int max_depth) {
        const int p = n[t].parent, g = n[p].parent;
        const int s = n[p].child[n[p].child[0] == t ? 1 : 0];
        replace_child(g, p, s);
        refit_up(g);
        int sub[2] = {n[t].child[0], n[t].child[1]};
        if (n[sub[0]].box.area() < n[sub[1]].box.area()) std::swap(sub[0], sub[1]);
        int freed[2] = {t, p};
        for (int k = 0; k < 2; ++k) {
            const int l = sub[k], q = freed[k];
            int x = best_sibling(l, max_depth);
            if (x < 0) x = s;  // cannot happen (s's old place is always within the depth), but be safe
            const int xp = n[x].parent;
            n[q] = TNode{};
            n[q].child[0] = x;
            n[q].child[1] = l;
            replace_child(xp, x, q);
            n[x].parent = q;
            n[l].parent = q;
            refit_up(q);
        }
    }

    BVHBuild emit(const BVHBuild& in) const {
        BVHBuild out;
        out.order = in.order;
        out.ref_boxes = in.ref_boxes;
        std::vector<int> index(n.size(), -1);
        index[root] = 0;
        out.nodes.push_back(BVHNode{});
        std::vector<std::pair<int, int>> st{{root, 1}};  // node, its depth in node levels
        while (!st.empty()) {
            auto [t, d] = st.back();
            st.pop_back();
            int inner_children[2] = {-1, -1};
            for (int k = 0; k < 2; ++k) {
                const TNode& c = n[n[t].child[k]];
                if (c.leaf()) {
                    set_child(out.nodes[index[t]], k, c.box, c.idx, c.count);
                    out.depth = std::max(out.depth, d);
                } else {
                    const int ci = n[t].child[k];
                    index[ci] = int(out.nodes.size());
                    out.nodes.push_back(BVHNode{});
                    set_child(out.nodes[index[t]], k, c.box, uint32_t(index[ci]), 0);
                    inner_children[k] = ci;
                }
            }
            for (int k = 1; k >= 0; --k)
                if (inner_children[k] >= 0) st.push_back({inner_children[k], d + 1});
        }
        return out;
    }
};

}  // namespace opt2

BVHBuild optimized(BVHBuild b, const BVHBuildOptions& opt) {
    if (opt.optimize_batches <= 0 || b.nodes.size() < 16) return b;
    opt2::Tree t(b);
    opt2::Tree best = t;
    double best_cost = t.cost();
    int stale = 0;
    for (int batch = 0; batch < opt.optimize_batches && stale < 3; ++batch) {
        // the inner nodes with the largest boxes for their children's (M_sum * M_min * M_area of the paper)
        std::vector<std::pair<float, int>> cand;
        for (int i = 0; i < int(t.n.size()); ++i) {
            const opt2::TNode& x = t.n[i];
            if (x.leaf() || x.parent == -1 || t.n[x.parent].parent == -1) continue;
            const float a = x.box.area(), a0 = t.n[x.child[0]].box.area(), a1 = t.n[x.child[1]].box.area();
            const float m_sum = a / std::max(1e-30f, 0.5f * (a0 + a1)), m_min = a / std::max(1e-30f, std::min(a0, a1));
            cand.push_back({m_sum * m_min * a, i});
        }
        const size_t k = std::max<size_t>(1, cand.size() / 100);
        if (cand.empty()) break;
        std::partial_sort(cand.begin(), cand.begin() + std::min(k, cand.size()), cand.end(), std::greater<>());
        for (size_t i = 0; i < std::min(k, cand.size()); ++i) {
            const int x = cand[i].second;
            // a node met earlier in the batch may have been reused elsewhere: it must still be inner with a grandparent
            if (t.n[x].leaf() || t.n[x].parent == -1 || t.n[t.n[x].parent].parent == -1) continue;
            t.reinsert(x, opt.max_depth + 1);  // the builders stop splitting below max_depth: leaves at max_depth + 1
        }
        const double c = t.cost();
        if (c < best_cost * (1.0 - 1e-4)) {
            best_cost = c;
            best = t;
            stale = 0;
        } else {
            ++stale;
        }
    }
    return best.emit(b);
}

// Widens every child box of the tree by opt.pad_ulps ulps of the scene's magnitude (BVHBuildOptions::pad_ulps).
BVHBuild padded(BVHBuild b, const std::vector<AABB>& boxes, const BVHBuildOptions& opt) {
    if (opt.pad_ulps <= 0.0f || b.nodes.empty()) return b;
    float m = opt.pad_magnitude;
    for (const AABB& bx : boxes)
        for (int k = 0; k < 3; ++k) m = std::max(m, std::max(std::fabs(bx.lo[k]), std::fabs(bx.hi[k])));
    if (!std::isfinite(m) || m <= 0.0f) return b;
    const float pad = opt.pad_ulps * m * std::ldexp(1.0f, -23);  // ulp(m) is at most m * 2^-23
    for (BVHNode& n : b.nodes) {
        n.a.x -= pad, n.a.y += pad, n.a.z -= pad, n.a.w += pad;
        n.b.x -= pad, n.b.y += pad, n.b.z -= pad, n.b.w += pad;
        n.c.x -= pad, n.c.y += pad, n.c.z -= pad, n.c.w += pad;
    }
    return b;
}
}  // namespace

BVHBuild build_bvh(const std::vector<AABB>& boxes, const BVHBuildOptions& opt,
                   const std::vector<std::array<vec3, 3>>* triangles) {
    if (opt.spatial_splits) return padded(optimized(sbvh::build(boxes, opt, triangles), opt), boxes, opt);
    return build_bvh(boxes, opt);
}

BVHBuild build_bvh(const std::vector<AABB>& boxes, const BVHBuildOptions& opt) {
    if (opt.spatial_splits) return padded(optimized(sbvh::build(boxes, opt, nullptr), opt), boxes, opt);
    return padded(optimized(build_exact(boxes, opt), opt), boxes, opt);
}

}  // namespace wp
