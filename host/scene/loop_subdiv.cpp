#include "host/scene/loop_subdiv.h"
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <unordered_map>

namespace wp {
namespace {

uint64_t edge_key(uint32_t a, uint32_t b) { return a < b ? (uint64_t(a) << 32) | b : (uint64_t(b) << 32) | a; }

// The topology of one level: edges with their faces' opposite vertices, and each vertex's ordered one-ring.
struct Topology {
    struct Edge {
        uint32_t a, b;    // endpoints
        uint32_t opp[2];  // the opposite vertex in each adjacent face
        int faces = 0;    // 1: a boundary edge
    };
    std::vector<Edge> edges;
    std::vector<uint32_t> face_edge;  // 3 per face: the edge of corners (k, k+1)
    // Per vertex: its neighbours in order around it, and whether it is on the boundary. The order is pbrt-v4's
    // (SDVertex::oneRing): for a face (v, a, b) the ring steps from a to the third vertex of the face across edge
    // (v, a); a boundary vertex's ring runs from one boundary neighbour to the other, the other way.
    std::vector<std::vector<uint32_t>> ring;
    std::vector<uint8_t> boundary;
};

Topology topology(size_t nv, const std::vector<uint32_t>& idx) {
    Topology t;
    const size_t nf = idx.size() / 3;
    std::unordered_map<uint64_t, uint32_t> edge_of;
    edge_of.reserve(nf * 3);
    t.face_edge.resize(nf * 3);
    for (size_t f = 0; f < nf; ++f)
        for (int k = 0; k < 3; ++k) {
            uint32_t a = idx[3 * f + k], b = idx[3 * f + (k + 1) % 3], c = idx[3 * f + (k + 2) % 3];
            auto [it, fresh] = edge_of.emplace(edge_key(a, b), uint32_t(t.edges.size()));
            if (fresh) t.edges.push_back(Topology::Edge{a, b, {c, c}, 0});
            Topology::Edge& e = t.edges[it->second];
            if (e.faces == 2)
                throw std::invalid_argument("edge " + std::to_string(a) + "-" + std::to_string(b) +
                                            " is shared by more than two faces (not a manifold mesh)");
            e.opp[e.faces++] = c;
            t.face_edge[3 * f + k] = it->second;
        }
    // one-rings: for each vertex the map prev -> next of its faces (v, next, prev)
    std::vector<std::vector<std::pair<uint32_t, uint32_t>>> fan(nv);
    for (size_t f = 0; f < nf; ++f)
        for (int k = 0; k < 3; ++k) fan[idx[3 * f + k]].push_back({idx[3 * f + (k + 2) % 3], idx[3 * f + (k + 1) % 3]});
    t.ring.resize(nv);
    t.boundary.assign(nv, 0);
    for (const Topology::Edge& e : t.edges)
        if (e.faces == 1) t.boundary[e.a] = t.boundary[e.b] = 1;
    for (size_t v = 0; v < nv; ++v) {
        const auto& fv = fan[v];
        if (fv.empty()) continue;
        auto next_of = [&](uint32_t x, uint32_t& out) {  // the face whose prev is x: its next
            for (const auto& pn : fv)
                if (pn.first == x) return out = pn.second, true;
            return false;
        };
        auto prev_of = [&](uint32_t x, uint32_t& out) {  // the face whose next is x: its prev
            for (const auto& pn : fv)
                if (pn.second == x) return out = pn.first, true;
            return false;
        };
        std::vector<uint32_t>& r = t.ring[v];
        if (!t.boundary[v]) {  // r[i + 1] = next of the face whose prev is r[i]
            uint32_t x = fv[0].second;
            for (size_t i = 0; i < fv.size(); ++i) {
                r.push_back(x);
                if (!next_of(x, x)) break;
            }
        } else {  // from the end of the chain of next's, back along the prev's
            uint32_t x = fv[0].second, y;
            for (size_t i = 0; i < fv.size() && next_of(x, y); ++i) x = y;
            r.push_back(x);
            for (size_t i = 0; i < fv.size() && prev_of(x, y); ++i) {
                r.push_back(y);
                x = y;
            }
        }
    }
    return t;
}

float loop_beta(size_t n) { return n == 3 ? 3.0f / 16.0f : 3.0f / (8.0f * float(n)); }

vec3 one_ring(const std::vector<vec3>& p, uint32_t v, const std::vector<uint32_t>& r, float beta) {
    vec3 s = (1.0f - float(r.size()) * beta) * p[v];
    for (uint32_t w : r) s += beta * p[w];
    return s;
}
vec3 boundary_rule(const std::vector<vec3>& p, uint32_t v, const std::vector<uint32_t>& r, float beta) {
    return (1.0f - 2.0f * beta) * p[v] + beta * p[r.front()] + beta * p[r.back()];
}

}  // namespace

LoopMesh loop_subdivide(const std::vector<vec3>& p0, const std::vector<uint32_t>& idx0, int levels, bool limit) {
    if (idx0.size() % 3) throw std::invalid_argument("the indices are not whole triangles");
    for (uint32_t i : idx0)
        if (i >= p0.size()) throw std::invalid_argument("index " + std::to_string(i) + " out of range");
    std::vector<vec3> p = p0;
    std::vector<uint32_t> idx = idx0;
    for (int level = 0; level < levels; ++level) {
        const Topology t = topology(p.size(), idx);
        const size_t nv = p.size();
        std::vector<vec3> q(nv + t.edges.size());
        for (size_t v = 0; v < nv; ++v) {  // even vertices
            const std::vector<uint32_t>& r = t.ring[v];
            if (r.empty())
                q[v] = p[v];  // in no face
            else if (t.boundary[v])
                q[v] = boundary_rule(p, uint32_t(v), r, 1.0f / 8.0f);
            else
                q[v] = one_ring(p, uint32_t(v), r, loop_beta(r.size()));
        }
        for (size_t e = 0; e < t.edges.size(); ++e) {  // odd vertices
            const Topology::Edge& E = t.edges[e];
            q[nv + e] = E.faces == 1 ? 0.5f * p[E.a] + 0.5f * p[E.b]
                                     : 3.0f / 8.0f * p[E.a] + 3.0f / 8.0f * p[E.b] + 1.0f / 8.0f * p[E.opp[0]] +
                                           1.0f / 8.0f * p[E.opp[1]];
        }
        std::vector<uint32_t> out;
        out.reserve(idx.size() * 4);
        for (size_t f = 0; f < idx.size() / 3; ++f) {
            const uint32_t a = idx[3 * f], b = idx[3 * f + 1], c = idx[3 * f + 2];
            const uint32_t ab = uint32_t(nv + t.face_edge[3 * f]), bc = uint32_t(nv + t.face_edge[3 * f + 1]),
                           ca = uint32_t(nv + t.face_edge[3 * f + 2]);
            out.insert(out.end(), {a, ab, ca, b, bc, ab, c, ca, bc, ab, bc, ca});
        }
        p = std::move(q);
        idx = std::move(out);
    }
    LoopMesh m;
    m.idx = idx;
    if (!limit) {
        m.p = p;
        return m;
    }
    const Topology t = topology(p.size(), idx);
    m.p.resize(p.size());
    for (size_t v = 0; v < p.size(); ++v) {
        const std::vector<uint32_t>& r = t.ring[v];
        if (r.empty())
            m.p[v] = p[v];
        else if (t.boundary[v])
            m.p[v] = boundary_rule(p, uint32_t(v), r, 1.0f / 5.0f);
        else
            m.p[v] = one_ring(p, uint32_t(v), r, 1.0f / (float(r.size()) + 3.0f / (8.0f * loop_beta(r.size()))));
    }
    // Normals: the limit surface's tangents S and T from the limit positions of the one-ring (pbrt-v4's formulas)
    const float pi = 3.14159265358979f;
    m.n.assign(p.size(), vec3(0.0f));
    for (size_t v = 0; v < p.size(); ++v) {
        const std::vector<uint32_t>& r = t.ring[v];
        const int n = int(r.size());
        if (n < 2) continue;
        auto P = [&](int k) { return m.p[r[size_t(k)]]; };
        vec3 S(0.0f), T(0.0f);
        if (!t.boundary[v]) {
            for (int j = 0; j < n; ++j) {
                S += std::cos(2.0f * pi * float(j) / float(n)) * P(j);
                T += std::sin(2.0f * pi * float(j) / float(n)) * P(j);
            }
        } else {
            S = P(n - 1) - P(0);
            if (n == 2)
                T = P(0) + P(1) - 2.0f * m.p[v];
            else if (n == 3)
                T = P(1) - m.p[v];
            else if (n == 4)
                T = -1.0f * P(0) + 2.0f * P(1) + 2.0f * P(2) - 1.0f * P(3) - 2.0f * m.p[v];
            else {
                const float th = pi / float(n - 1);
                T = std::sin(th) * (P(0) + P(n - 1));
                for (int k = 1; k < n - 1; ++k) T += (2.0f * std::cos(th) - 2.0f) * std::sin(float(k) * th) * P(k);
                T = -T;
            }
        }
        m.n[v] = glm::cross(S, T);
    }
    return m;
}

LoopEstimate loop_subdivide_estimate(size_t vertices, const std::vector<uint32_t>& idx, int levels) {
    std::unordered_map<uint64_t, char> edges;
    edges.reserve(idx.size());
    for (size_t i = 0; i + 2 < idx.size(); i += 3)
        for (int k = 0; k < 3; ++k) edges.emplace(edge_key(idx[i + k], idx[i + (k + 1) % 3]), 0);
    double v = double(vertices), e = double(edges.size()), f = double(idx.size() / 3);
    for (int l = 0; l < levels; ++l) {
        v += e;
        e = 2.0 * e + 3.0 * f;
        f *= 4.0;
    }
    // per vertex: positions (levels' p and q, the limit's p and n) 48, the fan (a vector and about 6 pairs, with the
    // allocator's overhead) 104, the one-ring 72, the boundary flag; per edge: the record (grown by doubling) 32 and
    // its hash map's node and bucket 56; per triangle: the indices (idx, the result's, the next level's) 36, each
    // corner's edge 12 and the importer's mesh (3 positions, normals, uvs and flags) 110
    const double bytes = v * (48.0 + 104.0 + 72.0 + 1.0) + e * (32.0 + 56.0) + f * (36.0 + 12.0 + 110.0);
    LoopEstimate r;
    r.triangles = uint64_t(std::min(f, 1e19));
    r.vertices = uint64_t(std::min(v, 1e19));
    r.bytes = uint64_t(std::min(bytes, 1e19));
    return r;
}

}  // namespace wp
