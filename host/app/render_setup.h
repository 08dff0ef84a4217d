// What `wavepath render` and `wavepath bench` share before a render starts: the command line's render settings
// (one struct, filled by one set of options in host/app/main.cpp), their application to a loaded scene, and the
// check of the render limits on the result. Header-only (inline) so that the app library needs no new source.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>
#include "host/app/cli_support.h"
#include "host/render/render.h"
#include "host/scene/render_limits.h"
#include "host/scene/render_settings.h"
#include "host/scene/scene_json.h"
#include "kernels/aov.h"
#include "kernels/wavefront_queues.h"

namespace wp {

// The command line's overrides of a scene's own render settings, one optional per setting of the list
// (kernels/render_params.h) by its name, of its kind's value type (render_settings.h: WP_SETTING_VALUE_*; the filter
// and the crop are their text); unset: the scene's.
#define WP_OVERRIDE_MEMBER(K, member, name, ...) std::optional<WP_SETTING_VALUE_##K> name;
struct SceneOverrides {
    WP_RENDER_SETTINGS(WP_OVERRIDE_MEMBER)
};
#undef WP_OVERRIDE_MEMBER

// Whether the command line gives setting `name` (an option or --set).
inline bool override_given(const SceneOverrides& o, const std::string& name) {
#define WP_OVERRIDE_GIVEN(K, member, n, ...) \
    if (name == #n) return o.n.has_value();
    WP_RENDER_SETTINGS(WP_OVERRIDE_GIVEN)
#undef WP_OVERRIDE_GIVEN
    return false;
}

// --set NAME=VALUE into the overrides: "" or what is wrong, naming the setting and its range (an unknown name: the
// names there are). A setting given twice (by --set and its own option, or two --set) is an error too.
inline std::string set_override(SceneOverrides& o, const std::string& assignment) {
    const size_t eq = assignment.find('=');
    const std::string name = assignment.substr(0, eq);
    if (eq == std::string::npos) return "'" + assignment + "' is not NAME=VALUE (settings: " + setting_names() + ")";
    const SettingInfo* s = find_setting(name);
    if (!s) return "unknown setting '" + name + "' (settings: " + setting_names() + ")";
    const std::string value = assignment.substr(eq + 1);
    RenderParams rp;
    if (std::string why = set_setting(rp, *s, value); !why.empty()) return name + ": " + why;
    if (override_given(o, name)) return name + " is given twice (by --set and " + s->flag + ", or two --set)";
#define WP_OVERRIDE_SET(K, member, n, ...) \
    if (name == #n) get_setting_value(rp, *s, value, o.n.emplace());
    WP_RENDER_SETTINGS(WP_OVERRIDE_SET)
#undef WP_OVERRIDE_SET
    return "";
}

// Everything a render takes from the command line besides the scene.
struct RenderSettings {
    std::string backend = "auto";  // gpu, cpu, auto (the GPU when present)
    SceneOverrides scene;
    // strict: every importer warning is an error (--strict); the tree's knobs and memory check from the environment
    LoadOptions load = load_options_from_env();
    RenderOptions options;          // threads, capacity, sort_materials, drain_below, push_compaction, refill, ...
    std::vector<std::string> sets;  // --set NAME=VALUE, applied to `scene` once the command line is read
    std::string devices;            // --devices: "all" or a list, resolved into options.devices (parse_devices)
    bool devices_given = false;
};

// Overrides applied to a scene's settings and camera; a new width or height sets the camera's aspect to match.
inline void apply_overrides(RenderParams& rp, CameraData& camera, const SceneOverrides& o) {
#define WP_OVERRIDE_APPLY(K, member, n, ...) \
    if (o.n) put_setting_value(rp, *find_setting(#n), *o.n);
    WP_RENDER_SETTINGS(WP_OVERRIDE_APPLY)
#undef WP_OVERRIDE_APPLY
    if (o.width || o.height) camera.aspect = float(rp.width) / float(rp.height);
}
inline void apply_overrides(LoadedScene& ls, const SceneOverrides& o) { apply_overrides(ls.params, ls.data.camera, o); }

// A --crop (or --set crop=) of the command line outside the image it renders: a usage error (exit 2) naming the
// crop and the image's size, "scene.json: --crop 0,0,100,8 is not inside the 64x64 image (...)". A crop of the
// scene file's own is the scene's error (render_limits_problem).
inline void check_given_crop(const std::string& path, const SceneOverrides& o, const RenderParams& rp) {
    if (!o.crop) return;
    if (std::string why = crop_problem(rp); !why.empty()) throw UsageError(path + ": --" + why);
}

// The one way a command-line render starts: the scene loaded (any format), the overrides applied and the result
// checked against the render limits. Throws SceneError naming the file: "<path>: max_depth 5000 out of range
// (1 to 1024)"; UsageError for a --crop outside the image (check_given_crop). ready_render_scene is its second half,
// for a scene loaded otherwise (the Python module's dicts: load_scene_json_text).
inline LoadedScene ready_render_scene(LoadedScene ls, const std::string& path, const SceneOverrides& o) {
    apply_overrides(ls, o);
    check_given_crop(path, o, ls.params);
    if (std::string why = render_limits_problem(ls.params); !why.empty()) throw SceneError(path + ": " + why);
    ls.params = crop_for_render(ls.params);  // (the renderers' form of a crop: width x height the crop's)
    return ls;
}
inline LoadedScene load_render_scene(const std::string& path, const SceneOverrides& o, const LoadOptions& lo = {}) {
    return ready_render_scene(load_scene_json(path, lo), path, o);
}

// A loaded scene's settings (load_render_scene's: a crop in the renderers' form) with more overrides, for another
// render of the same scene (the Python module's render(settings=...)): the settings as given (crop_settings), the
// overrides applied (a new width or height: `camera`'s aspect too), the limits checked, a crop in the renderers'
// form. Throws SceneError (UsageError for a crop outside the image) naming `path`, as load_render_scene.
inline RenderParams override_loaded(const std::string& path, const RenderParams& loaded, CameraData& camera,
                                    const SceneOverrides& o) {
    RenderParams rp = crop_settings(loaded);
    apply_overrides(rp, camera, o);
    check_given_crop(path, o, rp);
    if (std::string why = render_limits_problem(rp); !why.empty()) throw SceneError(path + ": " + why);
    return crop_for_render(rp);
}

// The load's phases, wall clock: "loading scenes/dragon.json: parse 0.41 s, BVH 500002 primitives in 0.62 s
// (0.81 M/s, SAH cost 41.2); BVH memory forecast 120.0 MiB, measured 90.0 MiB" (the build's peak over the resident
// memory before it; "within the earlier peak" when the parse's was higher). Parse is everything of load_scene_json but the tree (reading, parsing, meshes,
// textures, the scene's arrays). `wavepath render` prints it to stderr when a phase took over a second, or with
// --stats.
inline std::string load_line(const std::string& path, const LoadedScene& ls) {
    const BVHBuildStats& b = ls.data.bvh_stats;
    const double parse = std::max(0.0, ls.load_seconds - b.seconds);
    char s[256];
    std::snprintf(s, sizeof s, "parse %.2f s, BVH %u primitives in %.2f s (%.2f M/s, SAH cost %.1f)", parse,
                  b.primitives, b.seconds, b.seconds > 0.0 ? 1e-6 * b.primitives / b.seconds : 0.0, b.sah_cost);
    // the build's memory forecast (checked before it against the memory available) beside what it took
    const std::string memory =
        "; BVH memory forecast " + bytes_text(b.forecast_bytes) + ", measured " +
        (b.measured_bytes ? bytes_text(b.measured_bytes) : std::string("within the earlier peak"));
    return "loading " + path + ": " + s + memory;
}
inline bool load_was_slow(const LoadedScene& ls) {
    return ls.load_seconds - ls.data.bvh_stats.seconds > 1.0 || ls.data.bvh_stats.seconds > 1.0;
}

// Host memory a render of a loaded scene allocates besides the scene itself, in bytes: the film's sums and their
// copy in the partial film, the image (3 floats a pixel) and its copy for the writer, the AOVs' sums and images,
// and on the CPU the wavefront's queues; times `images` (--mode both keeps both). `what` gets the breakdown
// ("film 6.0 GiB, image 3.0 GiB, ..."). An estimate to check before the render (render_memory_problem).
inline uint64_t render_host_bytes(Backend be, const RenderParams& rp, const RenderOptions& opt, bool wavefront,
                                  unsigned images, std::string* what) {
    const uint64_t np = rp.num_pixels();
    const uint64_t film = 2 * 3ull * sizeof(unsigned long long) * rp.film_pixels();
    const uint64_t image = 2 * 3ull * sizeof(float) * np;
    const uint64_t aovs = uint64_t(aov_channels(opt.aovs)) * (sizeof(unsigned long long) + sizeof(float)) * np;
    uint64_t queues = 0;
    if (be == Backend::Cpu && wavefront) {
        QueueConfig qc;
        qc.sort_materials = opt.sort_materials;
        qc.push = opt.push_compaction;
        const uint64_t total = np * rp.spp;
        queues = queue_bytes_per_path(qc) *
                 std::min<uint64_t>(opt.capacity ? opt.capacity : kDefaultCpuCapacity, std::max<uint64_t>(total, 1));
    }
    if (what) {
        *what = "film " + bytes_text(film * images) + ", image " + bytes_text(image * images);
        if (aovs) *what += ", AOVs " + bytes_text(aovs * images);
        if (queues) *what += ", path queues " + bytes_text(queues);
    }
    return (film + image + aovs) * images + queues;
}

// --devices against the backend and the GPUs visible (into options.devices): "" when good or not given, else the
// problem (a usage error).
inline std::string devices_problem(RenderSettings& rs) {
    if (!rs.devices_given) return "";
    if (rs.backend == "cpu")
        return "--devices picks CUDA GPUs: not with --backend cpu (--threads sets the CPU's threads)";
    return parse_devices(rs.devices, gpu_device_count(), rs.options.devices);
}

}  // namespace wp
