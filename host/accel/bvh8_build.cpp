#include "host/accel/bvh8_build.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace wp {
namespace {

constexpr uint32_t kMaxLeafPrims = 3;  // a leaf child's primitive mask is 3 bits of its meta byte

// The binary tree made explicit, with binary leaves of more than 3 primitives cut into a subtree of ranges
// (halves of whole 3-primitive leaves). Parents come before their children.
struct VNode {
    AABB box;
    int32_t child[2] = {-1, -1};    // none: a range of at most 3 primitives
    uint32_t begin = 0, count = 0;  // the subtree's primitives in binary leaf order (when contiguous)
    bool contiguous = true;         // [begin, begin + count) holds exactly the subtree's primitives
    bool has_children() const { return child[0] >= 0; }
};

struct Ctx {
    const std::vector<BVHNode>& nodes;
    const std::vector<AABB>& prim_boxes;
    const BVH8BuildOptions& opt;
    std::vector<VNode> v;
    // SAH collapse: cost[8 * n + i - 1] = C(n, i), the cost of subtree n as at most i roots, and how it was
    // reached: split[8 * n + i - 1] = k > 0: k roots from the left child, i - k from the right; 0: from C(n, i - 1)
    // (i > 1) or, for i = 1, a wide node (leaf[n] false) or a leaf (leaf[n] true).
    // split8[n]: the k of distribute(n, 8), where a wide node for n takes its children from.
    std::vector<float> cost;
    std::vector<uint8_t> split, leaf, split8;
    BVH8Build out;
};

// Builds the explicit tree (iteratively: the binary tree may be deep), then the subtree ranges bottom-up.
void build_vtree(Ctx& c) {
    // Work item: VNode slot to fill, from a binary inner node (bnode >= 0) or a primitive range.
    struct Work {
        uint32_t slot;
        int32_t bnode;
        uint32_t begin, count;
    };
    std::vector<Work> work;
    const BVHNode& r = c.nodes[0];
    c.v.push_back(VNode{});
    if (r.d.z > 0 && r.d.z == r.d.w && r.d.x == r.d.y) {
        // build_bvh's root that is one leaf names it in both slots; the wide tree keeps one copy
        c.v[0].box = child_box(r, 0);
        work.push_back({0, -1, r.d.x, r.d.z});
    } else {
        c.v[0].box = child_box(r, 0);
        c.v[0].box.grow(child_box(r, 1));
        work.push_back({0, 0, 0, 0});
    }
    while (!work.empty()) {
        Work w = work.back();
        work.pop_back();
        if (w.bnode >= 0) {
            const BVHNode& n = c.nodes[uint32_t(w.bnode)];
            uint32_t child[2] = {n.d.x, n.d.y}, cnt[2] = {n.d.z, n.d.w};
            for (int k = 0; k < 2; ++k) {
                uint32_t slot = uint32_t(c.v.size());
                c.v.push_back(VNode{});
                c.v[slot].box = child_box(n, k);
                c.v[w.slot].child[k] = int32_t(slot);
                work.push_back(cnt[k] ? Work{slot, -1, child[k], cnt[k]} : Work{slot, int32_t(child[k]), 0, 0});
            }
        } else if (w.count <= kMaxLeafPrims) {
            c.v[w.slot].begin = w.begin;
            c.v[w.slot].count = w.count;
        } else {
            uint32_t chunks = (w.count + kMaxLeafPrims - 1) / kMaxLeafPrims;
            uint32_t left = kMaxLeafPrims * ((chunks + 1) / 2);
            uint32_t b[2] = {w.begin, w.begin + left}, n[2] = {left, w.count - left};
            for (int k = 0; k < 2; ++k) {
                uint32_t slot = uint32_t(c.v.size());
                c.v.push_back(VNode{});
                AABB box;
                if (c.prim_boxes.empty()) {
                    box = c.v[w.slot].box;  // no primitive boxes: the binary leaf's box
                } else {
                    for (uint32_t i = b[k]; i < b[k] + n[k]; ++i) box.grow(c.prim_boxes[i]);
                }
                c.v[slot].box = box;
                c.v[w.slot].child[k] = int32_t(slot);
                work.push_back({slot, -1, b[k], n[k]});
            }
        }
    }
    for (size_t i = c.v.size(); i-- > 0;) {
        VNode& n = c.v[i];
        if (!n.has_children()) continue;
        const VNode &l = c.v[size_t(n.child[0])], &r2 = c.v[size_t(n.child[1])];
        uint32_t lo = std::min(l.begin, r2.begin), hi = std::max(l.begin + l.count, r2.begin + r2.count);
        n.begin = lo;
        n.count = l.count + r2.count;
        // subtrees of a tree from build_bvh always are; anything else is never merged into one leaf
        n.contiguous = l.contiguous && r2.contiguous && hi - lo == n.count;
    }
}

// Surface area of box b once quantised to 8 bits per axis in the frame of box f (steps of the power of two that
// spans f in 255), as a wide node rooted at f would store it.
float quantised_area(const AABB& b, const AABB& f) {
    AABB q;
    for (int a = 0; a < 3; ++a) {
        float ext = f.hi[a] - f.lo[a];
        float step = ext > 0.0f ? std::ldexp(1.0f, int(std::ceil(std::log2(ext / 255.0f)))) : 0.0f;
        q.lo[a] = step > 0.0f ? f.lo[a] + std::floor((b.lo[a] - f.lo[a]) / step) * step : b.lo[a];
        q.hi[a] = step > 0.0f ? f.lo[a] + std::ceil((b.hi[a] - f.lo[a]) / step) * step : b.hi[a];
    }
    return q.area();
}

// Inner nodes that must stay one child of the wide node above them, never opened into their descendants: those
// whose box, quantised in their parent's frame, is more than twice its area. Opening them would quantise their
// descendants, smaller still, in that coarse frame (the RTIOW root: a ground sphere of radius 1000 beside a field
// of spheres 0.4 high gives steps of 8 units, and every ray entered all seven loose boxes of the field). Kept
// closed, such a node is a wide node of its own whose frame fits its children.
std::vector<uint8_t> closed_nodes(const Ctx& c) {
    std::vector<uint8_t> closed(c.v.size(), 0);
    for (const VNode& v : c.v) {
        if (!v.has_children()) continue;
        for (int k = 0; k < 2; ++k) {
            const VNode& ch = c.v[size_t(v.child[k])];
            if (ch.has_children() && quantised_area(ch.box, v.box) > 2.0f * ch.box.area())
                closed[size_t(v.child[k])] = 1;
        }
    }
    return closed;
}

// The paper's dynamic program, bottom-up (children have larger indices than their parents).
void sah_costs(Ctx& c) {
    size_t n = c.v.size();
    const std::vector<uint8_t> closed = closed_nodes(c);
    c.cost.assign(8 * n, 0.0f);
    c.split.assign(8 * n, 0);
    c.leaf.assign(n, 0);
    c.split8.assign(n, 1);
    auto C = [&](int32_t m, int i) { return c.cost[8 * size_t(m) + size_t(i - 1)]; };
    for (size_t idx = n; idx-- > 0;) {
        const VNode& v = c.v[idx];
        float area = v.box.area();
        float leaf_cost = v.contiguous && v.count <= kMaxLeafPrims ? area * c.opt.prim_cost * float(v.count) : kInf;
        float* cost = &c.cost[8 * idx];
        uint8_t* split = &c.split[8 * idx];
        if (!v.has_children()) {
            for (int i = 0; i < 8; ++i) cost[i] = leaf_cost;
            c.leaf[idx] = 1;
            continue;
        }
        // distribute(j): the best j roots taken from the two children
        float dist[9];
        uint8_t dist_k[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
        for (int j = 2; j <= 8; ++j) {
            dist[j] = kInf;
            for (int k = 1; k < j; ++k) {
                float x = C(v.child[0], k) + C(v.child[1], j - k);
                if (x < dist[j]) {
                    dist[j] = x;
                    dist_k[j] = uint8_t(k);
                }
            }
        }
        c.split8[idx] = dist_k[8];
        float internal = area * c.opt.node_cost + dist[8];
        c.leaf[idx] = leaf_cost <= internal;
        cost[0] = std::min(leaf_cost, internal);
        for (int i = 2; i <= 8; ++i) {
            if (dist[i] < cost[i - 2] && !closed[idx]) {
                cost[i - 1] = dist[i];
                split[i - 1] = dist_k[i];
            } else {
                cost[i - 1] = cost[i - 2];  // (split stays 0: C(n, i - 1)'s roots)
            }
        }
    }
}

// Whether VNode m becomes a leaf child (else a wide node of its own).
bool is_leaf(const Ctx& c, uint32_t m) {
    const VNode& v = c.v[m];
    if (!v.has_children()) return true;
    if (c.opt.sah_collapse) return c.leaf[m] != 0;
    return v.contiguous && v.count <= kMaxLeafPrims;  // greedy: a subtree of at most 3 primitives is one leaf
}

// The up-to-i roots the DP chose for subtree m.
void gather(const Ctx& c, uint32_t m, int i, std::vector<uint32_t>& list) {
    while (true) {
        const VNode& v = c.v[m];
        if (i == 1 || !v.has_children()) {
            list.push_back(m);
            return;
        }
        int k = c.split[8 * size_t(m) + size_t(i - 1)];
        if (k == 0) {
            --i;
            continue;
        }
        gather(c, uint32_t(v.child[0]), k, list);
        m = uint32_t(v.child[1]);
        i -= k;
    }
}

// The children of the wide node for VNode n (one that is not a leaf, or the root).
std::vector<uint32_t> collapse(const Ctx& c, uint32_t n) {
    std::vector<uint32_t> list;
    if (is_leaf(c, n)) {  // only for a root of at most 3 primitives: one leaf child
        list.push_back(n);
        return list;
    }
    if (c.opt.sah_collapse) {
        // from distribute(n, 8) itself, not C(n, 8): with zero areas the costs tie and C(n, 8) may be n alone
        int k = c.split8[n];
        gather(c, uint32_t(c.v[n].child[0]), k, list);
        gather(c, uint32_t(c.v[n].child[1]), 8 - k, list);
        return list;
    }
    // Greedy (tinybvh): open n, then keep opening the inner child of largest surface area while there is room.
    list = {uint32_t(c.v[n].child[0]), uint32_t(c.v[n].child[1])};
    while (list.size() < 8) {
        int best = -1;
        float best_area = -1.0f;
        for (size_t i = 0; i < list.size(); ++i)
            if (!is_leaf(c, list[i]) && c.v[list[i]].box.area() > best_area) {
                best_area = c.v[list[i]].box.area();
                best = int(i);
            }
        if (best < 0) break;
        uint32_t o = list[size_t(best)];
        list.erase(list.begin() + best);
        list.push_back(uint32_t(c.v[o].child[0]));
        list.push_back(uint32_t(c.v[o].child[1]));
    }
    return list;
}

// Greedy assignment of children to slots (the paper's section 3.2): slot s is visited first by rays of octant s
// (direction negative in x, y, z for bits 4, 2, 1), so it should hold the child whose centre lies furthest
// against that direction from the node centre. Cost of child i in slot s: dot(centre_i - centre, dir_s).
std::array<int, 8> assign_slots(const Ctx& c, const std::vector<uint32_t>& list, const AABB& box) {
    vec3 pc = 0.5f * (box.lo + box.hi);
    struct Cand {
        float cost;
        int i, s;
    };
    std::vector<Cand> cand;
    for (int i = 0; i < int(list.size()); ++i) {
        const AABB& b = c.v[list[size_t(i)]].box;
        vec3 d = 0.5f * (b.lo + b.hi) - pc;
        for (int s = 0; s < 8; ++s) {
            vec3 dir((s & 4) ? -1.0f : 1.0f, (s & 2) ? -1.0f : 1.0f, (s & 1) ? -1.0f : 1.0f);
            cand.push_back({glm::dot(d, dir), i, s});
        }
    }
    std::stable_sort(cand.begin(), cand.end(), [](const Cand& a, const Cand& b) { return a.cost < b.cost; });
    std::array<int, 8> child_at;
    child_at.fill(-1);
    std::vector<bool> placed(list.size(), false);
    for (const Cand& k : cand)
        if (!placed[size_t(k.i)] && child_at[size_t(k.s)] < 0) {
            placed[size_t(k.i)] = true;
            child_at[size_t(k.s)] = k.i;
        }
    return child_at;
}

// Per-axis grid of 255 steps of a power of two from lo that reaches hi; returns the biased exponent.
uint32_t grid_exponent(float lo, float hi) {
    int e = -126;
    float ext = hi - lo;
    if (ext > 0.0f) e = std::max(-126, int(std::ceil(std::log2(ext / 255.0f))));
    // log2 may round down; the float sum lo + 255 * step must reach hi as the decoder computes it
    while (e < 127 && lo + 255.0f * std::ldexp(1.0f, e) < hi) ++e;
    return uint32_t(e + 127);
}

// Quantised [lo, hi] of one child on one axis: the largest q_lo and smallest q_hi whose decoded planes
// (p + q * step, in float) still contain it.
void quantise(float p, float step, float lo, float hi, uint8_t& qlo, uint8_t& qhi) {
    float a = std::floor((lo - p) / step), b = std::ceil((hi - p) / step);
    int ql = int(std::clamp(a, 0.0f, 255.0f)), qh = int(std::clamp(b, 0.0f, 255.0f));
    while (ql > 0 && p + float(ql) * step > lo) --ql;
    while (ql < 255 && p + float(ql + 1) * step <= lo) ++ql;
    while (qh < 255 && p + float(qh) * step < hi) ++qh;
    while (qh > 0 && p + float(qh - 1) * step >= hi) --qh;
    qlo = uint8_t(ql);
    qhi = uint8_t(qh);
}

uint32_t pack4(const uint8_t* b) {
    return uint32_t(b[0]) | uint32_t(b[1]) << 8 | uint32_t(b[2]) << 16 | uint32_t(b[3]) << 24;
}

}  // namespace

BVH8Build build_bvh8(const std::vector<BVHNode>& nodes, const std::vector<AABB>& prim_boxes,
                     const BVH8BuildOptions& opt) {
    Ctx c{nodes, prim_boxes, opt, {}, {}, {}, {}, {}, {}};
    if (nodes.empty()) return c.out;
    build_vtree(c);
    if (opt.sah_collapse) sah_costs(c);

    // Breadth first: a node's inner children get consecutive indices, its leaves consecutive primitives.
    struct Task {
        uint32_t vnode;
        uint32_t node;
        int depth;
    };
    std::vector<Task> tasks{{0u, 0u, 1}};
    c.out.nodes.push_back(BVH8Node{});
    for (size_t head = 0; head < tasks.size(); ++head) {
        const Task t = tasks[head];
        c.out.depth = std::max(c.out.depth, t.depth);
        std::vector<uint32_t> list = collapse(c, t.vnode);
        AABB box;
        for (uint32_t m : list) box.grow(c.v[m].box);
        std::array<int, 8> child_at = assign_slots(c, list, box);

        uint32_t ebits[3];
        float step[3];
        for (int a = 0; a < 3; ++a) {
            ebits[a] = grid_exponent(box.lo[a], box.hi[a]);
            step[a] = std::ldexp(1.0f, int(ebits[a]) - 127);
        }
        uint8_t meta[8] = {}, qlo[3][8], qhi[3][8];
        uint32_t imask = 0;
        const uint32_t child_base = uint32_t(c.out.nodes.size()), prim_base = uint32_t(c.out.order.size());
        for (int s = 0; s < 8; ++s) {
            int i = child_at[size_t(s)];
            if (i < 0) {
                for (int a = 0; a < 3; ++a) {  // empty: an inverted box, missed by every ray
                    qlo[a][s] = 255;
                    qhi[a][s] = 0;
                }
                continue;
            }
            const uint32_t m = list[size_t(i)];
            const VNode& it = c.v[m];
            for (int a = 0; a < 3; ++a) quantise(box.lo[a], step[a], it.box.lo[a], it.box.hi[a], qlo[a][s], qhi[a][s]);
            if (!is_leaf(c, m)) {
                meta[s] = uint8_t(1u << 5 | (24u + uint32_t(s)));
                imask |= 1u << s;
                tasks.push_back({m, uint32_t(c.out.nodes.size()), t.depth + 1});
                c.out.nodes.push_back(BVH8Node{});
            } else {
                uint32_t offset = uint32_t(c.out.order.size()) - prim_base;  // <= 21: 8 leaves of <= 3
                for (uint32_t k = 0; k < it.count; ++k) c.out.order.push_back(it.begin + k);
                meta[s] = uint8_t(((1u << it.count) - 1u) << 5 | offset);
                ++c.out.leaves;
            }
        }
        BVH8Node& n = c.out.nodes[t.node];
        n.n0 = F4{box.lo.x, box.lo.y, box.lo.z, bits_float(ebits[0] | ebits[1] << 8 | ebits[2] << 16 | imask << 24)};
        n.n1 = U4{child_base, prim_base, pack4(meta), pack4(meta + 4)};
        n.n2 = U4{pack4(qlo[0]), pack4(qlo[0] + 4), pack4(qlo[1]), pack4(qlo[1] + 4)};
        n.n3 = U4{pack4(qlo[2]), pack4(qlo[2] + 4), pack4(qhi[0]), pack4(qhi[0] + 4)};
        n.n4 = U4{pack4(qhi[1]), pack4(qhi[1] + 4), pack4(qhi[2]), pack4(qhi[2] + 4)};
    }
    if (c.out.depth > kBVH8StackSize)
        throw std::runtime_error("wide BVH depth " + std::to_string(c.out.depth) + " exceeds the traversal stack (" +
                                 std::to_string(kBVH8StackSize) + ")");
    return c.out;
}

BVH8Child bvh8_child(const BVH8Node& n, int slot) {
    BVH8Child ch;
    uint32_t meta = ((slot < 4 ? n.n1.z : n.n1.w) >> (8 * (slot & 3))) & 0xffu;
    if (meta == 0) return ch;
    uint32_t e = float_bits(n.n0.w), imask = e >> 24;
    if ((meta & 0x18u) == 0x18u) {
        ch.kind = BVH8Child::Inner;
        ch.index = n.n1.x + uint32_t(__builtin_popcount(imask & ((1u << slot) - 1u)));
    } else {
        ch.kind = BVH8Child::Leaf;
        ch.index = n.n1.y + (meta & 31u);
        ch.count = uint32_t(__builtin_popcount(meta >> 5));
    }
    auto byte = [&](uint32_t lo_word, uint32_t hi_word) {
        return float(((slot < 4 ? lo_word : hi_word) >> (8 * (slot & 3))) & 0xffu);
    };
    float p[3] = {n.n0.x, n.n0.y, n.n0.z};
    float ql[3] = {byte(n.n2.x, n.n2.y), byte(n.n2.z, n.n2.w), byte(n.n3.x, n.n3.y)};
    float qh[3] = {byte(n.n3.z, n.n3.w), byte(n.n4.x, n.n4.y), byte(n.n4.z, n.n4.w)};
    for (int a = 0; a < 3; ++a) {
        float step = bits_float(((e >> (8 * a)) & 0xffu) << 23);
        ch.box.lo[a] = p[a] + ql[a] * step;
        ch.box.hi[a] = p[a] + qh[a] * step;
    }
    return ch;
}

}  // namespace wp
