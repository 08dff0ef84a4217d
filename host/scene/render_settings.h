// The list of render settings (kernels/render_params.h, WP_RENDER_SETTINGS) as a table the host walks: by name, with
// each setting's value as text and as JSON, its range check and its messages, for every place a setting lives
// besides RenderParams itself: the command line (its options and --set), the scene overrides, the render limits, the
// render block of a native scene file and of a film header (one reader), the image metadata and docs/OPTIONS.md.
// Each kind's behaviour (text in and out, JSON in and out, range, equality and copy) is written once, in one struct
// per kind in render_settings.cpp; the functions below dispatch to it.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <utility>
#include <vector>
#include "kernels/scene_view.h"

namespace wp {

enum class SettingKind { Whole, Flag, Real, Filter, Crop, Choice };

// One line of the list.
struct SettingInfo {
    const char* name;  // the setting's name: scene file key (render.NAME), film header key, --set NAME
    SettingKind kind;
    size_t offset;     // of its RenderParams member (the first of the filter's three)
    double def;        // a native scene file's default (Filter: unused, the pixel box)
    double lo, hi;     // the range, inclusive (Filter: the radius, (lo, hi])
    const char* note;  // said with the range ("0: off"), or ""; Choice: the values' names ("independent sobol")
    const char* flag;  // the command-line option, "--max-depth"
    const char* help;
};

// A setting's value as code outside RenderParams holds it (the command line's overrides: SceneOverrides), by kind:
// its member's type, or its text where it has several members (the filter, the crop).
#define WP_SETTING_VALUE_WHOLE uint32_t
#define WP_SETTING_VALUE_FLAG uint32_t
#define WP_SETTING_VALUE_REAL float
#define WP_SETTING_VALUE_FILTER std::string
#define WP_SETTING_VALUE_CROP std::string
#define WP_SETTING_VALUE_CHOICE uint32_t
// That value into rp's members (a text through set_setting: a wrong one leaves rp as it is, check it first with
// setting_value_problem), and out of rp's members once `text` was set there (a text value: `text` itself, as given).
void put_setting_value(RenderParams& rp, const SettingInfo& s, uint32_t v);
void put_setting_value(RenderParams& rp, const SettingInfo& s, float v);
void put_setting_value(RenderParams& rp, const SettingInfo& s, const std::string& v);
void get_setting_value(const RenderParams& rp, const SettingInfo& s, const std::string& text, uint32_t& v);
void get_setting_value(const RenderParams& rp, const SettingInfo& s, const std::string& text, float& v);
void get_setting_value(const RenderParams& rp, const SettingInfo& s, const std::string& text, std::string& v);
// The command line's placeholder of the setting's value: "N", "X", "0|1", "TYPE[:RADIUS]", "X0,Y0,X1,Y1", "NAME".
const char* setting_metavar(const SettingInfo& s);

// A Whole, Flag or Choice setting's member (uint32_t), a Real one's (float), by the list's offset.
uint32_t& setting_u32(RenderParams& rp, const SettingInfo& s);
uint32_t setting_u32(const RenderParams& rp, const SettingInfo& s);
float& setting_f32(RenderParams& rp, const SettingInfo& s);
float setting_f32(const RenderParams& rp, const SettingInfo& s);

// The list, in its order.
const std::vector<SettingInfo>& render_settings();
// The setting of this name, or nullptr.
const SettingInfo* find_setting(const std::string& name);
// "width, height, spp, ...": the names, for the message of an unknown one.
std::string setting_names();

// A Choice setting's names, value lo's first ({"independent", "sobol"}); the value of a name, or -1.
std::vector<std::string> choice_names(const SettingInfo& s);
int choice_value(const SettingInfo& s, const std::string& name);

// "(1 to 1024)", "(0 to 1e+30; 0: off)", "(0 or 1)", "(box, tent, gaussian, mitchell; radius (0, 8])", "(independent
// or sobol)": the range in the words of the messages.
std::string setting_range_text(const SettingInfo& s);
// "" when `text` is a value of `s` within its range; otherwise what is wrong, in the command line's words:
// "'x' is not a whole number (1 to 1024)", "5000 is out of range (1 to 1024)".
std::string setting_value_problem(const SettingInfo& s, const std::string& text);
// `text` (checked as above) into rp's member; "" or what is wrong.
std::string set_setting(RenderParams& rp, const SettingInfo& s, const std::string& text);
// The setting's value in rp as text: "512", "0.5", "tent 1" (filter_text), "0"/"1" for a flag, the name of a
// choice ("sobol").
std::string setting_text(const RenderParams& rp, const SettingInfo& s);
// The setting's value in a render block's form (a native scene file's render.NAME, a film header's): 512, 0.5,
// true, "sobol", {"type": "tent", "radius": 1, "sigma": 0.5}, [x0, y0, x1, y1]; null where it is not written (no
// crop).
nlohmann::json setting_json(const RenderParams& rp, const SettingInfo& s);
// `v` (a render block's form; the filter also as a name) into rp's member: "" or what is wrong, `where` the JSON
// pointer of the problem below the setting's ("/2": the crop's third number; "" the value itself).
std::string set_setting_json(RenderParams& rp, const SettingInfo& s, const nlohmann::json& v, std::string& where);
// A setting by its name from text (as --set) or from JSON (as a render block): "" or what is wrong, naming the setting
// ("max_depth: 5000 is out of range (1 to 1024)", "unknown setting 'x' (settings: ...)"). The one entry point for a
// caller that holds names (the Python module).
std::string apply_setting(RenderParams& rp, const std::string& name, const std::string& text);
std::string apply_setting_json(RenderParams& rp, const std::string& name, const nlohmann::json& v);
// Every setting of rp as a render block ({"width": 512, ...}; a film header's "render").
nlohmann::json render_block(const RenderParams& rp);
// A render block into rp: every setting it gives, checked, the others the list's defaults (all_required: a setting
// written whenever it has a value is "missing" when absent: a film header's). A problem calls fail(JSON pointer,
// what), which must throw: "/render/max_depth", "5000 is out of range (an integer from 1 to 1024)". Unknown keys are
// problems too (with the nearest name).
using SettingFail = std::function<void(const std::string& pointer, const std::string& what)>;
void read_render_block(const nlohmann::json& block, const std::string& pointer, RenderParams& rp,
                       const SettingFail& fail, bool all_required = false);
// Whether a and b have the same value of `s`, and the copy of it from `from`.
bool same_setting(const RenderParams& a, const RenderParams& b, const SettingInfo& s);
void copy_setting(RenderParams& to, const RenderParams& from, const SettingInfo& s);
// The settings as image metadata: "wavepath:NAME" and the value's text, every setting but spp (the metadata's
// "wavepath:spp" is the samples per pixel the image holds, fewer than the setting's when interrupted).
std::vector<std::pair<std::string, std::string>> settings_metadata(const RenderParams& rp);
// "" when every setting of rp is within its range; else the first that is not, "max_depth 5000 out of range (1 to
// 1024)" (render_limits_problem adds the limits that tie settings together: pixels, samples).
std::string setting_range_problem(const RenderParams& rp);
// "spp 64 and 32, filter tent 1 and box 0.5": the settings in which a and b differ ("" when none).
std::string settings_difference(const RenderParams& a, const RenderParams& b);
// A crop as the renderers take it (RenderParams::full_width): width x height become the crop's, full_width x
// full_height the image's. Without a crop, or already so, rp as it is. crop_settings is the inverse: the settings as
// given (width x height the full image's), for the film header, its comparisons, the metadata and resume.
RenderParams crop_for_render(const RenderParams& rp);
RenderParams crop_settings(const RenderParams& rp);
// "" when rp's crop (settings form) lies in its image, else "crop 0,0,100,8 is not inside the 64x64 image (0 <= x0 <
// x1 <= width, 0 <= y0 < y1 <= height)".
std::string crop_problem(const RenderParams& rp);

// RenderParams with every setting at a native scene file's default (the list's def column).
RenderParams default_settings();
// The settings a film header made before a setting existed was rendered with, for the settings it lacks: RenderParams{}
// but the sampler, independent (every film before the `sampler` setting; RenderParams{}'s is sobol).
RenderParams settings_of_older_films();

// docs/OPTIONS.md's table (`wavepath settings --markdown`), one row per setting: name, flag, scene key, type,
// default, range, help. A test compares it with the file.
std::string settings_markdown();
// The list as JSON (`wavepath settings --json`): per setting its name, kind, flag, range (minimum, maximum), default
// in a render block's form, help and a choice's values; tests/check_options_doc.sh checks the scene schema's render
// block against it.
nlohmann::json settings_description();

}  // namespace wp
