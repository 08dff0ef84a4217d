#include "host/scene/mesh_obj.h"
#include <tiny_obj_loader.h>
#include <sys/stat.h>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <limits>
#include <sstream>

namespace wp {
namespace {
std::string trim(std::string s) {
    while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ' || s.back() == '.')) s.pop_back();
    size_t i = 0;
    while (i < s.size() && (s[i] == '\n' || s[i] == ' ')) ++i;
    return s.substr(i);
}
std::string dir_of(const std::string& path) {
    size_t s = path.find_last_of('/');
    return s == std::string::npos ? std::string("./") : path.substr(0, s + 1);
}
bool finite_vec(vec3 v) { return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z); }

// tinyobjloader reads a coordinate it cannot parse ("nan", "inf", "abc", a missing one) as 0 and keeps no line
// numbers: every "v" line is checked here first, its three coordinates numbers finite as 32-bit floats. Throws
// MeshError "FILE:LINE: vertex N: 'nan' is not finite".
void check_vertex_lines(const std::string& path, const std::string& text) {
    size_t line = 0, vertex = 0, at = 0;
    auto space = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; };
    while (at < text.size()) {
        size_t end = text.find('\n', at);
        if (end == std::string::npos) end = text.size();
        ++line;
        size_t i = at;
        at = end + 1;
        while (i < end && space(text[i])) ++i;
        if (!(i + 1 < end && text[i] == 'v' && space(text[i + 1]))) continue;
        ++vertex;
        auto fail = [&](const std::string& what) {
            throw MeshError(path + ":" + std::to_string(line) + ": vertex " + std::to_string(vertex) + ": " + what);
        };
        ++i;
        for (int k = 0; k < 3; ++k) {
            while (i < end && space(text[i])) ++i;
            size_t b = i;
            while (i < end && !space(text[i])) ++i;
            if (b == i) fail("expected 3 coordinates, found " + std::to_string(k));
            const std::string tok = text.substr(b, i - b);
            char* e = nullptr;
            const double v = std::strtod(tok.c_str(), &e);
            if (e != tok.c_str() + tok.size()) {
                if (!std::isfinite(v)) fail("'" + tok + "' is not finite");  // e.g. "nan(x)"
                fail("'" + tok + "' is not a number");
            }
            if (!std::isfinite(v)) fail("'" + tok + "' is not finite");
            if (std::fabs(v) > double(std::numeric_limits<float>::max()))
                fail("'" + tok + "' is not finite as a 32-bit float");
        }
    }
}
}  // namespace

bool is_folder(const std::string& path) {
    struct stat st;
    return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

ObjMesh load_obj(const std::string& path, const mat4& M, bool smooth) {
    {
        if (is_folder(path)) throw MeshError(path + ": is a folder, not a mesh file");
        std::ifstream probe(path, std::ios::binary);
        if (!probe) throw MeshError("cannot open '" + path + "'");
        const std::string text((std::istreambuf_iterator<char>(probe)), std::istreambuf_iterator<char>());
        check_vertex_lines(path, text);
    }
    auto fail = [&](const std::string& what) -> void { throw MeshError(path + ": " + what); };
    mat3 A(M);
    float det = glm::determinant(A);
    if (!(std::isfinite(det) && det != 0.0f)) fail("the transform is singular");
    mat3 N = glm::transpose(glm::inverse(A));
    bool mirror = det < 0.0f;

    tinyobj::ObjReaderConfig cfg;
    cfg.triangulate = true;
    cfg.vertex_color = false;
    cfg.mtl_search_path = dir_of(path);
    tinyobj::ObjReader reader;
    bool ok = reader.ParseFromFile(path, cfg);
    if (!ok || !reader.Error().empty()) fail(trim(reader.Error().empty() ? "cannot parse" : reader.Error()));

    ObjMesh mesh;
    {
        std::istringstream ws(reader.Warning());
        std::string line;
        while (std::getline(ws, line))
            if (!trim(line).empty()) mesh.warnings.push_back(path + ": " + trim(line));
    }
    for (const tinyobj::material_t& m : reader.GetMaterials()) {
        ObjMaterial om;
        om.name = m.name;
        om.kd = vec3(m.diffuse[0], m.diffuse[1], m.diffuse[2]);
        om.map_kd = m.diffuse_texname;
        om.ke = vec3(m.emission[0], m.emission[1], m.emission[2]);
        mesh.materials.push_back(om);
    }

    const tinyobj::attrib_t& att = reader.GetAttrib();
    size_t nv = att.vertices.size() / 3, nn = att.normals.size() / 3, nt = att.texcoords.size() / 2;
    // positions transformed once per OBJ vertex; checked where used
    std::vector<vec3> wpos(nv);
    for (size_t i = 0; i < nv; ++i)
        wpos[i] = vec3(M * vec4(att.vertices[3 * i], att.vertices[3 * i + 1], att.vertices[3 * i + 2], 1.0f));
    std::vector<int> vidx;  // OBJ vertex of each corner, for smooth normals
    for (const tinyobj::shape_t& sh : reader.GetShapes()) {
        const auto& idx = sh.mesh.indices;
        size_t at = 0;
        for (size_t f = 0; f < sh.mesh.num_face_vertices.size(); ++f) {
            size_t fv = sh.mesh.num_face_vertices[f];
            if (fv != 3)
                fail("shape '" + sh.name + "': face " + std::to_string(f + 1) +
                     " is not a triangle after triangulation");
            tinyobj::index_t c[3] = {idx[at], idx[at + 1], idx[at + 2]};
            at += 3;
            if (mirror) std::swap(c[1], c[2]);
            bool hn = true, ht = true;
            for (const auto& k : c) {
                if (k.vertex_index < 0 || size_t(k.vertex_index) >= nv)
                    fail("shape '" + sh.name + "': face " + std::to_string(f + 1) + " uses vertex " +
                         std::to_string(k.vertex_index + 1) + " of " + std::to_string(nv));
                if (k.normal_index >= 0 && size_t(k.normal_index) >= nn)
                    fail("shape '" + sh.name + "': face " + std::to_string(f + 1) + " uses normal " +
                         std::to_string(k.normal_index + 1) + " of " + std::to_string(nn));
                if (k.texcoord_index >= 0 && size_t(k.texcoord_index) >= nt)
                    fail("shape '" + sh.name + "': face " + std::to_string(f + 1) + " uses texture coordinate " +
                         std::to_string(k.texcoord_index + 1) + " of " + std::to_string(nt));
                vec3 p = wpos[k.vertex_index];
                if (!finite_vec(p))
                    fail("vertex " + std::to_string(k.vertex_index + 1) + " is not finite" +
                         (finite_vec(vec3(att.vertices[3 * k.vertex_index], att.vertices[3 * k.vertex_index + 1],
                                          att.vertices[3 * k.vertex_index + 2]))
                              ? " after the transform"
                              : ""));
                hn = hn && k.normal_index >= 0;
                ht = ht && k.texcoord_index >= 0;
            }
            vec3 n[3];
            if (hn) {
                for (int k = 0; k < 3; ++k) {
                    const float* s = &att.normals[3 * c[k].normal_index];
                    vec3 w = N * vec3(s[0], s[1], s[2]);
                    float l = glm::length(w);
                    if (!(l > 0.0f && std::isfinite(l))) hn = false;  // unusable normal: fall back to the face
                    n[k] = w / l;
                }
            }
            for (int k = 0; k < 3; ++k) {
                mesh.pos.push_back(wpos[c[k].vertex_index]);
                mesh.normal.push_back(hn ? n[k] : vec3(0.0f));
                const float* t = ht ? &att.texcoords[2 * c[k].texcoord_index] : nullptr;
                mesh.uv.push_back(t ? vec2(t[0], 1.0f - t[1]) : vec2(0.0f));  // OBJ v runs up; ours down (glTF)
                vidx.push_back(c[k].vertex_index);
            }
            mesh.has_normals.push_back(hn ? 1 : 0);
            mesh.has_uv.push_back(ht ? 1 : 0);
            int mid = f < sh.mesh.material_ids.size() ? sh.mesh.material_ids[f] : -1;
            mesh.material.push_back(mid >= 0 && size_t(mid) < mesh.materials.size() ? mid : -1);
        }
    }
    if (mesh.triangles() == 0) fail("no triangles");

    if (smooth) smooth_vertex_normals(mesh, vidx, nv);
    return mesh;
}

}  // namespace wp
