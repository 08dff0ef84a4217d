#include "host/scene/render_settings.h"
#include <cmath>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include "host/scene/render_limits.h"
#include "kernels/filter.h"

namespace wp {
namespace {

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
std::string set_crop(RenderParams& rp, const SettingInfo& s, const std::string& v);

bool parse_flag(const std::string& v, uint32_t& x) {
    if (v == "1" || v == "true") return x = 1, true;
    if (v == "0" || v == "false") return x = 0, true;
    return false;
}

// "x0,y0,x1,y1" or "none" into rp's crop; the rectangle's place in the image is crop_problem's (the render limits).
std::string set_crop(RenderParams& rp, const SettingInfo& s, const std::string& v) {
    const std::string range = setting_range_text(s);
    uint32_t c[4] = {0, 0, 0, 0};
    if (v != "none") {
        size_t at = 0;
        for (int i = 0; i < 4; ++i) {
            const size_t comma = i < 3 ? v.find(',', at) : v.size();
            unsigned long long x = 0;
            if (comma == std::string::npos || !parse_whole(v.substr(at, comma - at), x))
                return "'" + v + "' is not four whole numbers x0,y0,x1,y1 " + range;
            if (x > s.hi) return v + " is out of range " + range;
            c[i] = uint32_t(x);
            at = comma + 1;
        }
        if (!(c[0] < c[2] && c[1] < c[3])) return v + " is an empty rectangle " + range;
    }
    rp.crop_x0 = c[0], rp.crop_y0 = c[1], rp.crop_x1 = c[2], rp.crop_y1 = c[3];
    return "";
}

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

std::string setting_range_text(const SettingInfo& s) {
    const std::string note = *s.note && s.kind != SettingKind::Choice ? std::string("; ") + s.note : std::string();
    switch (s.kind) {
        case SettingKind::Whole:
            return "(" + std::to_string((unsigned long long)s.lo) + " to " + std::to_string((unsigned long long)s.hi) +
                   note + ")";
        case SettingKind::Flag: return "(0 or 1" + note + ")";
        case SettingKind::Real: return "(" + real_text(s.lo, false) + " to " + real_text(s.hi, false) + note + ")";
        case SettingKind::Filter:
            return "(box, tent, gaussian or mitchell, or TYPE:RADIUS with a radius in (0, " + real_text(s.hi, false) +
                   "] pixels" + note + ")";
        case SettingKind::Crop:
            return "(x0,y0,x1,y1 with 0 <= x0 < x1 <= width, 0 <= y0 < y1 <= height; none: the whole image" + note +
                   ")";
        case SettingKind::Choice: {
            const std::vector<std::string> names = choice_names(s);
            std::string t;
            for (size_t i = 0; i < names.size(); ++i)
                t += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
            return "(" + t + ")";
        }
    }
    return "";
}

std::string setting_value_problem(const SettingInfo& s, const std::string& v) {
    RenderParams rp;
    return set_setting(rp, s, v);
}

std::string set_setting(RenderParams& rp, const SettingInfo& s, const std::string& v) {
    const std::string range = setting_range_text(s);
    switch (s.kind) {
        case SettingKind::Whole: {
            unsigned long long x = 0;
            if (!parse_whole(v, x)) return "'" + v + "' is not a whole number " + range;
            if (double(x) < s.lo || double(x) > s.hi) return v + " is out of range " + range;
            whole_of(rp, s) = uint32_t(x);
            return "";
        }
        case SettingKind::Flag: {
            uint32_t x = 0;
            if (!parse_flag(v, x)) return "'" + v + "' is not 0 or 1 (false or true)";
            whole_of(rp, s) = x;
            return "";
        }
        case SettingKind::Real: {
            double x = 0.0;
            if (!parse_real(v, x)) return "'" + v + "' is not a number " + range;
            if (x < s.lo || x > s.hi) return v + " is out of range " + range;
            real_of(rp, s) = float(x);
            return "";
        }
        case SettingKind::Filter: return set_filter_spec(rp, v);
        case SettingKind::Crop: return set_crop(rp, s, v);
        case SettingKind::Choice: {
            const int x = choice_value(s, v);
            if (x < 0) return "'" + v + "' is not one of " + range;
            whole_of(rp, s) = uint32_t(x);
            return "";
        }
    }
    return "";
}

std::string setting_text(const RenderParams& rp, const SettingInfo& s) {
    switch (s.kind) {
        case SettingKind::Whole:
        case SettingKind::Flag: return std::to_string(whole_of(rp, s));
        case SettingKind::Real: return real_text(real_of(rp, s), true);
        case SettingKind::Filter: return filter_text(rp);
        case SettingKind::Crop:
            if (rp.crop_x1 == 0) return "none";
            return std::to_string(rp.crop_x0) + "," + std::to_string(rp.crop_y0) + "," + std::to_string(rp.crop_x1) +
                   "," + std::to_string(rp.crop_y1);
        case SettingKind::Choice: {
            const std::vector<std::string> names = choice_names(s);
            const uint32_t x = whole_of(rp, s);
            return x >= s.lo && x - uint32_t(s.lo) < names.size() ? names[x - uint32_t(s.lo)] : std::to_string(x);
        }
    }
    return "";
}

bool same_setting(const RenderParams& a, const RenderParams& b, const SettingInfo& s) {
    switch (s.kind) {
        case SettingKind::Whole:
        case SettingKind::Flag:
        case SettingKind::Choice: return whole_of(a, s) == whole_of(b, s);
        case SettingKind::Real: return real_of(a, s) == real_of(b, s);
        case SettingKind::Filter:
            return a.filter == b.filter && a.filter_radius == b.filter_radius && a.filter_sigma == b.filter_sigma;
        case SettingKind::Crop:
            return a.crop_x0 == b.crop_x0 && a.crop_y0 == b.crop_y0 && a.crop_x1 == b.crop_x1 && a.crop_y1 == b.crop_y1;
    }
    return true;
}

void copy_setting(RenderParams& to, const RenderParams& from, const SettingInfo& s) {
    switch (s.kind) {
        case SettingKind::Whole:
        case SettingKind::Flag:
        case SettingKind::Choice: whole_of(to, s) = whole_of(from, s); return;
        case SettingKind::Real: real_of(to, s) = real_of(from, s); return;
        case SettingKind::Filter:
            to.filter = from.filter, to.filter_radius = from.filter_radius, to.filter_sigma = from.filter_sigma;
            return;
        case SettingKind::Crop:
            to.crop_x0 = from.crop_x0, to.crop_y0 = from.crop_y0, to.crop_x1 = from.crop_x1, to.crop_y1 = from.crop_y1;
            return;
    }
}

std::string setting_range_problem(const RenderParams& rp) {
    for (const SettingInfo& s : render_settings()) {
        bool in = true;
        switch (s.kind) {
            case SettingKind::Whole:
            case SettingKind::Flag:
            case SettingKind::Choice: in = whole_of(rp, s) >= s.lo && whole_of(rp, s) <= s.hi; break;
            case SettingKind::Real: in = real_of(rp, s) >= s.lo && real_of(rp, s) <= s.hi; break;  // (NaN: out)
            case SettingKind::Filter:
                in = rp.filter <= kFilterMitchell && rp.filter_radius > s.lo && rp.filter_radius <= s.hi &&
                     rp.filter_sigma > s.lo && rp.filter_sigma <= s.hi;
                break;
            case SettingKind::Crop:
                if (std::string why = crop_problem(rp); !why.empty()) return why;
                break;
        }
        if (!in) return std::string(s.name) + " " + setting_text(rp, s) + " out of range " + setting_range_text(s);
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
    for (const SettingInfo& s : render_settings()) {
        if (s.kind == SettingKind::Whole || s.kind == SettingKind::Flag || s.kind == SettingKind::Choice)
            whole_of(rp, s) = uint32_t(s.def);
        if (s.kind == SettingKind::Real) real_of(rp, s) = float(s.def);
    }
    return rp;
}

RenderParams settings_of_older_films() {
    RenderParams rp;
    rp.sampler = kSamplerIndependent;
    return rp;
}

std::string settings_markdown() {
    static const char* types[] = {
        "whole number", "0 or 1 (scene file: false or true)",         "number",
        "filter",       "x0,y0,x1,y1 (scene file: [x0, y0, x1, y1])", "name (scene file: a string)"};
    const RenderParams d = default_settings();
    std::string t =
        "| name | flag | scene key | type | default | range | help |\n"
        "|------|------|-----------|------|---------|-------|------|\n";
    for (const SettingInfo& s : render_settings()) {
        std::string help = s.help;
        for (size_t i = 0; (i = help.find('|', i)) != std::string::npos; i += 2) help.replace(i, 1, "\\|");
        t += "| `" + std::string(s.name) + "` | `" + s.flag + "` | `render." + s.name + "` | " + types[int(s.kind)] +
             " | " + setting_text(d, s) + " | " + setting_range_text(s) + " | " + help + " |\n";
    }
    return t;
}

}  // namespace wp
