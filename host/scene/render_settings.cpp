#include "host/scene/render_settings.h"
#include <cmath>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include "host/scene/render_limits.h"
#include "kernels/filter.h"
#include "host/scene/scene_json.h"
#include <nlohmann/json.hpp>
#include <set>

namespace wp {
namespace {

using json = nlohmann::json;

#define WP_SETTING_INFO(K, member, name, init, def, lo, hi, note, flag, help) \
    {#name,                                                                   \
     SettingKind::WP_SETTING_KIND_##K,                                        \
     WP_SETTING_OFFSET_##K(member),                                           \
     double(def),                                                             \
     double(lo),                                                              \
     double(hi),                                                              \
     note,                                                                    \
     flag,                                                                    \
     help},
#define WP_SETTING_OFFSET_WHOLE(member) offsetof(RenderParams, member)
#define WP_SETTING_OFFSET_FLAG(member) offsetof(RenderParams, member)
#define WP_SETTING_OFFSET_REAL(member) offsetof(RenderParams, member)
#define WP_SETTING_OFFSET_FILTER(member) offsetof(RenderParams, member)
#define WP_SETTING_OFFSET_CROP(member) offsetof(RenderParams, member##_x0)
#define WP_SETTING_OFFSET_CHOICE(member) offsetof(RenderParams, member)
#define WP_SETTING_KIND_WHOLE Whole
#define WP_SETTING_KIND_FLAG Flag
#define WP_SETTING_KIND_REAL Real
#define WP_SETTING_KIND_FILTER Filter
#define WP_SETTING_KIND_CROP Crop
#define WP_SETTING_KIND_CHOICE Choice

uint32_t& whole_of(RenderParams& rp, const SettingInfo& s) { return setting_u32(rp, s); }
uint32_t whole_of(const RenderParams& rp, const SettingInfo& s) { return setting_u32(rp, s); }
float& real_of(RenderParams& rp, const SettingInfo& s) { return setting_f32(rp, s); }
float real_of(const RenderParams& rp, const SettingInfo& s) { return setting_f32(rp, s); }

// The shortest %g text that reads back as x ("0.5", not "0.500000"; 0.1f as "0.100000001").
std::string real_text(double x, bool as_float) {
    char b[40];
    for (int digits : {6, 9, 17}) {
        std::snprintf(b, sizeof b, "%.*g", digits, x);
        if (as_float ? std::strtof(b, nullptr) == float(x) : std::strtod(b, nullptr) == x) break;
    }
    return b;
}

bool parse_whole(const std::string& v, unsigned long long& x) {
    if (v.empty() || v[0] == '-' || v[0] == '+') return false;
    size_t used = 0;
    try {
        x = std::stoull(v, &used, 10);
    } catch (const std::exception&) { return false; }
    return used == v.size();
}
bool parse_real(const std::string& v, double& x) {
    size_t used = 0;
    try {
        x = v.empty() ? 0.0 : std::stod(v, &used);
    } catch (const std::exception&) { return false; }
    return !v.empty() && used == v.size() && std::isfinite(x);
}

// ---- The kinds: each kind's behaviour in one struct, and nowhere else. ----
// type: docs/OPTIONS.md's type column; members: the RenderParams members from the list's offset ('u' uint32_t, 'f'
// float), which equality and copy walk; range: the range in the messages' words; set_default: a native scene file's
// default (the list's def column; the filter and the crop: RenderParams{}'s); from_text/to_text: the command line's
// form (--NAME, --set, the metadata); from_json/to_json: a render block's form (a native scene file's and a film
// header's: one reader), `where` the JSON pointer below the setting's of a problem ("/2": the crop's third number);
// to_json null: not written (no crop); in_range: the range check of a value set by code.

struct WholeKind {
    static constexpr const char* metavar = "N";
    static constexpr const char* type = "whole number";
    static constexpr const char* members = "u";
    static std::string range(const SettingInfo& s) {
        return "(" + std::to_string((unsigned long long)s.lo) + " to " + std::to_string((unsigned long long)s.hi) +
               note_of(s) + ")";
    }
    static void set_default(RenderParams& rp, const SettingInfo& s) { whole_of(rp, s) = uint32_t(s.def); }
    static std::string from_text(RenderParams& rp, const SettingInfo& s, const std::string& v) {
        unsigned long long x = 0;
        if (!parse_whole(v, x)) return "'" + v + "' is not a whole number " + range(s);
        if (double(x) < s.lo || double(x) > s.hi) return v + " is out of range " + range(s);
        whole_of(rp, s) = uint32_t(x);
        return "";
    }
    static std::string to_text(const RenderParams& rp, const SettingInfo& s) { return std::to_string(whole_of(rp, s)); }
    static std::string from_json(RenderParams& rp, const SettingInfo& s, const json& v, std::string&) {
        if (std::string why = integer_problem(v, (long long)s.lo, (long long)s.hi); !why.empty()) return why;
        whole_of(rp, s) = uint32_t(v.get<long long>());
        return "";
    }
    static json to_json(const RenderParams& rp, const SettingInfo& s) { return whole_of(rp, s); }
    static bool in_range(const RenderParams& rp, const SettingInfo& s) {
        return whole_of(rp, s) >= s.lo && whole_of(rp, s) <= s.hi;
    }
    static std::string note_of(const SettingInfo& s) { return *s.note ? std::string("; ") + s.note : std::string(); }
};

struct FlagKind {
    static constexpr const char* metavar = "0|1";
    static constexpr const char* type = "0 or 1 (scene file: false or true)";
    static constexpr const char* members = "u";
    static std::string range(const SettingInfo& s) { return "(0 or 1" + WholeKind::note_of(s) + ")"; }
    static void set_default(RenderParams& rp, const SettingInfo& s) { whole_of(rp, s) = uint32_t(s.def); }
    static std::string from_text(RenderParams& rp, const SettingInfo& s, const std::string& v) {
        if (v != "1" && v != "true" && v != "0" && v != "false") return "'" + v + "' is not 0 or 1 (false or true)";
        whole_of(rp, s) = v == "1" || v == "true" ? 1u : 0u;
        return "";
    }
    static std::string to_text(const RenderParams& rp, const SettingInfo& s) { return std::to_string(whole_of(rp, s)); }
    static std::string from_json(RenderParams& rp, const SettingInfo& s, const json& v, std::string&) {
        if (!v.is_boolean()) return "expected true or false";
        whole_of(rp, s) = v.get<bool>() ? 1u : 0u;
        return "";
    }
    static json to_json(const RenderParams& rp, const SettingInfo& s) { return whole_of(rp, s) != 0; }
    static bool in_range(const RenderParams& rp, const SettingInfo& s) { return whole_of(rp, s) <= 1; }
};

struct RealKind {
    static constexpr const char* metavar = "X";
    static constexpr const char* type = "number";
    static constexpr const char* members = "f";
    static std::string range(const SettingInfo& s) {
        return "(" + real_text(s.lo, false) + " to " + real_text(s.hi, false) + WholeKind::note_of(s) + ")";
    }
    static void set_default(RenderParams& rp, const SettingInfo& s) { real_of(rp, s) = float(s.def); }
    static std::string from_text(RenderParams& rp, const SettingInfo& s, const std::string& v) {
        double x = 0.0;
        if (!parse_real(v, x)) return "'" + v + "' is not a number " + range(s);
        if (x < s.lo || x > s.hi) return v + " is out of range " + range(s);
        real_of(rp, s) = float(x);
        return "";
    }
    static std::string to_text(const RenderParams& rp, const SettingInfo& s) { return real_text(real_of(rp, s), true); }
    static std::string from_json(RenderParams& rp, const SettingInfo& s, const json& v, std::string&) {
        if (!v.is_number()) return "expected a number";
        const float x = v.get<float>();
        if (!std::isfinite(x)) return "not a finite number";
        if (!(x >= s.lo && x <= s.hi)) return v.dump() + " is out of range " + range(s);
        real_of(rp, s) = x;
        return "";
    }
    static json to_json(const RenderParams& rp, const SettingInfo& s) { return real_of(rp, s); }
    static bool in_range(const RenderParams& rp, const SettingInfo& s) {
        return real_of(rp, s) >= s.lo && real_of(rp, s) <= s.hi;  // (NaN: out)
    }
};

// The reconstruction filter (render_limits.h's set_filter): three members, type, radius and sigma.
struct FilterKind {
    static constexpr const char* metavar = "TYPE[:RADIUS]";
    static constexpr const char* type = "filter";
    static constexpr const char* members = "uff";
    static std::string range(const SettingInfo& s) {
        return "(box, tent, gaussian or mitchell, or TYPE:RADIUS with a radius in (0, " + real_text(s.hi, false) +
               "] pixels" + WholeKind::note_of(s) + ")";
    }
    static void set_default(RenderParams&, const SettingInfo&) {}
    // "TYPE" or "TYPE:RADIUS" (the command line's), or the text to_text writes ("tent 1", "gaussian 1.5 (sigma 0.5)")
    static std::string from_text(RenderParams& rp, const SettingInfo&, const std::string& v) {
        char type[16], close = 0;
        float radius = 0.0f, sigma = 0.0f;
        int used = 0;
        if (std::sscanf(v.c_str(), "%15[a-z] %f%n", type, &radius, &used) == 2 && size_t(used) == v.size() &&
            radius > 0.0f)
            return set_filter(rp, type, radius);
        if (std::sscanf(v.c_str(), "%15[a-z] %f (sigma %f%c%n", type, &radius, &sigma, &close, &used) == 4 &&
            close == ')' && size_t(used) == v.size() && radius > 0.0f && sigma > 0.0f)
            return set_filter(rp, type, radius, sigma);
        return set_filter_spec(rp, v);
    }
    static std::string to_text(const RenderParams& rp, const SettingInfo&) { return filter_text(rp); }
    // "tent", or {"type": "gaussian", "radius": 1.5, "sigma": 0.5}
    static std::string from_json(RenderParams& rp, const SettingInfo&, const json& f, std::string& where) {
        if (f.is_string()) return set_filter(rp, f.get<std::string>());
        if (!f.is_object()) return "expected an object";
        for (auto it = f.begin(); it != f.end(); ++it)
            if (it.key() != "type" && it.key() != "radius" && it.key() != "sigma")
                return where = "/" + pointer_escape(it.key()), unknown_key(it.key(), {"radius", "sigma", "type"});
        if (!f.contains("type") || !f["type"].is_string()) return where = "/type", "expected a filter name";
        float x[2] = {0.0f, 0.0f};
        const char* keys[2] = {"radius", "sigma"};
        for (int i = 0; i < 2; ++i) {
            if (!f.contains(keys[i])) continue;
            where = std::string("/") + keys[i];
            const json& v = f[keys[i]];
            if (!v.is_number()) return "expected a number";
            x[i] = v.get<float>();
            if (!std::isfinite(x[i])) return "not a finite number";
            if (!(x[i] > 0.0f)) return "must be > 0";
        }
        where.clear();
        return set_filter(rp, f["type"].get<std::string>(), x[0], x[1]);
    }
    static json to_json(const RenderParams& rp, const SettingInfo&) {
        static const char* names[] = {"box", "box", "tent", "gaussian", "mitchell"};
        return json{{"type", rp.filter <= kFilterMitchell ? names[rp.filter] : "unknown"},
                    {"radius", rp.filter_radius},
                    {"sigma", rp.filter_sigma}};
    }
    static bool in_range(const RenderParams& rp, const SettingInfo& s) {
        return rp.filter <= kFilterMitchell && rp.filter_radius > s.lo && rp.filter_radius <= s.hi &&
               rp.filter_sigma > s.lo && rp.filter_sigma <= s.hi;
    }
};

// The crop: four members, x0, y0, x1, y1 (x1 == 0: none); its place in the image is crop_problem's (the render
// limits), as it ties the crop to width and height.
struct CropKind {
    static constexpr const char* metavar = "X0,Y0,X1,Y1";
    static constexpr const char* type = "x0,y0,x1,y1 (scene file: [x0, y0, x1, y1])";
    static constexpr const char* members = "uuuu";
    static std::string range(const SettingInfo& s) {
        return "(x0,y0,x1,y1 with 0 <= x0 < x1 <= width, 0 <= y0 < y1 <= height; none: the whole image" +
               WholeKind::note_of(s) + ")";
    }
    static void set_default(RenderParams&, const SettingInfo&) {}
    static void put(RenderParams& rp, const uint32_t c[4]) {
        rp.crop_x0 = c[0], rp.crop_y0 = c[1], rp.crop_x1 = c[2], rp.crop_y1 = c[3];
    }
    // "x0,y0,x1,y1" or "none"
    static std::string from_text(RenderParams& rp, const SettingInfo& s, const std::string& v) {
        uint32_t c[4] = {0, 0, 0, 0};
        if (v != "none") {
            size_t at = 0;
            for (int i = 0; i < 4; ++i) {
                const size_t comma = i < 3 ? v.find(',', at) : v.size();
                unsigned long long x = 0;
                if (comma == std::string::npos || !parse_whole(v.substr(at, comma - at), x))
                    return "'" + v + "' is not four whole numbers x0,y0,x1,y1 " + range(s);
                if (x > s.hi) return v + " is out of range " + range(s);
                c[i] = uint32_t(x);
                at = comma + 1;
            }
            if (!(c[0] < c[2] && c[1] < c[3])) return v + " is an empty rectangle " + range(s);
        }
        put(rp, c);
        return "";
    }
    static std::string to_text(const RenderParams& rp, const SettingInfo&) {
        if (rp.crop_x1 == 0) return "none";
        return std::to_string(rp.crop_x0) + "," + std::to_string(rp.crop_y0) + "," + std::to_string(rp.crop_x1) + "," +
               std::to_string(rp.crop_y1);
    }
    // [x0, y0, x1, y1]
    static std::string from_json(RenderParams& rp, const SettingInfo& s, const json& v, std::string& where) {
        if (!v.is_array() || v.size() != 4) return "expected [x0, y0, x1, y1] (pixels)";
        uint32_t c[4];
        for (size_t i = 0; i < 4; ++i) {
            where = "/" + std::to_string(i);
            if (std::string why = integer_problem(v[i], 0, (long long)s.hi); !why.empty()) return why;
            c[i] = uint32_t(v[i].get<long long>());
        }
        where.clear();
        if (!(c[0] < c[2] && c[1] < c[3])) return "an empty rectangle (x0 < x1 and y0 < y1 expected)";
        put(rp, c);
        return "";
    }
    static json to_json(const RenderParams& rp, const SettingInfo&) {
        if (rp.crop_x1 == 0) return nullptr;  // (none: not written)
        return json{rp.crop_x0, rp.crop_y0, rp.crop_x1, rp.crop_y1};
    }
    static bool in_range(const RenderParams& rp, const SettingInfo&) { return crop_problem(rp).empty(); }
};

// A named value: the names in the list's note, lo's first ("independent sobol").
struct ChoiceKind {
    static constexpr const char* metavar = "NAME";
    static constexpr const char* type = "name (scene file: a string)";
    static constexpr const char* members = "u";
    static std::string range(const SettingInfo& s) {
        const std::vector<std::string> names = choice_names(s);
        std::string t;
        for (size_t i = 0; i < names.size(); ++i) t += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
        return "(" + t + ")";
    }
    static void set_default(RenderParams& rp, const SettingInfo& s) { whole_of(rp, s) = uint32_t(s.def); }
    static std::string from_text(RenderParams& rp, const SettingInfo& s, const std::string& v) {
        const int x = choice_value(s, v);
        if (x < 0) return "'" + v + "' is not one of " + range(s);
        whole_of(rp, s) = uint32_t(x);
        return "";
    }
    static std::string to_text(const RenderParams& rp, const SettingInfo& s) {
        const std::vector<std::string> names = choice_names(s);
        const uint32_t x = whole_of(rp, s);
        return x >= s.lo && x - uint32_t(s.lo) < names.size() ? names[x - uint32_t(s.lo)] : std::to_string(x);
    }
    static std::string from_json(RenderParams& rp, const SettingInfo& s, const json& v, std::string&) {
        const int x = v.is_string() ? choice_value(s, v.get<std::string>()) : -1;
        if (x < 0) return "expected one of " + range(s) + ", got " + v.dump();
        whole_of(rp, s) = uint32_t(x);
        return "";
    }
    static json to_json(const RenderParams& rp, const SettingInfo& s) { return to_text(rp, s); }
    static bool in_range(const RenderParams& rp, const SettingInfo& s) { return WholeKind::in_range(rp, s); }
};

struct KindOps {
    const char* metavar;  // the command line's placeholder
    const char* type;
    const char* members;
    std::string (*range)(const SettingInfo&);
    void (*set_default)(RenderParams&, const SettingInfo&);
    std::string (*from_text)(RenderParams&, const SettingInfo&, const std::string&);
    std::string (*to_text)(const RenderParams&, const SettingInfo&);
    std::string (*from_json)(RenderParams&, const SettingInfo&, const json&, std::string&);
    json (*to_json)(const RenderParams&, const SettingInfo&);
    bool (*in_range)(const RenderParams&, const SettingInfo&);
};
template <class K>
constexpr KindOps ops_of() {
    return {K::metavar,   K::type,    K::members,   K::range,   K::set_default,
            K::from_text, K::to_text, K::from_json, K::to_json, K::in_range};
}
// By SettingKind, in its order.
constexpr KindOps kKinds[] = {ops_of<WholeKind>(),  ops_of<FlagKind>(), ops_of<RealKind>(),
                              ops_of<FilterKind>(), ops_of<CropKind>(), ops_of<ChoiceKind>()};
const KindOps& ops(const SettingInfo& s) { return kKinds[int(s.kind)]; }

// Each kind's members lie where its `members` says: equality and copy walk them as 4-byte words.
#define WP_SETTING_LAYOUT(K, member, name, ...) \
    static_assert(sizeof(RenderParams::WP_SETTING_FIRST_##K(member)) == 4, #name);
#define WP_SETTING_FIRST_WHOLE(member) member
#define WP_SETTING_FIRST_FLAG(member) member
#define WP_SETTING_FIRST_REAL(member) member
#define WP_SETTING_FIRST_FILTER(member) member
#define WP_SETTING_FIRST_CROP(member) member##_x0
#define WP_SETTING_FIRST_CHOICE(member) member
WP_RENDER_SETTINGS(WP_SETTING_LAYOUT)
#undef WP_SETTING_LAYOUT
static_assert(offsetof(RenderParams, filter_radius) == offsetof(RenderParams, filter) + 4 &&
              offsetof(RenderParams, filter_sigma) == offsetof(RenderParams, filter) + 8);
static_assert(offsetof(RenderParams, crop_y0) == offsetof(RenderParams, crop_x0) + 4 &&
              offsetof(RenderParams, crop_x1) == offsetof(RenderParams, crop_x0) + 8 &&
              offsetof(RenderParams, crop_y1) == offsetof(RenderParams, crop_x0) + 12);

}  // namespace

// The members by offset: each kind's member type is fixed (uint32_t for Whole, Flag and the filter's type, float
// for Real), so the table needs no accessor per setting.
uint32_t& setting_u32(RenderParams& rp, const SettingInfo& s) {
    return *reinterpret_cast<uint32_t*>(reinterpret_cast<char*>(&rp) + s.offset);
}
uint32_t setting_u32(const RenderParams& rp, const SettingInfo& s) {
    return *reinterpret_cast<const uint32_t*>(reinterpret_cast<const char*>(&rp) + s.offset);
}
float& setting_f32(RenderParams& rp, const SettingInfo& s) {
    return *reinterpret_cast<float*>(reinterpret_cast<char*>(&rp) + s.offset);
}
float setting_f32(const RenderParams& rp, const SettingInfo& s) {
    return *reinterpret_cast<const float*>(reinterpret_cast<const char*>(&rp) + s.offset);
}

const std::vector<SettingInfo>& render_settings() {
    static const std::vector<SettingInfo> list{WP_RENDER_SETTINGS(WP_SETTING_INFO)};
    return list;
}

const SettingInfo* find_setting(const std::string& name) {
    for (const SettingInfo& s : render_settings())
        if (name == s.name) return &s;
    return nullptr;
}

std::string setting_names() {
    std::string n;
    for (const SettingInfo& s : render_settings()) n += (n.empty() ? "" : ", ") + std::string(s.name);
    return n;
}

std::vector<std::string> choice_names(const SettingInfo& s) {
    std::vector<std::string> names;
    for (const char* p = s.note; *p;) {
        const char* e = std::strchr(p, ' ');
        if (!e) e = p + std::strlen(p);
        names.emplace_back(p, e);
        p = *e ? e + 1 : e;
    }
    return names;
}

int choice_value(const SettingInfo& s, const std::string& name) {
    const std::vector<std::string> names = choice_names(s);
    for (size_t i = 0; i < names.size(); ++i)
        if (names[i] == name) return int(s.lo) + int(i);
    return -1;
}

std::string setting_range_text(const SettingInfo& s) { return ops(s).range(s); }
const char* setting_metavar(const SettingInfo& s) { return ops(s).metavar; }

void put_setting_value(RenderParams& rp, const SettingInfo& s, uint32_t v) { whole_of(rp, s) = v; }
void put_setting_value(RenderParams& rp, const SettingInfo& s, float v) { real_of(rp, s) = v; }
void put_setting_value(RenderParams& rp, const SettingInfo& s, const std::string& v) { set_setting(rp, s, v); }
void get_setting_value(const RenderParams& rp, const SettingInfo& s, const std::string&, uint32_t& v) {
    v = whole_of(rp, s);
}
void get_setting_value(const RenderParams& rp, const SettingInfo& s, const std::string&, float& v) {
    v = real_of(rp, s);
}
void get_setting_value(const RenderParams&, const SettingInfo&, const std::string& text, std::string& v) { v = text; }

std::string setting_value_problem(const SettingInfo& s, const std::string& v) {
    RenderParams rp;
    return set_setting(rp, s, v);
}

std::string set_setting(RenderParams& rp, const SettingInfo& s, const std::string& v) {
    return ops(s).from_text(rp, s, v);
}

std::string setting_text(const RenderParams& rp, const SettingInfo& s) { return ops(s).to_text(rp, s); }

nlohmann::json setting_json(const RenderParams& rp, const SettingInfo& s) { return ops(s).to_json(rp, s); }

std::string set_setting_json(RenderParams& rp, const SettingInfo& s, const nlohmann::json& v, std::string& where) {
    where.clear();
    return ops(s).from_json(rp, s, v, where);
}

std::string apply_setting(RenderParams& rp, const std::string& name, const std::string& text) {
    const SettingInfo* s = find_setting(name);
    if (!s) return "unknown setting '" + name + "' (settings: " + setting_names() + ")";
    if (std::string why = set_setting(rp, *s, text); !why.empty()) return name + ": " + why;
    return "";
}

std::string apply_setting_json(RenderParams& rp, const std::string& name, const nlohmann::json& v) {
    const SettingInfo* s = find_setting(name);
    if (!s) return "unknown setting '" + name + "' (settings: " + setting_names() + ")";
    std::string where;
    if (std::string why = set_setting_json(rp, *s, v, where); !why.empty()) return name + where + ": " + why;
    return "";
}

nlohmann::json render_block(const RenderParams& rp) {
    json j = json::object();
    for (const SettingInfo& s : render_settings())
        if (json v = setting_json(rp, s); !v.is_null()) j[s.name] = std::move(v);
    return j;
}

void read_render_block(const nlohmann::json& block, const std::string& pointer, RenderParams& rp,
                       const SettingFail& fail, bool all_required) {
    if (!block.is_object()) fail(pointer, "expected an object");
    std::set<std::string> keys;
    for (const SettingInfo& s : render_settings()) keys.insert(s.name);
    for (auto it = block.begin(); it != block.end(); ++it)
        if (!keys.count(it.key())) fail(pointer + "/" + pointer_escape(it.key()), unknown_key(it.key(), keys));
    const RenderParams defaults = default_settings();
    rp = defaults;
    for (const SettingInfo& s : render_settings()) {
        const std::string ptr = pointer + "/" + s.name;
        if (!block.contains(s.name)) {
            if (all_required && !setting_json(defaults, s).is_null()) fail(ptr, "missing");
            continue;
        }
        std::string where;
        if (std::string why = set_setting_json(rp, s, block[s.name], where); !why.empty()) fail(ptr + where, why);
    }
}

// The members of `s` (its kind's `members`) as 4-byte words, compared (floats as floats) and copied.
bool same_setting(const RenderParams& a, const RenderParams& b, const SettingInfo& s) {
    const char* pa = reinterpret_cast<const char*>(&a) + s.offset;
    const char* pb = reinterpret_cast<const char*>(&b) + s.offset;
    for (const char* m = ops(s).members; *m; ++m, pa += 4, pb += 4) {
        if (*m == 'f' ? *reinterpret_cast<const float*>(pa) != *reinterpret_cast<const float*>(pb)
                      : *reinterpret_cast<const uint32_t*>(pa) != *reinterpret_cast<const uint32_t*>(pb))
            return false;
    }
    return true;
}

void copy_setting(RenderParams& to, const RenderParams& from, const SettingInfo& s) {
    std::memcpy(reinterpret_cast<char*>(&to) + s.offset, reinterpret_cast<const char*>(&from) + s.offset,
                4 * std::strlen(ops(s).members));
}

std::string setting_range_problem(const RenderParams& rp) {
    for (const SettingInfo& s : render_settings()) {
        if (ops(s).in_range(rp, s)) continue;
        if (s.kind == SettingKind::Crop) return crop_problem(rp);  // (names the image's size)
        return std::string(s.name) + " " + setting_text(rp, s) + " out of range " + setting_range_text(s);
    }
    return "";
}

std::string settings_difference(const RenderParams& a, const RenderParams& b) {
    std::string d;
    for (const SettingInfo& s : render_settings())
        if (!same_setting(a, b, s))
            d +=
                (d.empty() ? "" : ", ") + std::string(s.name) + " " + setting_text(a, s) + " and " + setting_text(b, s);
    return d;
}

std::vector<std::pair<std::string, std::string>> settings_metadata(const RenderParams& rp) {
    std::vector<std::pair<std::string, std::string>> m;
    for (const SettingInfo& s : render_settings())
        if (std::string(s.name) != "spp") m.emplace_back("wavepath:" + std::string(s.name), setting_text(rp, s));
    return m;
}

std::string crop_problem(const RenderParams& rp) {
    if (rp.crop_x1 == 0 && rp.crop_x0 == 0 && rp.crop_y0 == 0 && rp.crop_y1 == 0) return "";
    if (rp.crop_x0 < rp.crop_x1 && rp.crop_x1 <= rp.width && rp.crop_y0 < rp.crop_y1 && rp.crop_y1 <= rp.height)
        return "";
    return "crop " + std::to_string(rp.crop_x0) + "," + std::to_string(rp.crop_y0) + "," + std::to_string(rp.crop_x1) +
           "," + std::to_string(rp.crop_y1) + " is not inside the " + std::to_string(rp.width) + "x" +
           std::to_string(rp.height) + " image (0 <= x0 < x1 <= width, 0 <= y0 < y1 <= height)";
}

RenderParams crop_for_render(const RenderParams& rp) {
    RenderParams r = rp;
    if (rp.crop_x1 == 0 || rp.full_width) return r;
    r.full_width = rp.width, r.full_height = rp.height;
    r.width = rp.crop_x1 - rp.crop_x0, r.height = rp.crop_y1 - rp.crop_y0;
    return r;
}

RenderParams crop_settings(const RenderParams& rp) {
    RenderParams r = rp;
    if (!rp.full_width) return r;
    r.width = rp.full_width, r.height = rp.full_height;
    r.full_width = r.full_height = 0;
    return r;
}

RenderParams default_settings() {
    RenderParams rp;
    for (const SettingInfo& s : render_settings()) ops(s).set_default(rp, s);
    return rp;
}

RenderParams settings_of_older_films() {
    RenderParams rp;
    rp.sampler = kSamplerIndependent;
    return rp;
}

nlohmann::json settings_description() {
    static const char* kinds[] = {"whole", "flag", "real", "filter", "crop", "choice"};
    const RenderParams d = default_settings();
    json list = json::array();
    for (const SettingInfo& s : render_settings()) {
        json j{{"name", s.name},  {"kind", kinds[int(s.kind)]},    {"flag", s.flag}, {"minimum", s.lo},
               {"maximum", s.hi}, {"default", setting_json(d, s)}, {"help", s.help}};
        if (s.kind == SettingKind::Choice) j["values"] = choice_names(s);
        list.push_back(j);
    }
    return list;
}

std::string settings_markdown() {
    const RenderParams d = default_settings();
    std::string t =
        "| name | flag | scene key | type | default | range | help |\n"
        "|------|------|-----------|------|---------|-------|------|\n";
    for (const SettingInfo& s : render_settings()) {
        std::string help = s.help;
        for (size_t i = 0; (i = help.find('|', i)) != std::string::npos; i += 2) help.replace(i, 1, "\\|");
        t += "| `" + std::string(s.name) + "` | `" + s.flag + "` | `render." + s.name + "` | " + ops(s).type + " | " +
             setting_text(d, s) + " | " + setting_range_text(s) + " | " + help + " |\n";
    }
    return t;
}

}  // namespace wp
