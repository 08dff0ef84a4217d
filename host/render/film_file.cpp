#include "host/render/film_file.h"
#include <unistd.h>
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include "host/scene/render_limits.h"
#include "host/scene/render_settings.h"
#include "host/scene/mesh_obj.h"
#include "host/scene/scene_json.h"
#include "kernels/aov.h"
#include "kernels/film.h"
#include "kernels/filter.h"

namespace wp {
namespace {

// FNV-1a over 32-bit words (every hashed field is a 4-byte float or integer: no padding bytes reach the hash).
struct Hash {
    uint64_t h = 1469598103934665603ull;
    void word(uint32_t w) { h = (h ^ w) * 1099511628211ull; }
    void f(float x) {
        uint32_t w;
        std::memcpy(&w, &x, 4);
        word(w);
    }
    void v3(const vec3& v) { f(v.x), f(v.y), f(v.z); }
    void f4(const F4& v) { f(v.x), f(v.y), f(v.z), f(v.w); }
    void count(size_t n) {
        word(uint32_t(n));
        word(uint32_t(uint64_t(n) >> 32));
    }
};

const char* kMagic = "WPFILM 1";

std::string hex(uint64_t x) {
    char b[20];
    std::snprintf(b, sizeof b, "%016llx", (unsigned long long)x);
    return b;
}

// "cpu" + "gpu" -> "cpu+gpu": what rendered the parts of a merge.
void add_name(std::string& into, const std::string& name) {
    if (name.empty() || ("+" + into + "+").find("+" + name + "+") != std::string::npos) return;
    into += (into.empty() ? "" : "+") + name;
}

const char* const kAovNames[4] = {"albedo", "normal", "depth", "position"};  // AovBits 1, 2, 4, 8

}  // namespace

uint64_t PartialFilm::film_words() const { return 3 * pixels() * (filter == kFilterMitchell ? 2 : 1); }

std::string aov_names(uint32_t bits) {
    std::string s;
    for (int i = 0; i < 4; ++i)
        if (bits & (1u << i)) s += (s.empty() ? "" : ",") + std::string(kAovNames[i]);
    return s.empty() ? "none" : s;
}

namespace {
// Each table element's fields that a render reads (padding words apart: they may hold anything). Beside each, the
// element's size in the 4-byte words hash_item reads, in its order, so that a field added to a table (or put in a
// padding word's place) stops the build here until it is hashed too: a film must never resume on a changed scene.
// An element with padding words keeps them last, in a field named `pad`, and its check pins where they start.
#define WP_HASHED_WORDS(T, words)                                            \
    static_assert(sizeof(T) == 4 * (words), #T                               \
                  ": a field was added or removed: add it to its hash_item " \
                  "(host/render/film_file.cpp) and update this count")
#define WP_HASHED_WORDS_PAD(T, words)                                                                         \
    static_assert(offsetof(T, pad) == 4 * (words) && sizeof(T) == 4 * (words) + sizeof(T::pad), #T            \
                  ": a field was added or removed (or took a padding word's place): add it to its hash_item " \
                  "(host/render/film_file.cpp), keep `pad` last, and update this count")
static_assert(sizeof(vec3) == 12, "vec3: three floats, hashed as three words");
void hash_item(Hash& h, float v) { h.f(v); }
void hash_item(Hash& h, const F4& v) { h.f4(v); }
WP_HASHED_WORDS(F4, 4);
void hash_item(Hash& h, const U4& v) { h.word(v.x), h.word(v.y), h.word(v.z), h.word(v.w); }
WP_HASHED_WORDS(U4, 4);
void hash_item(Hash& h, const BVHNode& n) {
    hash_item(h, n.a), hash_item(h, n.b), hash_item(h, n.c), hash_item(h, n.d);
}
WP_HASHED_WORDS(BVHNode, 4 * 4);
void hash_item(Hash& h, const LambertData& m) { h.v3(m.albedo), h.word(m.albedo_tex); }
WP_HASHED_WORDS(LambertData, 3 + 1);
void hash_item(Hash& h, const ConductorData& m) {
    h.v3(m.color), h.f(m.alpha), h.v3(m.eta), h.word(m.use_complex_ior), h.v3(m.k);
}
WP_HASHED_WORDS_PAD(ConductorData, 3 + 1 + 3 + 1 + 3);
void hash_item(Hash& h, const DielectricData& m) { h.v3(m.tint), h.f(m.ior), h.f(m.alpha); }
WP_HASHED_WORDS(DielectricData, 3 + 1 + 1);
void hash_item(Hash& h, const PrincipledData& m) {
    h.v3(m.base_color), h.f(m.metallic), h.f(m.roughness), h.word(m.base_tex), h.word(m.mr_tex);
    h.word(m.normal_tex), h.v3(m.emissive), h.word(m.emissive_tex), h.f(m.normal_scale);
}
WP_HASHED_WORDS_PAD(PrincipledData, 3 + 1 + 1 + 1 + 1 + 1 + 3 + 1 + 1);
void hash_item(Hash& h, const LayeredData& m) {
    h.v3(m.reflectance), h.word(m.reflectance_tex), h.v3(m.albedo), h.f(m.thickness), h.v3(m.eta), h.f(m.g);
    h.v3(m.k), h.f(m.coat_eta), h.f(m.coat_alpha), h.f(m.base_alpha), h.word(m.conductor_base);
    h.word(m.max_depth), h.word(m.nsamples);
}
WP_HASHED_WORDS_PAD(LayeredData, 3 + 1 + 3 + 1 + 3 + 1 + 3 + 1 + 1 + 1 + 1 + 1 + 1);
void hash_item(Hash& h, const BumpData& b) { h.word(b.material), h.word(b.tex), h.f(b.scale), h.f(b.du), h.f(b.dv); }
WP_HASHED_WORDS_PAD(BumpData, 1 + 1 + 1 + 1 + 1);
void hash_item(Hash& h, const Light& l) {
    h.word(l.prim), h.f(l.area), h.f(l.select_pdf), h.word(l.two_sided), h.v3(l.Le);
    h.word(l.type), h.v3(l.pos), h.f(l.cos_start), h.v3(l.dir), h.f(l.cos_end);
}
WP_HASHED_WORDS(Light, 1 + 1 + 1 + 1 + 3 + 1 + 3 + 1 + 3 + 1);
void hash_item(Hash& h, const TexInfo& t) { h.word(t.offset), h.word(t.width), h.word(t.height), h.word(t.kind); }
WP_HASHED_WORDS(TexInfo, 1 + 1 + 1 + 1);
// (the camera is hashed field by field in scene_fingerprint)
WP_HASHED_WORDS(CameraData, 3 + 1 + 3 + 3 + 3 + 1 + 1 + 1);
#undef WP_HASHED_WORDS
#undef WP_HASHED_WORDS_PAD
}  // namespace

uint64_t scene_fingerprint(const SceneData& s) {
    Hash h;
    // Every array of kernels/scene_tables.h (the tree and the sampling CDFs too: a film resumes only on the very
    // arrays it was rendered from), each as its length and its elements.
#define WP_SCENE_HASH(T, field, view, cat) \
    h.count(s.field.size());               \
    for (const T& item : s.field) hash_item(h, item);
    WP_SCENE_TABLES(WP_SCENE_HASH)
#undef WP_SCENE_HASH
    // and what is not an array
    h.v3(s.background);
    h.word(s.env_width), h.word(s.env_height), h.f(s.env_rotation_deg), h.f(s.env_select_prob);
    const CameraData& c = s.camera;
    h.v3(c.pos), h.f(c.tan_half_fov_y), h.v3(c.right), h.v3(c.up), h.v3(c.forward);
    h.f(c.aspect), h.f(c.lens_radius), h.f(c.focus_dist);
    return h.h;
}

namespace {
// The settings a film records: the list's and the colour transform (not the divisions generate sets up).
void copy_film_settings(RenderParams& to, const RenderParams& from) {
    for (const SettingInfo& s : render_settings()) copy_setting(to, from, s);
    to.full_width = from.full_width, to.full_height = from.full_height;  // (a crop, as the render had it)
    to.film_transform = from.film_transform;
    std::copy(from.film_matrix, from.film_matrix + 9, to.film_matrix);
}
}  // namespace

void set_film_settings(PartialFilm& f, const RenderParams& rp) { copy_film_settings(f, rp); }

RenderParams film_params(const PartialFilm& f) {
    RenderParams rp;
    copy_film_settings(rp, f);
    return rp;
}

std::string film_settings_difference(const PartialFilm& a, const PartialFilm& b) {
    std::string d;
    if (a.scene_hash != b.scene_hash)
        d = "the scene (" + a.scene + ", fingerprint " + hex(a.scene_hash) + ", and " + b.scene + ", fingerprint " +
            hex(b.scene_hash) + ")";
    if (std::string s = settings_difference(crop_settings(a), crop_settings(b)); !s.empty())
        d += (d.empty() ? "" : ", ") + s;
    if (a.film_transform != b.film_transform ||
        (a.film_transform && !std::equal(a.film_matrix, a.film_matrix + 9, b.film_matrix)))
        d += (d.empty() ? "" : ", ") + std::string("the film's colour transform");
    return d;
}

namespace {
// The settings into the film header: its "render" block, the form of a native scene file's (render_block), and the
// colour transform only where there is one ("film_matrix").
void write_film_settings(nlohmann::json& j, const PartialFilm& film) {
    const RenderParams f = crop_settings(film);  // (width and height the full image's, as the settings were given)
    j["render"] = render_block(f);
    if (f.film_transform) j["film_matrix"] = std::vector<float>(f.film_matrix, f.film_matrix + 9);
}
}  // namespace

void write_film(const std::string& path, const PartialFilm& f) {
    if (f.sum.size() != f.film_words() || f.aov_sum.size() != aov_channels(f.aovs) * f.pixels())
        throw std::runtime_error(path + ": film has a wrong buffer size");
    nlohmann::json j{{"format", "wavepath partial film"},
                     {"scene", f.scene},
                     {"scene_fingerprint", hex(f.scene_hash)},
                     {"begin", f.begin},
                     {"end", f.end},
                     {"target_end", f.target_end},
                     {"samples", range_text(f.begin, f.end, f.pixels())},
                     {"backend", f.backend},
                     {"mode", f.mode},
                     {"nonfinite", f.nonfinite},
                     {"first_nonfinite_pixel", f.first_nonfinite_pixel},
                     {"clamped", f.clamped}};
    write_film_settings(j, f);
    if (f.aovs) {  // (only where there are: a film without keeps the header it had before AOVs were kept)
        nlohmann::json a = nlohmann::json::array();
        for (int i = 0; i < 4; ++i)
            if (f.aovs & (1u << i)) a.push_back(kAovNames[i]);
        j["aovs"] = a;
    }
    const std::string tmp = path + ".tmp-" + std::to_string(::getpid());
    {
        std::ofstream o(tmp, std::ios::binary);
        if (!o) throw std::runtime_error(path + ": cannot open " + tmp + " for writing");
        o << kMagic << "\n" << j.dump() << "\n";
        std::vector<unsigned long long> words = f.sum;  // the beauty's sums, then the AOVs'
        words.insert(words.end(), f.aov_sum.begin(), f.aov_sum.end());
        std::vector<unsigned char> b(words.size() * 8);  // little-endian whatever the host
        for (size_t i = 0; i < words.size(); ++i)
            for (int k = 0; k < 8; ++k) b[8 * i + k] = (unsigned char)(words[i] >> (8 * k));
        o.write(reinterpret_cast<const char*>(b.data()), std::streamsize(b.size()));
        o.close();
        if (!o) {
            std::remove(tmp.c_str());
            throw std::runtime_error(path + ": write failed (disk full?)");
        }
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0) {
        std::remove(tmp.c_str());
        throw std::runtime_error(path + ": cannot rename " + tmp + " to it");
    }
}

namespace {
// The film header's fields, each checked for its type and range: a bad one is a FilmError naming the file and the key.
struct HeaderReader {
    const std::string& path;
    const nlohmann::json& j;
    static std::string kind(const nlohmann::json& v) {
        if (v.is_string()) return "the string " + v.dump();
        if (v.is_number()) return "the number " + v.dump();
        if (v.is_boolean()) return v.dump();
        if (v.is_null()) return "null";
        return std::string(v.is_array() ? "an array" : "an object");
    }
    [[noreturn]] void bad(const std::string& key, const std::string& what) const {
        throw FilmError(path + ": bad film header: " + (key.empty() ? std::string() : "\"" + key + "\": ") + what);
    }
    const nlohmann::json* field(const char* key, bool required) const {
        if (j.contains(key)) return &j[key];
        if (required) bad(key, "missing");
        return nullptr;
    }
    uint64_t integer(const char* key, bool required, uint64_t lo, uint64_t hi, uint64_t def) const {
        const nlohmann::json* v = field(key, required);
        if (!v) return def;
        const std::string range = "an integer from " + std::to_string(lo) + " to " + std::to_string(hi);
        if (!v->is_number_integer()) bad(key, "expected " + range + ", got " + kind(*v));
        if (v->is_number_unsigned()
                ? v->get<uint64_t>() < lo || v->get<uint64_t>() > hi
                : v->get<int64_t>() < 0 || uint64_t(v->get<int64_t>()) < lo || uint64_t(v->get<int64_t>()) > hi)
            bad(key, v->dump() + " is out of range (" + range + ")");
        return v->is_number_unsigned() ? v->get<uint64_t>() : uint64_t(v->get<int64_t>());
    }
    // A finite number in [lo, hi] ((lo, hi] with lo_open).
    float real(const char* key, float lo, float hi, bool lo_open, float def) const {
        const nlohmann::json* v = field(key, false);
        if (!v) return def;
        char range[96];
        std::snprintf(range, sizeof range, "a number in %c%g, %g]", lo_open ? '(' : '[', lo, hi);
        if (!v->is_number()) bad(key, std::string("expected ") + range + ", got " + kind(*v));
        const double x = v->get<double>();
        if (!(lo_open ? x > lo : x >= lo) || !(x <= hi)) bad(key, v->dump() + " is out of range (" + range + ")");
        return float(x);
    }
    std::string text(const char* key, bool required, const std::string& def) const {
        const nlohmann::json* v = field(key, required);
        if (!v) return def;
        if (!v->is_string()) bad(key, "expected a string, got " + kind(*v));
        return v->get<std::string>();
    }
};
}  // namespace

namespace {
// The shim for films written before the header's "render" block (their settings at the header's top level, the
// filter as its number and "filter_radius", "filter_sigma", a flag as 0 or 1): that header's settings as a render
// block, for the one reader. The settings films have had from the first (the list's head: RenderParams' members
// before the divisions) must be there; one added later, absent in older films, takes the value that renders as those
// films were rendered (settings_of_older_films: the pixel box, no clamp, the independent sampler).
nlohmann::json older_render_block(const HeaderReader& h) {
    nlohmann::json block = render_block(settings_of_older_films());
    for (const SettingInfo& s : render_settings()) {
        const bool required = s.offset < offsetof(RenderParams, div_pixels);
        if (!h.j.contains(s.name)) {
            if (required) h.bad(s.name, "missing");
            continue;
        }
        nlohmann::json v = h.j[s.name];
        if (s.kind == SettingKind::Flag && (v == 0 || v == 1)) v = v == 1;
        if (s.kind == SettingKind::Filter) {
            static const char* names[] = {"box", "box", "tent", "gaussian", "mitchell"};
            if (!v.is_number_unsigned() || v.get<uint64_t>() > kFilterMitchell)
                h.bad(s.name, "expected a filter number from 0 to 4, got " + HeaderReader::kind(v));
            v = nlohmann::json{{"type", names[v.get<uint64_t>()]}};
            for (const char* k : {"radius", "sigma"})
                if (h.j.contains(std::string(s.name) + "_" + k)) v[k] = h.j[std::string(s.name) + "_" + k];
        }
        block[s.name] = v;
    }
    return block;
}

// The settings from the film header's render block (an older film's through the shim above), read as a native scene
// file's render block is (render_settings.h: each checked for its type and the list's range), a bad one named by its
// key ("render/spp"); every setting that has a value must be there; the crop checked against the image.
void read_film_settings(const HeaderReader& h, PartialFilm& f) {
    const bool older = !h.j.contains("render");
    const nlohmann::json block = older ? older_render_block(h) : h.j["render"];
    RenderParams rp;
    read_render_block(
        block, older ? "" : "render", rp,
        [&h](const std::string& ptr, const std::string& what) { h.bad(ptr[0] == '/' ? ptr.substr(1) : ptr, what); },
        true);
    for (const SettingInfo& s : render_settings()) copy_setting(f, rp, s);
    if (std::string why = crop_problem(f); !why.empty()) h.bad(older ? "crop" : "render/crop", why);
    const nlohmann::json& j = h.j;
    if (j.contains("film_matrix")) {  // films without a colour transform: none
        const nlohmann::json& m = j["film_matrix"];
        if (!m.is_array() || m.size() != 9)
            h.bad("film_matrix", "expected 9 numbers (a 3x3 matrix, row by row), got " + HeaderReader::kind(m));
        for (size_t i = 0; i < 9; ++i) {
            if (!m[i].is_number() || !std::isfinite(m[i].get<double>()) ||
                std::fabs(m[i].get<double>()) > double(std::numeric_limits<float>::max()))
                h.bad("film_matrix",
                      "element " + std::to_string(i) + ": expected a finite number, got " + HeaderReader::kind(m[i]));
            f.film_matrix[i] = m[i].get<float>();
        }
        f.film_transform = 1;
    }
}
}  // namespace

// The header's size of the sums against the bytes the file has after it, before anything is allocated: a forged
// header of 16384x16384 pixels on a 6 KiB file made merge allocate 6 GiB before it said the file was truncated.
void check_sums_size(const std::string& path, std::ifstream& in, const PartialFilm& f, uint64_t words) {
    const std::streamoff at = in.tellg();
    in.seekg(0, std::ios::end);
    const std::streamoff end = in.tellg();
    in.seekg(at);
    if (at < 0 || end < at) throw FilmError(path + ": cannot read its size");
    const uint64_t have = uint64_t(end - at);
    if (have == words * 8) return;
    throw FilmError(path + ": bad film header: \"width\" x \"height\" " + std::to_string(f.width) + "x" +
                    std::to_string(f.height) + (f.aovs ? " with its \"aovs\"" : "") + " need " +
                    std::to_string(words * 8) + " bytes of sums and the file has " + std::to_string(have) +
                    " after its header (" + (have < words * 8 ? "truncated" : "too long") +
                    ", or the header does not belong to these sums)");
}

PartialFilm read_film(const std::string& path) {
    if (is_folder(path)) throw FilmError(path + ": is a folder, not a film file");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw FilmError(path + ": cannot open");
    std::string magic, header;
    std::getline(in, magic);
    if (magic != kMagic) throw FilmError(path + ": not a wavepath film (no '" + std::string(kMagic) + "' line)");
    std::getline(in, header);
    PartialFilm f;
    nlohmann::json j;
    JsonProblem problem;
    if (!parse_json_text(header, j, problem)) {
        if (problem.line) problem.line += 1;  // the header is the file's second line
        throw FilmError(problem.message(path) + " (in the film header)");
    }
    const HeaderReader h{path, j};
    if (!j.is_object()) h.bad("", "expected a JSON object, got " + HeaderReader::kind(j));
    if (const std::string fmt = h.text("format", false, "wavepath partial film"); fmt != "wavepath partial film")
        h.bad("format", "\"" + fmt + "\" is not \"wavepath partial film\"");
    f.scene = h.text("scene", true, "");
    const std::string fp = h.text("scene_fingerprint", true, "");
    if (fp.empty() || fp.size() > 16 || fp.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos)
        h.bad("scene_fingerprint", "\"" + fp + "\" is not a fingerprint (1 to 16 hexadecimal digits)");
    f.scene_hash = std::stoull(fp, nullptr, 16);
    read_film_settings(h, f);
    static_cast<RenderParams&>(f) = crop_for_render(f);  // (a crop's film holds the crop's pixels)
    f.begin = h.integer("begin", true, 0, ~0ull, 0);
    f.end = h.integer("end", true, 0, ~0ull, 0);
    f.target_end = h.integer("target_end", true, 0, ~0ull, 0);
    f.backend = h.text("backend", false, "");
    f.mode = h.text("mode", false, "");
    f.nonfinite = h.integer("nonfinite", false, 0, ~0ull, 0);
    f.first_nonfinite_pixel = uint32_t(h.integer("first_nonfinite_pixel", false, 0, 0xffffffffull, 0xffffffffull));
    f.clamped = h.integer("clamped", false, 0, ~0ull, 0);  // films written before clamps were counted: none
    if (j.contains("aovs")) {                              // films written before AOVs were kept: none
        const nlohmann::json& a = j["aovs"];
        if (!a.is_array()) h.bad("aovs", "expected an array of AOV names, got " + HeaderReader::kind(a));
        for (size_t k = 0; k < a.size(); ++k) {
            if (!a[k].is_string())
                h.bad("aovs",
                      "element " + std::to_string(k) + ": expected an AOV name, got " + HeaderReader::kind(a[k]));
            const std::string name = a[k].get<std::string>();
            int i = 0;
            while (i < 4 && name != kAovNames[i]) ++i;
            if (i == 4) h.bad("aovs", "unknown AOV '" + name + "' (albedo, normal, depth, position)");
            if (f.aovs & (1u << i)) h.bad("aovs", "AOV '" + name + "' listed twice");
            f.aovs |= 1u << i;
        }
    }
    const uint64_t all = f.pixels() * f.spp;
    if (f.pixels() == 0 || f.pixels() > (1ull << 28) ||
        !(f.begin <= f.end && f.end <= f.target_end && f.target_end <= all))
        throw FilmError(path + ": bad film header: image " + std::to_string(f.width) + "x" + std::to_string(f.height) +
                        ", range [" + std::to_string(f.begin) + ", " + std::to_string(f.end) + ") of " +
                        std::to_string(all) + " samples");
    const uint64_t beauty = f.film_words(), words = beauty + aov_channels(f.aovs) * f.pixels();
    check_sums_size(path, in, f, words);
    std::vector<unsigned char> b(words * 8);
    in.read(reinterpret_cast<char*>(b.data()), std::streamsize(b.size()));
    if (!in || in.peek() != std::char_traits<char>::eof())
        throw FilmError(path + ": truncated or too long (want " + std::to_string(b.size()) + " bytes of sums)");
    std::vector<unsigned long long> w(words, 0);
    for (size_t i = 0; i < w.size(); ++i)
        for (int k = 0; k < 8; ++k) w[i] |= (unsigned long long)b[8 * i + k] << (8 * k);
    f.sum.assign(w.begin(), w.begin() + std::ptrdiff_t(beauty));
    f.aov_sum.assign(w.begin() + std::ptrdiff_t(beauty), w.end());
    return f;
}

std::string range_text(uint64_t begin, uint64_t end, uint64_t pixels) {
    if (pixels && begin % pixels == 0 && end % pixels == 0)
        return "samples " + std::to_string(begin / pixels) + ":" + std::to_string((end - begin) / pixels);
    return "sample indices [" + std::to_string(begin) + ", " + std::to_string(end) + ")";
}

PartialFilm merge_films(const std::vector<PartialFilm>& parts, const std::vector<std::string>& names,
                        std::vector<std::pair<uint64_t, uint64_t>>& missing) {
    if (parts.empty()) throw FilmError("no parts to merge");
    const PartialFilm& a = parts[0];
    for (size_t i = 1; i < parts.size(); ++i)
        if (std::string d = film_settings_difference(a, parts[i]); !d.empty())
            throw FilmError(names[i] + " does not belong with " + names[0] + ": they differ in " + d);
    for (size_t i = 1; i < parts.size(); ++i)
        if (parts[i].aovs != a.aovs)
            throw FilmError(names[i] + " does not belong with " + names[0] + ": they hold different AOVs (" +
                            aov_names(parts[i].aovs) + " and " + aov_names(a.aovs) +
                            "): render every part with the same --aov");
    std::vector<size_t> order(parts.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](size_t x, size_t y) { return parts[x].begin < parts[y].begin; });
    const uint64_t np = a.pixels(), all = np * a.spp;
    missing.clear();
    uint64_t at = 0;
    size_t prev = parts.size();
    for (size_t i : order) {
        const PartialFilm& p = parts[i];
        if (p.begin == p.end) continue;
        if (p.begin < at)
            throw FilmError(names[prev] + " (" + range_text(parts[prev].begin, parts[prev].end, np) + ") and " +
                            names[i] + " (" + range_text(p.begin, p.end, np) + ") overlap in " +
                            range_text(p.begin, std::min(at, p.end), np) + ": each sample must be in one part only");
        if (p.begin > at) missing.emplace_back(at, p.begin);
        at = p.end;
        prev = i;
    }
    if (at < all) missing.emplace_back(at, all);
    PartialFilm m = a;
    m.begin = 0;
    m.end = m.target_end = all;
    m.backend = m.mode = "";
    m.nonfinite = m.clamped = 0;
    m.first_nonfinite_pixel = 0xffffffffu;
    std::fill(m.sum.begin(), m.sum.end(), 0ull);
    std::fill(m.aov_sum.begin(), m.aov_sum.end(), 0ull);
    for (const PartialFilm& p : parts) {
        if (p.sum.size() != m.sum.size() || p.aov_sum.size() != m.aov_sum.size())
            throw FilmError("the parts' sums differ in size");
        for (size_t k = 0; k < m.sum.size(); ++k) m.sum[k] += p.sum[k];
        for (size_t k = 0; k < m.aov_sum.size(); ++k) m.aov_sum[k] += p.aov_sum[k];  // (two's complement: wraps)
        m.nonfinite += p.nonfinite;
        m.clamped += p.clamped;
        m.first_nonfinite_pixel = std::min(m.first_nonfinite_pixel, p.first_nonfinite_pixel);
        add_name(m.backend, p.backend);
        add_name(m.mode, p.mode);
    }
    return m;
}

Image film_image(const PartialFilm& f, const std::vector<std::pair<uint64_t, uint64_t>>& ranges_in) {
    std::vector<std::pair<uint64_t, uint64_t>> ranges = ranges_in;
    if (ranges.empty()) ranges.emplace_back(f.begin, f.end);
    const RenderParams rp = film_params(f);
    // the render's own arithmetic: film_to_image (Mitchell's (positive - negative) * k) and aov_images
    Image img = film_to_image(f.sum, rp, ranges);
    img.nonfinite = f.nonfinite;
    img.first_nonfinite_pixel = f.first_nonfinite_pixel;
    img.clamped = f.clamped;
    if (f.aovs) {
        img.aov_bits = f.aovs;
        img.aov_sum = f.aov_sum;
        aov_images(img, rp, ranges);
    }
    return img;
}

PartialFilm film_of(const Image& img, const RenderParams& rp, uint64_t scene_hash, const std::string& scene,
                    uint64_t target_end) {
    PartialFilm f;
    f.scene = scene;
    f.scene_hash = scene_hash;
    set_film_settings(f, rp);
    f.begin = img.first;
    f.end = img.first + img.samples;
    f.target_end = target_end;
    f.nonfinite = img.nonfinite;
    f.first_nonfinite_pixel = img.first_nonfinite_pixel;
    f.clamped = img.clamped;
    f.sum = img.sum;
    f.aovs = img.aov_bits;
    f.aov_sum = img.aov_sum;
    return f;
}

void raise_film_spp(PartialFilm& f, uint32_t spp, const std::string& name) {
    if (spp == f.spp) return;
    const uint64_t np = f.pixels();
    if (spp < f.spp)
        throw FilmError("--resume " + name + " is a render of " + std::to_string(f.spp) + " spp: --spp " +
                        std::to_string(spp) + " is fewer, and a resume only adds samples (give --spp " +
                        std::to_string(f.spp) + " or more, or leave it out)");
    if (f.target_end != np * f.spp)
        throw FilmError("--resume " + name + " is a shard (" + range_text(f.begin, f.target_end, np) + " of " +
                        std::to_string(f.spp) + " spp): it continues to its own range, at --spp " +
                        std::to_string(f.spp) + "; render the samples past it as another shard");
    f.spp = spp;
    f.target_end = np * spp;
}

void append_render(PartialFilm& f, const Image& img) {
    if (img.first != f.end || img.sum.size() != f.sum.size() || img.aov_bits != f.aovs ||
        img.aov_sum.size() != f.aov_sum.size())
        throw std::logic_error("append_render: the render does not continue the film");
    for (size_t k = 0; k < f.sum.size(); ++k) f.sum[k] += img.sum[k];
    for (size_t k = 0; k < f.aov_sum.size(); ++k) f.aov_sum[k] += img.aov_sum[k];
    f.end += img.samples;
    f.nonfinite += img.nonfinite;
    f.clamped += img.clamped;
    f.first_nonfinite_pixel = std::min(f.first_nonfinite_pixel, img.first_nonfinite_pixel);
}

}  // namespace wp
