#include "host/scene/scene_json.h"
#include "host/scene/render_limits.h"
#include "host/scene/render_settings.h"
#include "host/image/image_load.h"
#include "host/scene/mesh_obj.h"
#include "host/scene/mesh_ply.h"
#include "host/scene/scene_gltf.h"
#include "host/scene/scene_pbrt.h"
#include "host/scene/scene_tungsten.h"
#include <nlohmann/json.hpp>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <sys/stat.h>
#include <fstream>
#include <iostream>
#include <map>
#include <set>

namespace wp {

bool conductor_preset(const std::string& name, vec3& eta, vec3& k) {
    // RGB complex IOR (R, G, B at about 650, 550, 450 nm), as tabulated by Tungsten and Mitsuba
    struct P {
        const char* name;
        vec3 eta, k;
    };
    static const P presets[] = {
        {"Cu", vec3(0.2004377f, 0.9240334f, 1.1022120f), vec3(3.9129485f, 2.4528477f, 2.1421880f)},
        {"Au", vec3(0.1431190f, 0.3749570f, 1.4424786f), vec3(3.9831604f, 2.3857207f, 1.6032153f)},
        {"Ag", vec3(0.1552646f, 0.1167233f, 0.1383807f), vec3(4.8283433f, 3.1222459f, 2.1469504f)},
        {"Al", vec3(1.6574600f, 0.8803690f, 0.5212287f), vec3(9.2238692f, 6.2695232f, 4.8370012f)},
    };
    for (const P& p : presets)
        if (name == p.name) {
            eta = p.eta;
            k = p.k;
            return true;
        }
    return false;
}

// A key as one JSON pointer token (RFC 6901: '~' -> "~0", '/' -> "~1").
std::string pointer_escape(const std::string& k) {
    std::string o;
    for (char ch : k) {
        if (ch == '~')
            o += "~0";
        else if (ch == '/')
            o += "~1";
        else
            o += ch;
    }
    return o;
}

namespace {
using json = nlohmann::json;
const char* const kFromFile = "from_file";  // "material": "from_file": a mesh's own MTL materials

size_t edit_distance(const std::string& a, const std::string& b) {
    std::vector<size_t> row(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= b.size(); ++j) {
            size_t up = row[j];
            row[j] = std::min(
                {row[j] + 1, row[j - 1] + 1,
                 diag + (std::tolower((unsigned char)a[i - 1]) == std::tolower((unsigned char)b[j - 1]) ? 0 : 1)});
            diag = up;
        }
    }
    return row[b.size()];
}

}  // namespace

// "unknown key 'albdo' (did you mean 'albedo'?)", or the list of the keys allowed there.
std::string unknown_key(const std::string& key, const std::set<std::string>& allowed) {
    std::string best = nearest_name(key, std::vector<std::string>(allowed.begin(), allowed.end()));
    if (!best.empty()) return "unknown key '" + key + "' (did you mean '" + best + "'?)";
    std::string list;
    for (const std::string& a : allowed) list += (list.empty() ? "" : ", ") + a;
    return "unknown key '" + key + "' (expected one of: " + list + ")";
}

std::string nearest_name(const std::string& s, const std::vector<std::string>& names) {
    std::string best;
    size_t bd = ~size_t(0);
    for (const std::string& a : names) {
        size_t d = edit_distance(s, a);
        if (d < bd) {
            bd = d;
            best = a;
        }
    }
    return !best.empty() && bd <= std::max<size_t>(2, best.size() / 3) ? best : std::string();
}

std::string JsonProblem::message(const std::string& file) const {
    if (line) return file + ":" + std::to_string(line) + ":" + std::to_string(col) + ": " + what;
    return file + ": " + (pointer.empty() ? "/" : pointer) + ": " + what;
}

namespace {
// A SAX pass over a JSON text before it is parsed into a tree: finds a key given twice in one object (its JSON
// pointer) and the place (byte offset) of a syntax error or of a number out of range, which the tree parser would
// report with neither.
struct CheckingSax {
    struct Frame {
        bool object;
        std::set<std::string> keys;
        std::string token;  // the current key, or the current element's index
        size_t index = 0;
    };
    std::vector<Frame> stack;
    JsonProblem* problem;
    size_t error_at = 0;  // byte offset of the token that failed
    void element() {
        if (!stack.empty() && !stack.back().object) stack.back().token = std::to_string(stack.back().index++);
    }
    std::string pointer() const {
        std::string p;
        for (const Frame& f : stack) p += "/" + (f.object ? pointer_escape(f.token) : f.token);
        return p;
    }
    bool null() { return element(), true; }
    bool boolean(bool) { return element(), true; }
    bool number_integer(json::number_integer_t) { return element(), true; }
    bool number_unsigned(json::number_unsigned_t) { return element(), true; }
    bool number_float(json::number_float_t, const json::string_t&) { return element(), true; }
    bool string(json::string_t&) { return element(), true; }
    bool binary(json::binary_t&) { return element(), true; }
    bool start_object(std::size_t) {
        element();
        stack.push_back({true, {}, {}, 0});
        return true;
    }
    bool key(json::string_t& k) {
        Frame& f = stack.back();
        f.token = k;
        if (!f.keys.insert(k).second) {
            problem->pointer = pointer();
            problem->what = "duplicate key '" + k + "' (given twice in one object: which one is meant is unknown)";
            return false;
        }
        return true;
    }
    bool end_object() { return stack.pop_back(), true; }
    bool start_array(std::size_t) {
        element();
        stack.push_back({false, {}, {}, 0});
        return true;
    }
    bool end_array() { return stack.pop_back(), true; }
    bool parse_error(std::size_t position, const std::string& last_token, const json::exception& ex) {
        // a number out of range: its first character (the lexer's token is the number); a syntax error: the last
        // character read, where the problem was seen (the token text may hold earlier tokens), or the end of the text
        if (ex.id == 406)
            error_at = position >= last_token.size() ? position - last_token.size() : 0;
        else
            error_at = position > 0 ? position - 1 : 0;
        std::string lib = ex.what();  // "[json.exception.parse_error.101] parse error at line 1, column 5: ..."
        if (ex.id == 406) {           // out_of_range.406: a number beyond the double range
            problem->what =
                "the number " + last_token + " is out of range (a number must be finite, at most about 1.8e308)";
        } else {
            size_t dash = lib.find(" - ");  // "syntax error while parsing object - unexpected end of input; ..."
            std::string detail = dash != std::string::npos ? lib.substr(dash + 3) : std::string();
            if (detail.empty()) {
                size_t colon = lib.rfind(": ");
                detail = colon != std::string::npos ? lib.substr(colon + 2) : std::string("not valid JSON");
            }
            problem->what = "JSON syntax error: " + detail;
        }
        return false;
    }
};
}  // namespace

bool parse_json_text(const std::string& text, json& out, JsonProblem& problem) {
    problem = JsonProblem{};
    if (text.find_first_not_of(" \t\r\n") == std::string::npos) {
        problem.line = problem.col = 1;
        problem.what = "JSON syntax error: the file is empty (expected a JSON object)";
        return false;
    }
    CheckingSax sax;
    sax.problem = &problem;
    // the JSON lexer takes a NUL byte for the end of the text, and would ignore whatever follows it
    const size_t nul = text.find('\0');
    if (nul != std::string::npos || !json::sax_parse(text, &sax)) {
        if (nul != std::string::npos) sax.error_at = nul;
        if (problem.pointer.empty()) {  // a syntax error or a number out of range: its line and column
            size_t at = std::min(sax.error_at, text.size());
            problem.line = 1;
            size_t line_start = 0;
            for (size_t i = 0; i < at; ++i)
                if (text[i] == '\n') {
                    ++problem.line;
                    line_start = i + 1;
                }
            problem.col = at - line_start + 1;
            const unsigned char ch = at < text.size() ? (unsigned char)text[at] : ' ';
            if (ch < 0x20 && ch != '\t' && ch != '\n' && ch != '\r') {
                char hex[8];
                std::snprintf(hex, sizeof hex, "0x%02x", ch);
                problem.what = std::string("JSON syntax error: byte ") + hex + " is not JSON text (a binary file?)";
            }
        }
        return false;
    }
    out = json::parse(text);
    return true;
}

std::string integer_problem(const json& j, long long lo, long long hi) {
    const std::string range = "an integer from " + std::to_string(lo) + " to " + std::to_string(hi);
    if (!j.is_number_integer()) return "expected " + range;
    const bool in = j.is_number_unsigned() ? j.get<unsigned long long>() <= (unsigned long long)hi &&
                                                 (lo <= 0 || j.get<unsigned long long>() >= (unsigned long long)lo)
                                           : j.get<long long>() >= lo && j.get<long long>() <= hi;
    return in ? std::string() : j.dump() + " is out of range (" + range + ")";
}

void refuse_folder(const std::string& path, const char* what) {
    if (is_folder(path)) throw SceneError(path + ": is a folder, not " + std::string(what));
}

namespace {
struct Ctx {
    std::string file;
    // Files named by the scene must be regular files (a directory, a FIFO or /dev/zero would hang or confuse
    // the loaders); a missing file is left to the loader, which names it.
    void regular_file(const std::string& f, const std::string& ptr) const {
        struct stat st;
        if (::stat(f.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) fail(ptr, "'" + f + "' is not a regular file");
    }
    [[noreturn]] void fail(const std::string& ptr, const std::string& what) const {
        throw SceneError(file + ": " + (ptr.empty() ? "/" : ptr) + ": " + what);
    }
    void keys(const json& j, const std::string& ptr, std::set<std::string> allowed) const {
        if (!j.is_object()) fail(ptr, "expected an object");
        for (auto it = j.begin(); it != j.end(); ++it)
            if (!allowed.count(it.key())) fail(ptr + "/" + pointer_escape(it.key()), unknown_key(it.key(), allowed));
    }
    float num(const json& j, const std::string& ptr) const {
        if (!j.is_number()) fail(ptr, "expected a number");
        float v = j.get<float>();
        if (!std::isfinite(v)) fail(ptr, "not a finite number");
        return v;
    }
    float num(const json& o, const char* k, const std::string& ptr, float def) const {
        return o.contains(k) ? num(o[k], ptr + "/" + k) : def;
    }
    uint32_t count(const json& o, const char* k, const std::string& ptr, uint32_t def, uint32_t lo) const {
        if (!o.contains(k)) return def;
        const json& j = o[k];
        if (std::string why = integer_problem(j, lo, 1ll << 30); !why.empty()) fail(ptr + "/" + k, why);
        return uint32_t(j.get<long long>());
    }
    bool flag(const json& o, const char* k, const std::string& ptr, bool def) const {
        if (!o.contains(k)) return def;
        if (!o[k].is_boolean()) fail(ptr + "/" + k, "expected true or false");
        return o[k].get<bool>();
    }
    vec3 v3(const json& j, const std::string& ptr) const {
        if (j.is_number()) return vec3(num(j, ptr));
        if (!j.is_array() || j.size() != 3) fail(ptr, "expected [x, y, z]");
        return vec3(num(j[0], ptr + "/0"), num(j[1], ptr + "/1"), num(j[2], ptr + "/2"));
    }
    vec3 v3(const json& o, const char* k, const std::string& ptr, vec3 def) const {
        return o.contains(k) ? v3(o[k], ptr + "/" + k) : def;
    }
    vec3 req3(const json& o, const char* k, const std::string& ptr) const {
        if (!o.contains(k)) fail(ptr + "/" + k, "missing");
        return v3(o[k], ptr + "/" + k);
    }
    mat4 transform(const json& o, const std::string& ptr) const {
        if (!o.contains("transform")) return mat4(1.0f);
        const json& t = o["transform"];
        std::string p = ptr + "/transform";
        keys(t, p, {"matrix"});
        if (!t.contains("matrix")) fail(p + "/matrix", "missing");
        const json& m = t["matrix"];
        if (!m.is_array() || m.size() != 16) fail(p + "/matrix", "expected 16 numbers, row by row");
        mat4 M;
        for (int r = 0; r < 4; ++r)
            for (int c = 0; c < 4; ++c) M[c][r] = num(m[r * 4 + c], p + "/matrix/" + std::to_string(r * 4 + c));
        return M;
    }
};
}  // namespace

static bool ends_with(const std::string& s, const char* suffix) {
    size_t n = std::strlen(suffix);
    if (s.size() < n) return false;
    for (size_t i = 0; i < n; ++i)
        if (std::tolower((unsigned char)s[s.size() - n + i]) != suffix[i]) return false;
    return true;
}

namespace {
LoadedScene load_native_json(const std::string& path, const LoadOptions& opt);
LoadedScene load_gltf_format(const std::string& path, const LoadOptions& opt) {
    return load_gltf_scene(path, opt.build);
}
LoadedScene load_pbrt_format(const std::string& path, const LoadOptions& opt) {
    return load_pbrt_scene(path, opt.strict, opt.build);
}
}  // namespace

const std::vector<SceneFormat>& scene_formats() {
    static const std::vector<SceneFormat> formats{
        {".json", "native or Tungsten JSON (told apart by \"primitives\")", load_native_json},
        {".gltf", "glTF 2.0", load_gltf_format},
        {".glb", "glTF 2.0, binary", load_gltf_format},
        {".pbrt", "pbrt-v4 (the subset of scenes/README.md)", load_pbrt_format},
    };
    return formats;
}

namespace {
// A loader's call timed (LoadedScene::load_seconds, load_cpu_seconds); with --strict its first warning the error.
template <class Load>
LoadedScene timed_load(const LoadOptions& opt, Load&& load) {
    const auto t0 = std::chrono::steady_clock::now();
    const double cpu0 = process_cpu_seconds();
    LoadedScene ls = load();
    ls.load_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    ls.load_cpu_seconds = process_cpu_seconds() - cpu0;
    // --strict: a warning of any loader (the Tungsten loader's fail where they arise) is an error
    if (opt.strict && !ls.warnings.empty()) throw SceneError(ls.warnings.front() + " (an error with --strict)");
    return ls;
}

// One format's load, with a std::bad_alloc in it reported as a SceneMemoryError naming the file and the phase (the
// tree's build names its own: SceneBuilder::build), not a bare "std::bad_alloc".
LoadedScene load_phase(const std::string& path, const LoadOptions& opt, const SceneFormat& f) {
    try {
        return f.load(path, opt);
    } catch (const std::bad_alloc&) {
        throw SceneMemoryError(path +
                               ": out of memory while reading the scene (its parse, meshes, textures and "
                               "arrays, before the BVH is built)");
    }
}
}  // namespace

LoadedScene load_scene_json(const std::string& path, const LoadOptions& opt) {
    refuse_folder(path);
    std::string list;
    for (const SceneFormat& f : scene_formats()) {
        if (ends_with(path, f.extension)) {
            return timed_load(opt, [&] { return load_phase(path, opt, f); });
        }
        list += (list.empty() ? "" : ", ") + std::string(f.extension);
    }
    size_t slash = path.find_last_of('/'), dot = path.find_last_of('.');
    std::string ext = dot == std::string::npos || (slash != std::string::npos && dot < slash) ? "" : path.substr(dot);
    throw SceneError(path + ": unsupported scene format '" + ext + "' (supported: " + list + ")");
}

namespace {
// The render block: every setting of the list (kernels/render_params.h) by its name, read by the list's reader
// (render_settings.h: the one a film header's render block goes through too), a problem named by its JSON pointer
// ("/render/max_depth: 5000 is out of range (an integer from 1 to 1024)"); a setting the block does not give takes
// the list's default.
void read_render_block(const Ctx& c, const json& render, RenderParams& rp) {
    wp::read_render_block(render, "/render", rp,
                          [&c](const std::string& ptr, const std::string& what) { c.fail(ptr, what); });
}

// What the phases of load_native_json share: the scene file (named by errors and warnings) and its folder, the
// builder, the scene being loaded (its settings and warnings), the textures loaded so far and the named materials.
struct NativeScene {
    Ctx c;
    std::string path;
    std::string dir;  // the scene file's folder ("" or ending in '/'): relative file names are under it
    SceneBuilder b;
    LoadedScene ls;
    std::map<std::pair<std::string, bool>, uint32_t> tex_cache;  // (file, sRGB) -> texture id
    std::map<std::string, MatHandle> mats;                       // /materials by name
    std::set<std::string> used_mats;                             // the names an object gives
    explicit NativeScene(const std::string& file) : c{file}, path(file) {
        size_t slash = file.find_last_of('/');
        dir = slash == std::string::npos ? std::string() : file.substr(0, slash + 1);
    }
};

// A file name of the scene as a path: itself when absolute, else under `dir`.
std::string resolve(const std::string& dir, const std::string& f) { return !f.empty() && f[0] == '/' ? f : dir + f; }

// The scene file read and parsed: a syntax error named by its line and column, a duplicate key by its JSON pointer.
json read_json_file(const std::string& path) {
    refuse_folder(path);
    std::ifstream f(path, std::ios::binary);
    if (!f) throw SceneError(path + ": cannot open scene file");
    std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    if (f.bad()) throw SceneError(path + ": cannot read scene file");
    json root;
    JsonProblem problem;
    if (!parse_json_text(text, root, problem)) throw SceneError(problem.message(path));
    return root;
}

// The top-level keys: only those of the format (a misspelt one named, with the nearest).
void check_top_keys(const Ctx& c, const json& root) {
    c.keys(root, "", {"render", "camera", "materials", "objects", "lights", "background", "environment"});
}

// The camera (/camera): position, target, up, field of view and thin lens; the aspect from the render block.
void read_camera(NativeScene& s, const json& root) {
    const Ctx& c = s.c;
    const RenderParams& rp = s.ls.params;
    if (!root.contains("camera")) c.fail("/camera", "missing");
    const json& cam = root["camera"];
    c.keys(cam, "/camera", {"position", "target", "up", "fov", "aperture_radius", "focus_distance"});
    vec3 pos = c.req3(cam, "position", "/camera"), tgt = c.req3(cam, "target", "/camera");
    vec3 up = c.v3(cam, "up", "/camera", vec3(0, 1, 0));
    if (glm::length(glm::cross(tgt - pos, up)) <= 0.0f) c.fail("/camera", "position, target and up are degenerate");
    float fov = c.num(cam, "fov", "/camera", 40.0f);
    if (!(fov > 0.0f && fov < 180.0f)) c.fail("/camera/fov", "must be in (0, 180) degrees");
    s.b.set_camera(make_camera(pos, tgt, up, fov, float(rp.width) / float(rp.height),
                               c.num(cam, "aperture_radius", "/camera", 0.0f),
                               c.num(cam, "focus_distance", "/camera", glm::length(tgt - pos))));
    if (cam.contains("focus_distance") && !(c.num(cam, "aperture_radius", "/camera", 0.0f) > 0.0f))
        s.ls.warnings.push_back(s.path +
                                ": /camera/focus_distance: no effect without an aperture_radius > 0 (a pinhole)");
}

// The constant background (/background): black when not given.
void read_background(NativeScene& s, const json& root) {
    s.b.set_background(s.c.v3(root, "background", "", vec3(0.0f)));
}

// A texture file's id, each file loaded once per color space; `where` is the JSON pointer blamed for a bad file.
uint32_t texture(NativeScene& s, const std::string& file, bool srgb, const std::string& where) {
    auto key = std::make_pair(file, srgb);
    auto it = s.tex_cache.find(key);
    if (it != s.tex_cache.end()) return it->second;
    s.c.regular_file(file, where);
    LoadedImage im;
    try {
        im = load_image(file, srgb);
    } catch (const ImageError& e) { s.c.fail(where, e.what()); }
    uint32_t id = s.b.texture(std::move(im.texels), im.width, im.height);
    s.tex_cache[key] = id;
    return id;
}

// A material's texture m[k] (a file name, relative to the scene's folder), or kNoTexture when not given.
uint32_t opt_texture(NativeScene& s, const json& m, const char* k, const std::string& p, bool srgb) {
    if (!m.contains(k)) return kNoTexture;
    if (!m[k].is_string() || m[k].get<std::string>().empty()) s.c.fail(p + "/" + k, "expected a file name");
    return texture(s, resolve(s.dir, m[k].get<std::string>()), srgb, p + "/" + k);
}

// The environment map (/environment): an image around the scene, scaled and rotated; not with a /background.
void read_environment(NativeScene& s, const json& root) {
    if (!root.contains("environment")) return;
    const Ctx& c = s.c;
    const json& e = root["environment"];
    if (!e.is_object()) c.fail("/environment", "expected an object {\"file\", \"scale\", \"rotation\"}");
    c.keys(e, "/environment", {"file", "scale", "rotation"});
    if (root.contains("background")) c.fail("/background", "give either a constant background or an environment map");
    if (!e.contains("file") || !e["file"].is_string()) c.fail("/environment/file", "missing or not a file name");
    std::string f = resolve(s.dir, e["file"].get<std::string>());
    c.regular_file(f, "/environment/file");
    LoadedImage im;
    try {
        im = load_image(f, false);
    } catch (const ImageError& err) { c.fail("/environment/file", err.what()); }
    vec3 sc = c.v3(e, "scale", "/environment", vec3(1.0f));
    if (glm::min(sc.x, glm::min(sc.y, sc.z)) < 0.0f) c.fail("/environment/scale", "must not be negative");
    for (F4& t : im.texels) {
        t = F4{t.x * sc.x, t.y * sc.y, t.z * sc.z, 1.0f};
        if (!std::isfinite(t.x) || !std::isfinite(t.y) || !std::isfinite(t.z))
            c.fail("/environment/scale", "a texel x scale is not a finite 32-bit float");
    }
    s.b.set_environment(std::move(im.texels), im.width, im.height, c.num(e, "rotation", "/environment", 0.0f));
}

// A conductor material (at pointer p): a Schlick color, or a complex IOR (a preset, or eta and k).
MatHandle read_conductor(NativeScene& s, const json& m, const std::string& p) {
    const Ctx& c = s.c;
    c.keys(m, p, {"type", "color", "roughness", "preset", "eta", "k"});
    float r = c.num(m, "roughness", p, 0.0f);
    if (!(r >= 0.0f && r <= 1.0f)) c.fail(p + "/roughness", "must be in [0, 1]");
    if (!(m.contains("preset") || m.contains("eta") || m.contains("k")))
        return s.b.conductor(glm::clamp(c.v3(m, "color", p, vec3(0.9f)), 0.0f, 1.0f), r * r);
    if (m.contains("color"))
        c.fail(p + "/color", "give either a color (Schlick) or a complex IOR (preset, or eta and k)");
    vec3 eta, k;
    if (m.contains("preset")) {
        if (m.contains("eta") || m.contains("k")) c.fail(p + "/preset", "give either a preset or eta and k");
        if (!m["preset"].is_string() || !conductor_preset(m["preset"].get<std::string>(), eta, k))
            c.fail(p + "/preset", "unknown conductor preset (Cu, Au, Ag, Al)");
    } else {
        if (!m.contains("eta") || !m.contains("k"))
            c.fail(p + (m.contains("eta") ? "/k" : "/eta"), "missing (eta and k go together)");
        eta = c.v3(m, "eta", p, vec3(1.0f));
        k = c.v3(m, "k", p, vec3(0.0f));
        if (glm::min(eta.x, glm::min(eta.y, eta.z)) <= 0.0f) c.fail(p + "/eta", "must be > 0");
        if (glm::min(k.x, glm::min(k.y, k.z)) < 0.0f) c.fail(p + "/k", "must not be negative");
    }
    return s.b.conductor_complex(eta, k, r * r);
}

// A principled material (at pointer p): base color, metallic and roughness, normal map and emission, each with
// its optional texture.
MatHandle read_principled(NativeScene& s, const json& m, const std::string& p) {
    const Ctx& c = s.c;
    c.keys(m, p,
           {"type", "base_color", "metallic", "roughness", "base_color_texture", "metallic_roughness_texture",
            "normal_texture", "normal_scale", "emissive", "emissive_texture"});
    PrincipledData d{};
    d.base_color =
        glm::clamp(c.v3(m, "base_color", p, vec3(m.contains("base_color_texture") ? 1.0f : 0.8f)), 0.0f, 1.0f);
    d.metallic = c.num(m, "metallic", p, m.contains("metallic_roughness_texture") ? 1.0f : 0.0f);
    d.roughness = c.num(m, "roughness", p, m.contains("metallic_roughness_texture") ? 1.0f : 0.5f);
    if (!(d.metallic >= 0.0f && d.metallic <= 1.0f)) c.fail(p + "/metallic", "must be in [0, 1]");
    if (!(d.roughness >= 0.0f && d.roughness <= 1.0f)) c.fail(p + "/roughness", "must be in [0, 1]");
    d.base_tex = opt_texture(s, m, "base_color_texture", p, true);
    d.mr_tex = opt_texture(s, m, "metallic_roughness_texture", p, false);
    d.normal_tex = opt_texture(s, m, "normal_texture", p, false);
    d.normal_scale = c.num(m, "normal_scale", p, 1.0f);
    if (m.contains("normal_scale") && d.normal_tex == kNoTexture)
        s.ls.warnings.push_back(s.path + ": " + p + "/normal_scale: no effect without a normal_texture");
    d.emissive = c.v3(m, "emissive", p, vec3(m.contains("emissive_texture") ? 1.0f : 0.0f));
    if (glm::min(d.emissive.x, glm::min(d.emissive.y, d.emissive.z)) < 0.0f)
        c.fail(p + "/emissive", "must not be negative");
    d.emissive_tex = opt_texture(s, m, "emissive_texture", p, true);
    return s.b.principled(d);
}

// One material of /materials (at pointer p, its type checked) by its type.
MatHandle read_material(NativeScene& s, const json& m, const std::string& p) {
    const Ctx& c = s.c;
    std::string t = m["type"];
    if (t == "lambert") {
        c.keys(m, p, {"type", "albedo", "albedo_texture"});
        return s.b.lambert(
            glm::clamp(c.v3(m, "albedo", p, vec3(m.contains("albedo_texture") ? 1.0f : 0.5f)), 0.0f, 1.0f),
            opt_texture(s, m, "albedo_texture", p, true));
    }
    if (t == "conductor") return read_conductor(s, m, p);
    if (t == "dielectric") {
        c.keys(m, p, {"type", "ior", "roughness"});
        float r = c.num(m, "roughness", p, 0.0f);
        if (!(r >= 0.0f && r <= 1.0f)) c.fail(p + "/roughness", "must be in [0, 1]");
        float ior = c.num(m, "ior", p, 1.5f);
        if (!(ior > 1.0f)) c.fail(p + "/ior", "must be > 1");
        return s.b.dielectric(ior, r * r);
    }
    if (t == "principled") return read_principled(s, m, p);
    c.fail(p + "/type", "unknown material type '" + t + "' (lambert, conductor, dielectric, principled)");
}

// The named materials (/materials), in the order of their names; "from_file" is reserved.
void read_materials(NativeScene& s, const json& root) {
    const Ctx& c = s.c;
    json jm = root.value("materials", json::object());
    if (!jm.is_object()) c.fail("/materials", "expected an object of named materials");
    for (auto it = jm.begin(); it != jm.end(); ++it) {
        std::string p = "/materials/" + pointer_escape(it.key());
        if (it.key() == kFromFile) c.fail(p, "the name 'from_file' is reserved (a mesh's MTL materials)");
        const json& m = it.value();
        if (!m.is_object() || !m.contains("type") || !m["type"].is_string())
            c.fail(p + "/type", "missing or not a string");
        s.mats[it.key()] = read_material(s, m, p);
    }
}

// A glTF object (at pointer p): a glTF 2.0 file's meshes and materials under the transform (its cameras unused).
void read_gltf_object(NativeScene& s, const json& o, const std::string& p) {
    const Ctx& c = s.c;
    const RenderParams& rp = s.ls.params;
    c.keys(o, p, {"type", "file", "transform"});
    if (!o.contains("file") || !o["file"].is_string() || o["file"].get<std::string>().empty())
        c.fail(p + "/file", "missing or not a file name");
    mat4 M = c.transform(o, p);
    float det = glm::determinant(mat3(M));
    if (!(std::isfinite(det) && det != 0.0f)) c.fail(p + "/transform", "singular (zero volume)");
    c.regular_file(resolve(s.dir, o["file"].get<std::string>()), p + "/file");
    GltfImport gi;
    try {
        gi = import_gltf(resolve(s.dir, o["file"].get<std::string>()), M, s.b, float(rp.width) / float(rp.height));
    } catch (const SceneError& e) { c.fail(p + "/file", e.what()); }
    for (const std::string& w : gi.warnings) s.ls.warnings.push_back(s.path + ": " + p + "/file: " + w);
}

// The material an object of type t names (at pointer p), marked used; null for "from_file" (a mesh's MTL
// materials, meshes only).
const MatHandle* object_material(NativeScene& s, const json& o, const std::string& p, const std::string& t) {
    const Ctx& c = s.c;
    if (!o.contains("material") || !o["material"].is_string()) c.fail(p + "/material", "missing or not a string");
    std::string mname = o["material"].get<std::string>();
    bool from_file = mname == kFromFile;
    if (from_file && t != "mesh") c.fail(p + "/material", "'from_file' is only for meshes");
    auto mit = s.mats.find(mname);
    if (!from_file && mit == s.mats.end()) {
        std::set<std::string> names;
        for (const auto& kv : s.mats) names.insert(kv.first);
        std::string hint = unknown_key(mname, names);  // "unknown key 'x' (did you mean 'y'?)"
        size_t paren = hint.find(" (");
        c.fail(p + "/material", "no material named '" + mname + "'" +
                                    (names.empty() ? std::string(" (none defined)") : hint.substr(paren)));
    }
    s.used_mats.insert(mname);
    return from_file ? nullptr : &mit->second;
}

// A mesh's materials: the object's (mat), or with "from_file" (mat null) one per MTL material of the file, each
// emitting the object's emission or else the MTL's Ke.
std::vector<MeshMaterial> mesh_materials(NativeScene& s, const ObjMesh& mesh, const std::string& file,
                                         const MatHandle* mat, vec3 Le, const std::string& p) {
    bool emissive = max_comp(Le) > 0.0f;
    std::vector<MeshMaterial> mesh_mats;
    if (mat) {
        mesh_mats.push_back({*mat, Le});
        return mesh_mats;
    }
    if (mesh.materials.empty()) s.c.fail(p + "/material", "'from_file', but '" + file + "' has no MTL materials");
    for (size_t k = 0; k < mesh.materials.size(); ++k) {
        const ObjMaterial& om = mesh.materials[k];
        uint32_t tex = kNoTexture;
        if (!om.map_kd.empty()) {  // MTL paths are relative to the OBJ; backslashes as written by Windows tools
            std::string tf = om.map_kd;
            for (char& ch : tf)
                if (ch == '\\') ch = '/';
            size_t os = file.find_last_of('/');
            tex = texture(s, resolve(os == std::string::npos ? std::string() : file.substr(0, os + 1), tf), true,
                          p + "/file");
        }
        mesh_mats.push_back({s.b.lambert(glm::clamp(tex == kNoTexture ? om.kd : vec3(1.0f), 0.0f, 1.0f), tex),
                             emissive ? Le : glm::max(om.ke, vec3(0.0f))});
    }
    return mesh_mats;
}

// A mesh object (at pointer p): an OBJ, PLY or WO3 file's triangles under the transform M; each triangle a light
// if the object is emissive.
void read_mesh_object(NativeScene& s, const json& o, const std::string& p, const mat4& M, const MatHandle* mat, vec3 Le,
                      bool two) {
    const Ctx& c = s.c;
    if (!o.contains("file") || !o["file"].is_string() || o["file"].get<std::string>().empty())
        c.fail(p + "/file", "missing or not a file name");
    std::string file = o["file"];
    if (file[0] != '/') file = s.dir + file;
    bool smooth = c.flag(o, "smooth", p, false);
    float det = glm::determinant(mat3(M));
    if (!(std::isfinite(det) && det != 0.0f)) c.fail(p + "/transform", "singular (zero volume)");
    c.regular_file(file, p + "/file");
    ObjMesh mesh;
    try {
        if (ends_with(file, ".ply"))
            mesh = load_ply(file, M, smooth);
        else if (ends_with(file, ".wo3"))
            mesh = load_wo3(file, M);
        else
            mesh = load_obj(file, M, smooth);
    } catch (const MeshError& e) { c.fail(p + "/file", e.what()); }
    for (const std::string& w : mesh.warnings) s.ls.warnings.push_back(s.path + ": " + p + "/file: " + w);
    std::vector<MeshMaterial> mesh_mats = mesh_materials(s, mesh, file, mat, Le, p);
    if (max_comp(Le) > 0.0f) {
        bool any_area = false;
        for (size_t i = 0; i < mesh.triangles() && !any_area; ++i)
            any_area = glm::length(glm::cross(mesh.pos[3 * i + 1] - mesh.pos[3 * i],
                                              mesh.pos[3 * i + 2] - mesh.pos[3 * i])) > 0.0f;
        if (!any_area) c.fail(p + "/emission", "a zero-area light: no triangle of '" + file + "' has any area");
    }
    if (!mat)
        for (size_t i = 0; i < mesh.triangles(); ++i)
            if (mesh.material[i] < 0)
                c.fail(p + "/material", "'from_file', but triangle " + std::to_string(i) + " of '" + file +
                                            "' has no MTL material (usemtl)");
    add_mesh(s.b, mesh, mesh_mats, two);  // zero-area triangles: plain geometry, no emission
}

// One object of /objects (at pointer p): its type, material, emission, sidedness and transform, then its shape.
void read_object(NativeScene& s, const json& o, const std::string& p) {
    const Ctx& c = s.c;
    if (!o.is_object()) c.fail(p, "expected an object");
    if (!o.contains("type") || !o["type"].is_string()) c.fail(p + "/type", "missing or not a string");
    std::string t = o["type"];
    if (t == "gltf") return read_gltf_object(s, o, p);
    if (t == "mesh")
        c.keys(o, p, {"type", "material", "emission", "two_sided", "transform", "file", "smooth"});
    else
        c.keys(o, p, {"type", "material", "emission", "two_sided", "transform", "center", "radius"});
    const MatHandle* mat = object_material(s, o, p, t);  // null: "from_file"
    vec3 Le = c.v3(o, "emission", p, vec3(0.0f));
    if (glm::min(Le.x, glm::min(Le.y, Le.z)) < 0.0f) c.fail(p + "/emission", "must not be negative");
    bool two = c.flag(o, "two_sided", p, false);
    mat4 M = c.transform(o, p);
    if (t == "sphere") {
        if (o.contains("transform")) c.fail(p + "/transform", "spheres take center and radius, not a transform");
        float r = c.num(o, "radius", p, 1.0f);
        if (!(r > 0.0f)) c.fail(p + "/radius", "must be > 0");
        s.b.sphere(c.v3(o, "center", p, vec3(0.0f)), r, *mat, Le, two);
    } else if (t == "quad") {  // Mitsuba's rectangle: [-1,1]^2 at z = 0, normal +z, under the transform
        auto P = [&](float x, float y) { return vec3(M * vec4(x, y, 0, 1)); };
        vec3 q = P(-1, -1);
        vec3 eu = P(1, -1) - q, ev = P(-1, 1) - q;
        if (!(glm::length(glm::cross(eu, ev)) > 0.0f)) c.fail(p + "/transform", "quad has zero area");
        s.b.quad(q, eu, ev, *mat, Le, two);
    } else if (t == "cube") {  // [-1,1]^3 under the transform
        float det = glm::determinant(mat3(M));
        if (!(std::isfinite(det) && det != 0.0f)) c.fail(p + "/transform", "singular (zero volume)");
        s.b.cube(M, *mat, Le, two);
    } else if (t == "mesh") {
        read_mesh_object(s, o, p, M, mat, Le, two);
    } else {
        c.fail(p + "/type", "unknown object type '" + t + "' (sphere, quad, cube, mesh, gltf)");
    }
}

// The objects (/objects), in order.
void read_objects(NativeScene& s, const json& root) {
    if (!root.contains("objects") || !root["objects"].is_array()) s.c.fail("/objects", "missing or not an array");
    const json& objs = root["objects"];
    for (size_t i = 0; i < objs.size(); ++i) read_object(s, objs[i], "/objects/" + std::to_string(i));
}

// One light of /lights (at pointer p) by its type: point, spot or distant.
void read_light(NativeScene& s, const json& l, const std::string& p) {
    const Ctx& c = s.c;
    if (!l.is_object()) c.fail(p, "expected an object");
    if (!l.contains("type") || !l["type"].is_string()) c.fail(p + "/type", "missing or not a string");
    const std::string t = l["type"];
    auto color = [&](const char* k) {
        vec3 v = c.req3(l, k, p);
        if (glm::min(v.x, glm::min(v.y, v.z)) < 0.0f) c.fail(p + "/" + k, "must not be negative");
        return v;
    };
    if (t == "point") {
        c.keys(l, p, {"type", "position", "intensity"});
        s.b.point_light(c.req3(l, "position", p), color("intensity"));
    } else if (t == "spot") {
        c.keys(l, p, {"type", "position", "target", "intensity", "cone_angle", "cone_delta_angle"});
        vec3 pos = c.req3(l, "position", p), tgt = c.req3(l, "target", p);
        if (!(glm::length(tgt - pos) > 0.0f)) c.fail(p + "/target", "the same point as the position");
        float cone = c.num(l, "cone_angle", p, 30.0f), delta = c.num(l, "cone_delta_angle", p, 5.0f);
        if (!(cone > 0.0f && cone <= 180.0f)) c.fail(p + "/cone_angle", "must be in (0, 180] degrees");
        if (!(delta >= 0.0f && delta <= cone)) c.fail(p + "/cone_delta_angle", "must be in [0, cone_angle]");
        s.b.spot_light(pos, tgt - pos, color("intensity"), std::cos((cone - delta) * kPi / 180.0f),
                       std::cos(cone * kPi / 180.0f));
    } else if (t == "distant") {
        c.keys(l, p, {"type", "direction", "irradiance"});
        vec3 d = c.req3(l, "direction", p);
        if (!(glm::length(d) > 0.0f)) c.fail(p + "/direction", "must not be zero");
        s.b.distant_light(d, color("irradiance"));
    } else {
        c.fail(p + "/type", "unknown light type '" + t + "' (point, spot, distant)");
    }
}

// The point, spot and distant lights (/lights, pbrt-v4's), found by light sampling alone.
void read_lights(NativeScene& s, const json& root) {
    if (!root.contains("lights")) return;
    const json& jl = root["lights"];
    if (!jl.is_array()) s.c.fail("/lights", "expected an array");
    for (size_t i = 0; i < jl.size(); ++i) read_light(s, jl[i], "/lights/" + std::to_string(i));
}

// A warning for each material no object names.
void warn_unused_materials(NativeScene& s) {
    for (const auto& kv : s.mats)
        if (!s.used_mats.count(kv.first))
            s.ls.warnings.push_back(s.path + ": /materials/" + pointer_escape(kv.first) +
                                    ": defined but not used by any object");
}

// A native JSON scene (or a Tungsten one, told apart by its "primitives") from its parsed document: checked and
// built, phase by phase; each error names the file and the JSON pointer of the value at fault.
LoadedScene load_native_root(const json& root, const std::string& path, const LoadOptions& opt) {
    if (is_tungsten_scene(root)) return load_tungsten_scene(path, root, opt.strict, opt.build);
    NativeScene s(path);
    check_top_keys(s.c, root);
    read_render_block(s.c, root.value("render", json::object()), s.ls.params);
    read_camera(s, root);
    read_background(s, root);
    read_environment(s, root);
    read_materials(s, root);
    read_objects(s, root);
    read_lights(s, root);
    warn_unused_materials(s);
    s.ls.data = s.b.build(opt.build, path);
    if (!opt.strict)  // with --strict the first becomes the error
        for (const std::string& w : s.ls.warnings) std::cerr << "warning: " << w << "\n";
    return std::move(s.ls);
}

// A native or Tungsten JSON scene file.
LoadedScene load_native_json(const std::string& path, const LoadOptions& opt) {
    return load_native_root(read_json_file(path), path, opt);
}
}  // namespace

LoadedScene load_scene_json_text(const std::string& text, const std::string& path, const LoadOptions& opt) {
    json root;
    JsonProblem problem;
    if (!parse_json_text(text, root, problem)) throw SceneError(problem.message(path));
    return timed_load(opt, [&] { return load_native_root(root, path, opt); });
}

}  // namespace wp
