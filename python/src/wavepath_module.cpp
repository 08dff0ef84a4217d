// The Python module `wavepath._wavepath` (nanobind): a thin layer over the host API, the same calls the command line
// makes. A scene is loaded and checked as `wavepath render` loads it (load_render_scene; a dict's text through
// load_scene_json_text), rendered by wp::render into memory (the image as a NumPy array, no file), and benchmarked
// by run_bench (its JSON document as text). Every render and bench runs on a thread of its own with the GIL released
// while the calling thread polls Python's signals and the progress callable: Ctrl-C sets the renderers' cancel flag
// (the CLI's SIGINT path: the paths in flight finished, then KeyboardInterrupt, nothing returned). The package's
// Python side (python/wavepath/__init__.py) turns values into setting text, warnings into `warnings.warn` and the
// bench's text into dicts.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>
#include <utility>

#include "host/app/bench.h"
#include "host/app/render_setup.h"
#include "host/render/render.h"
#include "host/render/render_common.h"
#include "host/scene/scene_json.h"
#include "kernels/aov.h"
#include "kernels/features.h"

namespace nb = nanobind;
using namespace nb::literals;

namespace wp {
namespace {

using Settings = std::vector<std::pair<std::string, std::string>>;  // setting name, value as text

// The overrides of `settings` (names of docs/OPTIONS.md, values as the command line's --set takes them); an unknown
// name or a value out of range raises ValueError with --set's message.
SceneOverrides overrides_of(const Settings& settings) {
    SceneOverrides o;
    for (const auto& [name, value] : settings)
        if (std::string why = set_override(o, name + "=" + value); !why.empty()) throw std::invalid_argument(why);
    return o;
}

// A loaded scene: as load_render_scene leaves it (the load's settings applied and checked, a crop in the renderers'
// form) and the name its messages give.
struct PyScene {
    std::string path;
    LoadedScene ls;
};

PyScene load_file(const std::string& path, const Settings& settings, bool strict) {
    LoadOptions lo = load_options_from_env();
    lo.strict = strict;
    const SceneOverrides o = overrides_of(settings);
    nb::gil_scoped_release release;  // (a load of seconds lets other Python threads run)
    return PyScene{path, load_render_scene(path, o, lo)};
}

// A scene given as native JSON text (a dict, dumped by the Python side), named `path` (relative files under its
// folder), then the same overrides and checks as a file's.
PyScene load_text(const std::string& text, const std::string& path, const Settings& settings, bool strict) {
    LoadOptions lo = load_options_from_env();
    lo.strict = strict;
    const SceneOverrides o = overrides_of(settings);
    nb::gil_scoped_release release;
    return PyScene{path, ready_render_scene(load_scene_json_text(text, path, lo), path, o)};
}

// Work that a Python call waits for: run on a thread of its own with the GIL released; every 50 ms the calling
// thread takes the GIL, checks Python's signals (Ctrl-C) and calls `progress(done, total)` when the count moved. A
// signal's exception, or one the callable raises, sets `cancel` (the renderers stop taking samples and finish the
// paths in flight, as for the CLI's SIGINT) and is raised once the work has returned; its result is dropped.
class Interruptible {
public:
    std::atomic<bool> cancel{false};
    std::atomic<uint64_t> done{0}, total{0};
    std::function<void(uint64_t, uint64_t)> hook() {
        return [this](uint64_t d, uint64_t t) {
            done.store(d);
            total.store(t);
        };
    }
    template <class Work>
    void run(Work&& work, nb::handle progress) {
        std::exception_ptr failed;
        std::optional<nb::python_error> raised;
        bool finished = false;
        std::mutex m;
        std::condition_variable cv;
        uint64_t shown = ~0ull;
        {
            nb::gil_scoped_release release;
            std::thread worker([&] {
                try {
                    work();
                } catch (...) { failed = std::current_exception(); }
                std::lock_guard<std::mutex> l(m);
                finished = true;
                cv.notify_all();
            });
            std::unique_lock<std::mutex> l(m);
            while (!cv.wait_for(l, std::chrono::milliseconds(50), [&] { return finished; })) {
                if (raised) continue;
                l.unlock();
                poll(progress, raised, shown);
                l.lock();
            }
            l.unlock();
            worker.join();
        }
        if (raised) throw std::move(*raised);
        if (failed) std::rethrow_exception(failed);
        if (progress && !progress.is_none() && total.load() && shown != done.load())
            progress(done.load(), total.load());  // the last count
    }

private:
    void poll(nb::handle progress, std::optional<nb::python_error>& raised, uint64_t& shown) {
        nb::gil_scoped_acquire acquire;
        try {
            if (PyErr_CheckSignals() != 0) throw nb::python_error();
            const uint64_t d = done.load(), t = total.load();
            if (progress && !progress.is_none() && t && d != shown) {
                shown = d;
                progress(d, t);
            }
        } catch (nb::python_error& e) {
            raised.emplace(std::move(e));
            cancel.store(true);
        }
    }
};

Backend backend_of(const std::string& b) {
    std::string dev;
    if (b == "cpu") return Backend::Cpu;
    if (b == "gpu") {
        if (!gpu_available(&dev))
            throw std::runtime_error("backend 'gpu' asked for, but no CUDA GPU is present (or the build has no CUDA)");
        return Backend::Gpu;
    }
    if (b == "auto") return gpu_available(&dev) ? Backend::Gpu : Backend::Cpu;
    throw std::invalid_argument("backend: '" + b + "' is not gpu, cpu or auto");
}

// The CLI's --mode auto: the GPU's wavefront, the CPU's megakernel.
Mode mode_of(const std::string& m, Backend be) {
    if (m == "wavefront") return Mode::Wavefront;
    if (m == "megakernel") return Mode::Megakernel;
    if (m == "auto") return be == Backend::Gpu ? Mode::Wavefront : Mode::Megakernel;
    throw std::invalid_argument("mode: '" + m + "' is not wavefront, megakernel or auto");
}

uint32_t aov_bits_of(const std::vector<std::string>& names) {
    uint32_t bits = 0;
    for (const std::string& a : names) {
        if (a == "albedo")
            bits |= kAovAlbedo;
        else if (a == "normal")
            bits |= kAovNormal;
        else if (a == "depth")
            bits |= kAovDepth;
        else if (a == "position")
            bits |= kAovPosition;
        else
            throw std::invalid_argument("unknown AOV '" + a + "' (albedo, normal, depth, position)");
    }
    return bits;
}

// A float vector as a NumPy array of `shape` that owns it (no copy).
nb::ndarray<nb::numpy, float> array_of(std::vector<float>&& v, std::initializer_list<size_t> shape) {
    auto* owned = new std::vector<float>(std::move(v));
    nb::capsule del(owned, [](void* p) noexcept { delete static_cast<std::vector<float>*>(p); });
    return nb::ndarray<nb::numpy, float>(owned->data(), shape.size(), shape.begin(), del);
}

// What Scene.render returns to the Python side: the image, the AOVs, the statistics, the film's counts.
struct RenderOut {
    nb::object image;
    nb::dict aovs;
    RenderStats stats;
    uint64_t samples = 0, nonfinite = 0, clamped = 0;
    int64_t first_nonfinite_x = -1, first_nonfinite_y = -1;
    double wall_s = 0.0;
};

struct RenderCallArgs {
    std::string backend = "auto", mode = "auto";
    Settings settings;
    std::vector<std::string> aovs;
    unsigned threads = 0;
    uint32_t capacity = 0;
};

RenderOut render_scene(const PyScene& s, const RenderCallArgs& a, nb::handle progress) {
    const Backend be = backend_of(a.backend);
    const Mode mode = mode_of(a.mode, be);
    RenderOptions opt;
    opt.aovs = aov_bits_of(a.aovs);
    opt.threads = a.threads;
    opt.capacity = a.capacity;
    // the render's own settings: the loaded scene's, or (settings given) those with the overrides; a new width or
    // height gives the camera another aspect, so the render takes a copy of the scene with it
    const SceneData* scene = &s.ls.data;
    RenderParams rp = s.ls.params;
    std::unique_ptr<SceneData> copy;
    if (!a.settings.empty()) {
        CameraData cam = s.ls.data.camera;
        rp = override_loaded(s.path, s.ls.params, cam, overrides_of(a.settings));
        if (std::memcmp(&cam, &s.ls.data.camera, sizeof cam) != 0) {
            copy = std::make_unique<SceneData>(s.ls.data);
            copy->camera = cam;
            scene = copy.get();
        }
    }
    Interruptible job;
    opt.cancel = &job.cancel;
    opt.progress = job.hook();
    Image img;
    RenderOut out;
    const auto t0 = std::chrono::steady_clock::now();
    job.run([&] { img = wp::render(be, *scene, rp, mode, opt, &out.stats); }, progress);
    out.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const size_t h = img.height, w = img.width;
    out.samples = img.samples;
    out.nonfinite = img.nonfinite;
    out.clamped = img.clamped;
    if (img.nonfinite) {  // in the whole image's coordinates, as the CLI's warning
        out.first_nonfinite_x = img.first_nonfinite_pixel % rp.width + (rp.full_width ? rp.crop_x0 : 0);
        out.first_nonfinite_y = img.first_nonfinite_pixel / rp.width + (rp.full_width ? rp.crop_y0 : 0);
    }
    out.image = nb::cast(array_of(std::move(img.rgb), {h, w, 3}));
    if (!img.albedo.empty()) out.aovs["albedo"] = array_of(std::move(img.albedo), {h, w, 3});
    if (!img.normal.empty()) out.aovs["normal"] = array_of(std::move(img.normal), {h, w, 3});
    if (!img.depth.empty()) out.aovs["depth"] = array_of(std::move(img.depth), {h, w});
    if (!img.position.empty()) out.aovs["position"] = array_of(std::move(img.position), {h, w, 3});
    return out;
}

nb::list kernel_rows(const RenderStats& st) {
    nb::list rows;
    for (const KernelRow& k : st.kernels) {
        nb::dict d;
        d["kernel"] = k.name;
        d["launches"] = k.launches;
        d["ms"] = k.ms;
        d["percent_frame"] = st.render_ms > 0 ? 100.0 * k.ms / st.render_ms : 0.0;
        d["avg_ms"] = k.launches ? k.ms / double(k.launches) : 0.0;
        rows.append(d);
    }
    return rows;
}

nb::list iteration_rows(const RenderStats& st) {
    nb::list rows;
    for (const IterationStat& it : st.iterations) {
        nb::dict d;
        d["generated"] = it.generated;
        d["extended"] = it.extended;
        d["shadow"] = it.shadow;
        d["live"] = it.live;
        rows.append(d);
    }
    return rows;
}

// The scene's tables by material family (the rows of kernels/scene_tables.h), and its lights by kind.
nb::dict material_counts(const SceneData& d) {
    nb::dict m;
    m["lambert"] = d.lambert.size();
    m["conductor"] = d.conductor.size();
    m["dielectric"] = d.dielectric.size();
    m["principled"] = d.principled.size();
    m["layered"] = d.layered.size();
    m["bumped"] = d.bump.size();
    return m;
}

nb::dict light_counts(const SceneData& d) {
    size_t n[4] = {0, 0, 0, 0};
    for (const Light& l : d.lights) ++n[l.type < 4 ? l.type : 0];
    nb::dict m;
    m["area"] = n[kLightArea];
    m["point"] = n[kLightPoint];
    m["spot"] = n[kLightSpot];
    m["distant"] = n[kLightDistant];
    m["environment_map"] = size_t(d.env_width > 0);
    return m;
}

nb::dict feature_flags(uint32_t f) {
    nb::dict d;
#define WP_PY_FEATURE(bit, name) d[name] = bool(f & (bit));
    WP_PY_FEATURE(kFeatTriangles, "triangles")
    WP_PY_FEATURE(kFeatSpheres, "spheres")
    WP_PY_FEATURE(kFeatLambert, "lambert")
    WP_PY_FEATURE(kFeatConductor, "conductor")
    WP_PY_FEATURE(kFeatDielectric, "dielectric")
    WP_PY_FEATURE(kFeatPrincipled, "principled")
    WP_PY_FEATURE(kFeatLayered, "layered")
    WP_PY_FEATURE(kFeatDiffuseTransmission, "diffuse_transmission")
    WP_PY_FEATURE(kFeatBump, "bump")
    WP_PY_FEATURE(kFeatTextures, "textures")
    WP_PY_FEATURE(kFeatEmitters, "emitters")
    WP_PY_FEATURE(kFeatDeltaLights, "delta_lights")
    WP_PY_FEATURE(kFeatEnvMap, "environment_map")
#undef WP_PY_FEATURE
    return d;
}

nb::dict settings_dict(const RenderParams& rp) {
    nb::dict d;
    const RenderParams given = crop_settings(rp);
    for (const SettingInfo& s : render_settings()) d[s.name] = setting_text(given, s);
    return d;
}

struct BenchArgs {
    std::vector<std::string> scenes;
    std::string backend = "auto";
    std::vector<std::string> modes{"wavefront", "megakernel"};
    Settings settings;
    unsigned repeat = 3, warmup = 1, threads = 0;
    bool raycast = true, queue_stats = true, kernel_timing = true;
    uint32_t raycast_spp = 4, reference_spp = 0;
    std::string reference, resources;
    std::vector<uint32_t> spp_list;
    double target_relmse = 0.01;
};

// `wavepath bench` from Python: the options into BenchOptions as the command line fills them, the scenes (none: the
// benchmark set, as the command's), run_bench; its JSON document as text, and the notes the command prints as
// warnings.
std::pair<std::string, std::vector<std::string>> run_bench_py(const BenchArgs& a, nb::handle progress) {
    BenchOptions o;
    std::vector<std::string> notes;
    o.command = "wavepath.bench()";
    o.scenes = a.scenes;
    if (o.scenes.empty()) {
        const std::string dir = find_bench_scenes();
        if (dir.empty()) throw SceneError("no scenes given and no benchmark set found (" + bench_scene_places() + ")");
        std::string missing;
        o.scenes = default_bench_scenes(dir, missing);
        if (!missing.empty())
            notes.push_back("the benchmark set's published pbrt-v4 scenes are not in " + missing +
                            " (CMake extracts them from tests/parity/published.tar.xz): benchmarking the native "
                            "scenes alone");
    }
    o.modes.clear();
    for (const std::string& m : a.modes) {
        if (m != "wavefront" && m != "megakernel")
            throw std::invalid_argument("modes: unknown schedule '" + m + "' (wavefront, megakernel)");
        o.modes.push_back(m == "wavefront" ? Mode::Wavefront : Mode::Megakernel);
    }
    if (o.modes.empty()) throw std::invalid_argument("modes: no schedule given");
    if (a.backend != "cpu" && a.backend != "gpu" && a.backend != "auto")
        throw std::invalid_argument("backend: '" + a.backend + "' is not gpu, cpu or auto");
    o.settings.backend = a.backend;
    o.settings.scene = overrides_of(a.settings);
    o.settings.options.threads = a.threads;
    o.settings.options.queue_stats = a.queue_stats;
    o.settings.options.kernel_timing = a.kernel_timing;
    o.repeat = a.repeat;
    o.warmup = a.warmup;
    o.raycast = a.raycast;
    o.raycast_spp = a.raycast_spp;
    o.resources_path = a.resources;
    o.reference = a.reference;
    o.spp_list = a.spp_list;
    std::sort(o.spp_list.begin(), o.spp_list.end());
    o.spp_list.erase(std::unique(o.spp_list.begin(), o.spp_list.end()), o.spp_list.end());
    o.reference_spp = a.reference_spp;
    o.target_relmse = a.target_relmse;
    if (std::string why = bench_reference_problem(o); !why.empty()) throw std::invalid_argument(why);
    Interruptible job;
    o.settings.options.cancel = &job.cancel;
    std::string text;
    job.run([&] { text = run_bench(o).dump(); }, progress);
    return {text, notes};
}

}  // namespace
}  // namespace wp

NB_MODULE(_wavepath, m) {
    using namespace wp;
    m.doc() =
        "wavepath's native module: scenes loaded by the host loaders, rendered by its CPU and GPU backends "
        "(use the `wavepath` package, which wraps it)";
    nb::exception<SceneError>(m, "SceneError", PyExc_ValueError);
    nb::exception<SceneMemoryError>(m, "SceneMemoryError", PyExc_MemoryError);
    nb::exception<UsageError>(m, "UsageError", PyExc_ValueError);  // the command line's usage errors (exit code 2)
#ifdef WP_PY_HAVE_CUDA
    m.attr("cuda_built") = true;
#else
    m.attr("cuda_built") = false;
#endif

    nb::class_<RenderStats>(m, "RenderStats",
                            "A render's figures, those `wavepath render --stats` prints: times, rays, the per-kernel "
                            "table and (wavefront) the queues")
        .def_ro("backend", &RenderStats::backend, "'cpu' or 'gpu'")
        .def_ro("device", &RenderStats::device, "the device's name")
        .def_prop_ro(
            "mode", [](const RenderStats& s) { return std::string(mode_name(s.mode)); }, "'wavefront' or 'megakernel'")
        .def_ro("render_ms", &RenderStats::render_ms,
                "first launch to last result (GPU: CUDA events; CPU: wall clock), without the scene's upload")
        .def_ro("setup_ms", &RenderStats::setup_ms, "GPU: the schedule's setup before its first launch")
        .def_ro("samples", &RenderStats::samples, "samples rendered")
        .def_ro("extension_rays", &RenderStats::extension_rays)
        .def_ro("shadow_rays", &RenderStats::shadow_rays)
        .def_prop_ro("msamples_per_s", &RenderStats::msamples_per_s, "millions of samples per second")
        .def_prop_ro("mrays_per_s", &RenderStats::mrays_per_s, "millions of extension and shadow rays per second")
        .def_ro("capacity", &RenderStats::capacity, "wavefront: the queue's capacity in paths")
        .def_ro("drained", &RenderStats::drained, "wavefront: paths finished by the drain kernel")
        .def_ro("feature_set", &RenderStats::feature_set, "the kernels' compiled feature set (kernels/features.h)")
        .def_ro("sorted", &RenderStats::sorted, "wavefront: shaded in material order")
        .def_prop_ro("kernels", &kernel_rows,
                     "the per-kernel table: one dict per kernel (kernel, launches, ms, percent_frame, avg_ms), in "
                     "first-launch order")
        .def_prop_ro("iterations", &iteration_rows,
                     "wavefront: per iteration, the paths generated, extended, shadow rays, live after compaction")
        .def_ro("paths_at_depth", &RenderStats::paths_at_depth, "wavefront: paths shaded at each depth")
        .def_ro("shadow_at_depth", &RenderStats::shadow_at_depth, "wavefront: shadow rays pushed at each depth")
        .def_ro("device_bytes", &RenderStats::device_bytes,
                "GPU: device memory the render allocated; CPU: the queues' bytes")
        .def("__repr__", [](const RenderStats& s) {
            char b[256];
            std::snprintf(b, sizeof b, "RenderStats(%s %s on %s: %.2f ms, %.2f Msamples/s, %.1f Mrays/s)",
                          s.backend.c_str(), mode_name(s.mode), s.device.c_str(), s.render_ms, s.msamples_per_s(),
                          s.mrays_per_s());
            return std::string(b);
        });

    nb::class_<RenderOut>(m, "RenderOut", "a render's raw result (the package's Render wraps it)")
        .def_ro("image", &RenderOut::image)
        .def_ro("aovs", &RenderOut::aovs)
        .def_ro("stats", &RenderOut::stats)
        .def_ro("samples", &RenderOut::samples)
        .def_ro("nonfinite", &RenderOut::nonfinite)
        .def_ro("first_nonfinite_x", &RenderOut::first_nonfinite_x)
        .def_ro("first_nonfinite_y", &RenderOut::first_nonfinite_y)
        .def_ro("clamped", &RenderOut::clamped)
        .def_ro("wall_s", &RenderOut::wall_s);

    nb::class_<PyScene>(m, "NativeScene", "a loaded scene (the package's Scene wraps it)")
        .def_ro("path", &PyScene::path)
        .def_prop_ro("width", [](const PyScene& s) { return s.ls.params.width; })
        .def_prop_ro("height", [](const PyScene& s) { return s.ls.params.height; })
        .def_prop_ro("spp", [](const PyScene& s) { return s.ls.params.spp; })
        .def_prop_ro("max_depth", [](const PyScene& s) { return s.ls.params.max_depth; })
        .def_prop_ro("settings", [](const PyScene& s) { return settings_dict(s.ls.params); })
        .def_prop_ro("primitives", [](const PyScene& s) { return s.ls.data.num_primitives; })
        .def_prop_ro("bvh_references", [](const PyScene& s) { return s.ls.data.bvh_stats.references; })
        .def_prop_ro("bvh_depth", [](const PyScene& s) { return s.ls.data.bvh_depth; })
        .def_prop_ro("materials", [](const PyScene& s) { return material_counts(s.ls.data); })
        .def_prop_ro("lights", [](const PyScene& s) { return s.ls.data.lights.size(); })
        .def_prop_ro("lights_by_type", [](const PyScene& s) { return light_counts(s.ls.data); })
        .def_prop_ro("textures", [](const PyScene& s) { return s.ls.data.textures.size(); })
        .def_prop_ro("features", [](const PyScene& s) { return feature_flags(s.ls.data.features()); })
        .def_prop_ro(
            "feature_set",
            [](const PyScene& s) { return std::string(feature_set_name(feature_set_for(s.ls.data.features()))); })
        .def_prop_ro("bytes", [](const PyScene& s) { return scene_device_bytes(s.ls.data); })
        .def_prop_ro("bytes_text",
                     [](const PyScene& s) {
                         std::string what;
                         scene_device_bytes(s.ls.data, &what);
                         return what;
                     })
        .def_prop_ro("load_seconds", [](const PyScene& s) { return s.ls.load_seconds; })
        .def_prop_ro("bvh_seconds", [](const PyScene& s) { return s.ls.data.bvh_stats.seconds; })
        .def_prop_ro("sah_cost", [](const PyScene& s) { return s.ls.data.bvh_stats.sah_cost; })
        .def_prop_ro("load_line", [](const PyScene& s) { return load_line(s.path, s.ls); })
        .def_prop_ro("warnings", [](const PyScene& s) { return s.ls.warnings; })
        .def(
            "render",
            [](const PyScene& s, const std::string& backend, const std::string& mode, const Settings& settings,
               const std::vector<std::string>& aovs, unsigned threads, uint32_t capacity, nb::handle progress) {
                RenderCallArgs a{backend, mode, settings, aovs, threads, capacity};
                return render_scene(s, a, progress);
            },
            "backend"_a, "mode"_a, "settings"_a, "aovs"_a, "threads"_a, "capacity"_a, "progress"_a.none());

    m.def("load_file", &load_file, "path"_a, "settings"_a, "strict"_a,
          "A scene file of any supported format, loaded and checked as `wavepath render` does");
    m.def("load_text", &load_text, "text"_a, "path"_a, "settings"_a, "strict"_a,
          "A scene in the native JSON form given as text, named `path` (relative files under its folder)");
    m.def(
        "bench",
        [](const std::vector<std::string>& scenes, const std::string& backend, const std::vector<std::string>& modes,
           const Settings& settings, unsigned repeat, unsigned warmup, bool raycast, uint32_t raycast_spp,
           bool queue_stats, bool kernel_timing, const std::string& reference, const std::vector<uint32_t>& spp_list,
           uint32_t reference_spp, double target_relmse, const std::string& resources, unsigned threads,
           nb::handle progress) {
            BenchArgs a;
            a.scenes = scenes;
            a.backend = backend;
            a.modes = modes;
            a.settings = settings;
            a.repeat = repeat;
            a.warmup = warmup;
            a.raycast = raycast;
            a.raycast_spp = raycast_spp;
            a.queue_stats = queue_stats;
            a.kernel_timing = kernel_timing;
            a.reference = reference;
            a.spp_list = spp_list;
            a.reference_spp = reference_spp;
            a.target_relmse = target_relmse;
            a.resources = resources;
            a.threads = threads;
            return run_bench_py(a, progress);
        },
        "scenes"_a, "backend"_a, "modes"_a, "settings"_a, "repeat"_a, "warmup"_a, "raycast"_a, "raycast_spp"_a,
        "queue_stats"_a, "kernel_timing"_a, "reference"_a, "spp_list"_a, "reference_spp"_a, "target_relmse"_a,
        "resources"_a, "threads"_a, "progress"_a.none(),
        "`wavepath bench` (run_bench): its JSON document as text, and the notes the command prints as warnings");
    m.def(
        "gpu_available",
        []() {
            std::string name;
            const bool ok = gpu_available(&name);
            return std::make_pair(ok, name);
        },
        "(whether a CUDA GPU is present and the build has the GPU backend, its name)");
    m.def(
        "setting_names",
        []() {
            std::vector<std::string> v;
            for (const SettingInfo& s : render_settings()) v.push_back(s.name);
            return v;
        },
        "the render settings' names (docs/OPTIONS.md)");
}
