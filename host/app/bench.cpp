// `wavepath bench` (see host/app/bench.h).
#include "host/app/bench.h"
#include <cxxabi.h>
#include <unistd.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <map>
#include <memory>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <thread>
#include "host/image/image_load.h"
#include "host/image/image_stats.h"
#include "host/scene/scene_json.h"

namespace wp {

using json = nlohmann::json;

std::string kernel_short_name(const std::string& symbol) {
    std::string s = symbol;
    int status = 0;
    std::unique_ptr<char, void (*)(void*)> dem(abi::__cxa_demangle(symbol.c_str(), nullptr, nullptr, &status),
                                               std::free);
    if (status == 0 && dem) s = dem.get();
    // cut the parameter list: the first '(' outside template brackets
    int depth = 0;
    std::string head;
    for (char ch : s) {
        if (ch == '<') ++depth;
        if (ch == '>') --depth;
        if (ch == '(' && depth == 0) break;
        head += ch;
    }
    // drop template arguments, keep the last scope component
    std::string flat;
    depth = 0;
    for (char ch : head) {
        if (ch == '<')
            ++depth;
        else if (ch == '>')
            --depth;
        else if (depth == 0)
            flat += ch;
    }
    size_t c = flat.rfind("::");
    std::string name = c == std::string::npos ? flat : flat.substr(c + 2);
    size_t sp = name.find_last_of(' ');  // a return type in front ("void f")
    if (sp != std::string::npos) name = name.substr(sp + 1);
    return name;
}

std::vector<PtxasKernel> parse_ptxas(const std::string& text) {
    std::vector<PtxasKernel> out;
    static const std::regex entry(R"(Compiling entry function '([^']+)' for '([^']+)')");
    static const std::regex props(R"(Function properties for (\S+))");
    static const std::regex frame(R"((\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads)");
    static const std::regex used(R"(Used (\d+) registers)");
    static const std::regex barriers(R"(used (\d+) barriers)");
    static const std::regex smem(R"((\d+) bytes smem)");
    static const std::regex cmem(R"((\d+) bytes cmem\[0\])");
    std::istringstream in(text);
    std::string line;
    PtxasKernel* cur = nullptr;  // the entry whose report lines follow
    bool in_props = false;       // the "Function properties" block belongs to cur
    std::smatch m;
    while (std::getline(in, line)) {
        if (std::regex_search(line, m, entry)) {
            out.push_back(PtxasKernel{});
            cur = &out.back();
            cur->mangled = m[1];
            cur->arch = m[2];
            cur->name = kernel_short_name(cur->mangled);
            in_props = false;
        } else if (std::regex_search(line, m, props)) {
            in_props = cur && m[1] == cur->mangled;
        } else if (cur && in_props && std::regex_search(line, m, frame)) {
            cur->stack_bytes = std::stoi(m[1]);
            cur->spill_stores = std::stoi(m[2]);
            cur->spill_loads = std::stoi(m[3]);
        } else if (cur && std::regex_search(line, m, used)) {
            cur->registers = std::stoi(m[1]);
            if (std::regex_search(line, m, barriers)) cur->barriers = std::stoi(m[1]);
            if (std::regex_search(line, m, smem)) cur->shared_bytes = std::stoi(m[1]);
            if (std::regex_search(line, m, cmem)) cur->cmem0_bytes = std::stoi(m[1]);
            cur = nullptr;  // an entry's report ends with its "Used" line
            in_props = false;
        }
    }
    return out;
}

namespace {
std::string exe_dir() {
    char buf[4096];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0) return ".";
    std::string exe(buf, size_t(n));
    size_t s = exe.find_last_of('/');
    return s == std::string::npos ? std::string(".") : exe.substr(0, s);
}
}  // namespace

std::string default_resources_path() {
    std::string p = exe_dir() + "/kernel_resources.txt";
    std::ifstream f(p);
    return f ? p : "";
}

std::vector<std::string> bench_scene_dirs() {
    std::vector<std::string> d{exe_dir() + "/../share/wavepath/scenes"};
#ifdef WP_BUILD_SOURCE_DIR
    d.push_back(std::string(WP_BUILD_SOURCE_DIR) + "/scenes");
#endif
    d.push_back("scenes");
    return d;
}

std::string find_bench_scenes() {
    for (const std::string& d : bench_scene_dirs())
        if (std::ifstream(d + "/cornell-box.json")) return d;
    return "";
}

const char* const kBenchPublishedScenes[4] = {"veach-ajar/veach-ajar.pbrt", "living-room/living-room.pbrt",
                                              "pbrt-book/book.pbrt", "material-testball/material-testball.pbrt"};

std::vector<std::string> bench_published_dirs() {
    std::vector<std::string> d{exe_dir() + "/../share/wavepath/scenes/published", exe_dir() + "/parity/published"};
#ifdef WP_BUILD_BINARY_DIR
    d.push_back(std::string(WP_BUILD_BINARY_DIR) + "/parity/published");
#endif
    return d;
}

std::vector<std::string> default_bench_scenes(const std::string& dir, std::string& missing) {
    std::vector<std::string> v;
    for (const char* s : {"cornell-box", "rtiow", "sponza", "dragon", "helmet"}) v.push_back(dir + "/" + s + ".json");
    missing.clear();
    for (const std::string& d : bench_published_dirs()) {
        bool all = true;
        for (const char* s : kBenchPublishedScenes) all = all && bool(std::ifstream(d + "/" + s));
        if (!all) continue;
        for (const char* s : kBenchPublishedScenes) v.push_back(d + "/" + s);
        return v;
    }
    for (const std::string& d : bench_published_dirs()) missing += (missing.empty() ? "" : ", ") + d;
    return v;
}

std::string bench_scene_places() {
    std::string s;
    for (const std::string& d : bench_scene_dirs()) s += (s.empty() ? "" : ", ") + d;
    return s;
}

namespace {

double median(std::vector<double> v) {
    if (v.empty()) return 0.0;
    std::sort(v.begin(), v.end());
    size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

std::string scene_label(const std::string& path) {
    size_t s = path.find_last_of('/');
    std::string f = s == std::string::npos ? path : path.substr(s + 1);
    size_t d = f.find_last_of('.');
    return d == std::string::npos ? f : f.substr(0, d);
}

}  // namespace

std::string bench_reference_problem(const BenchOptions& o) {
    if (!o.reference.empty() && o.reference != "auto" && o.scenes.size() > 1)
        return "--reference " + o.reference + " is the image of one scene, and " + std::to_string(o.scenes.size()) +
               " scenes are given: give one scene, or --reference auto (a reference rendered for each)";
    return "";
}

uint32_t bench_reference_spp(const BenchOptions& o) {
    if (o.reference_spp) return o.reference_spp;
    const uint32_t most = o.spp_list.empty() ? 1u : *std::max_element(o.spp_list.begin(), o.spp_list.end());
    return uint32_t(std::min<uint64_t>(16ull * most, kMaxSpp));
}

TargetTime time_to_target(const std::vector<uint32_t>& spp, const std::vector<double>& ms,
                          const std::vector<double>& error, double target) {
    TargetTime t;
    t.ms = std::numeric_limits<double>::quiet_NaN();
    const size_t n = std::min({spp.size(), ms.size(), error.size()});
    if (n < 2) {
        t.how = "needs at least two sample counts";
        return t;
    }
    for (size_t i = 0; i < n; ++i)
        if (!(ms[i] > 0) || !(error[i] > 0) || !(target > 0)) {
            t.how = "a time or an error is not positive";
            return t;
        }
    // the segment to go by: the first that brackets the target, else the first (already below it) or the last
    size_t a = n - 2;
    t.extrapolated = true;
    if (error[0] <= target) {
        a = 0;
    } else {
        for (size_t i = 1; i < n; ++i)
            if (error[i] <= target) {
                a = i - 1;
                t.extrapolated = false;
                break;
            }
    }
    const double le0 = std::log(error[a]), le1 = std::log(error[a + 1]);
    const double lt0 = std::log(ms[a]), lt1 = std::log(ms[a + 1]);
    const std::string seg = std::to_string(spp[a]) + (t.extrapolated ? "-" : " and ") + std::to_string(spp[a + 1]);
    if (!(le1 < le0)) {
        t.how = "not reached: the error does not fall from " + std::to_string(spp[a]) + " to " +
                std::to_string(spp[a + 1]) + " spp";
        return t;
    }
    t.ms = std::exp(lt0 + (std::log(target) - le0) * (lt1 - lt0) / (le1 - le0));
    if (!t.extrapolated)
        t.how = "interpolated between " + seg + " spp";
    else if (error[0] <= target)
        t.how = "extrapolated below " + std::to_string(spp[0]) + " spp along " + seg + " spp: reached at every count";
    else
        t.how = "extrapolated beyond " + std::to_string(spp[n - 1]) + " spp along " + seg + " spp: not reached";
    return t;
}

namespace {

// What every phase of one bench reads: the call, the backend it runs on, the kernels' build-time resources.
struct Bench {
    const BenchOptions& o;
    const RenderOptions& ropt;
    Backend be = Backend::Cpu;
    bool gpu = false;
    std::string dev;                                            // the GPU's name, when one is present
    std::vector<PtxasKernel> ptx;                               // ptxas's report: every instance of every kernel
    std::map<uint32_t, std::map<std::string, KernelAttr>> occ;  // the runtime's occupancy, by feature set, by kernel
    Image reference;                                            // --reference PATH: the file's image (one scene)
    explicit Bench(const BenchOptions& opts) : o(opts), ropt(opts.settings.options) {}
};

// Refuses a call with nothing to time before any work starts.
void check_call(const BenchOptions& o) {
    if (o.scenes.empty()) throw std::runtime_error("bench: no scenes given");
    if (o.repeat < 1) throw std::runtime_error("bench: --repeat must be at least 1");
    if (std::string why = bench_reference_problem(o); !why.empty()) throw std::runtime_error("bench: " + why);
}

// Whether the bench measures the error: a reference and sample counts to measure at.
bool measures_error(const BenchOptions& o) { return !o.reference.empty() && !o.spp_list.empty(); }

// --reference PATH: the file read before any work (an unreadable one is the input's error, exit 1).
void read_reference(Bench& b) {
    if (!measures_error(b.o) || b.o.reference == "auto") return;
    try {
        b.reference = read_reference_image(b.o.reference);
    } catch (const ImageError& e) { throw SceneError(std::string("--reference: ") + e.what()); }
}

// Picks the backend: --backend gpu insists on a GPU, auto takes one when present.
void choose_backend(Bench& b) {
    const std::string& backend = b.o.settings.backend;
    bool have_gpu = gpu_available(&b.dev);
    if (backend == "gpu" && !have_gpu) throw std::runtime_error("bench: --backend gpu, but no CUDA GPU is present");
    b.be = (backend == "gpu" || (backend == "auto" && have_gpu)) ? Backend::Gpu : Backend::Cpu;
    b.gpu = b.be == Backend::Gpu;
}

// The document's header: the command, the backend and device, the repeats and how the times were taken.
json bench_header(const Bench& b) {
    json doc;
    doc["tool"] = "wavepath bench";
    doc["command"] = b.o.command;
    doc["backend"] = b.gpu ? "gpu" : "cpu";
    doc["device"] = b.gpu ? b.dev : "cpu";
    doc["repeat"] = b.o.repeat;
    doc["warmup"] = b.o.warmup;
    // the tree's knobs the environment set (WP_BVH_*, host/scene/scene_build.h): each by its variable
    json knobs = json::object();
    const SceneBuildOptions& ko = b.o.settings.load.build;
#define WP_BVH_KNOB_JSON(type, member, variable, ...) \
    if (ko.member) knobs[variable] = *ko.member;
    WP_BVH_KNOBS(WP_BVH_KNOB_JSON)
#undef WP_BVH_KNOB_JSON
    doc["bvh_knobs"] = knobs;
    doc["timing"] = b.gpu ? "CUDA events, first launch to last result, scene upload excluded; medians of "
                            "renders without per-kernel events; the kernel table from one more render "
                            "with them (render_ms_kernel_timing)"
                          : "wall clock, scene load excluded; medians";
    // --devices: every mode rendered split over the list and on its first device alone (both through the split
    // driver, timed by the host clock from the first batch to the last result, setup excluded)
    const std::vector<int>& devices = b.ropt.devices;
    if (!devices.empty()) {
        if (!b.gpu) throw std::runtime_error("bench: --devices picks CUDA GPUs: not with the CPU backend");
        doc["devices"] = devices;
        doc["timing"] =
            "host clock from the first batch's start to the last device's result, scene upload and "
            "queue allocation excluded (the split driver's render_ms), on the listed devices and on "
            "the first alone; medians of renders without per-kernel events; the kernel table (summed "
            "over the devices) from one more render with them";
    }
    return doc;
}

// Reads ptxas's build-time report (every instance of every kernel) into the bench and the document.
void read_kernel_resources(Bench& b, json& doc) {
    std::string rpath = b.o.resources_path.empty() ? default_resources_path() : b.o.resources_path;
    if (!rpath.empty()) {
        std::ifstream f(rpath);
        if (!f) throw std::runtime_error("bench: cannot read the kernel resource report '" + rpath + "'");
        std::stringstream ss;
        ss << f.rdbuf();
        b.ptx = parse_ptxas(ss.str());
    }
    json res = json::array();
    for (const PtxasKernel& k : b.ptx)
        res.push_back(json{{"kernel", k.name},
                           {"symbol", k.mangled},
                           {"arch", k.arch},
                           {"registers", k.registers},
                           {"spill_stores", k.spill_stores},
                           {"spill_loads", k.spill_loads},
                           {"stack_bytes", k.stack_bytes},
                           {"shared_bytes", k.shared_bytes},
                           {"barriers", k.barriers}});
    doc["kernel_resources"] = res;
    doc["kernel_resources_source"] =
        rpath.empty() ? std::string("none (no kernel_resources.txt beside the binary)") : rpath;
}

// The instance of a kernel that a render launches: extend is a template on persistence ("6extendILb1E": refill
// on), and megakernel, extend, shade and drain on the feature set ("Lj14E": kernels/features.h).
// A material family's row ("shade_lambert") is shade's instance for the family's features (family_features).
const PtxasKernel* ptx_instance(const Bench& b, std::string name, uint32_t set) {
    const bool refill_on = b.o.settings.options.refill > 0;
    for (uint32_t f = 0; f < kNumFamilies; ++f)
        if (name == kFamilyStageNames[f]) {
            name = "shade";
            set = family_features(set, f);
        }
    const std::string set_arg = "Lj" + std::to_string(set) + "E";
    const bool per_set = name == "megakernel" || name == "extend" || name == "shade" || name == "drain";
    for (const PtxasKernel& k : b.ptx) {
        if (k.name != name) continue;
        const std::string own = std::to_string(k.name.size()) + k.name + "I";
        if (name == "extend" && k.mangled.find(own) != std::string::npos &&
            k.mangled.find(refill_on ? "Lb1E" : "Lb0E") == std::string::npos)
            continue;
        if (per_set && k.mangled.find(own) != std::string::npos && k.mangled.find(set_arg) == std::string::npos)
            continue;
        return &k;
    }
    return nullptr;
}

// The runtime's figures (registers, theoretical occupancy) of a GPU kernel, asked once per feature set.
const KernelAttr* occupancy_of(Bench& b, const std::string& name, uint32_t set) {
    if (!b.gpu) return nullptr;
    if (!b.occ.count(set))
        for (const KernelAttr& a : gpu_kernel_attrs(set)) b.occ[set][a.name] = a;
    auto it = b.occ[set].find(name);
    return it == b.occ[set].end() ? nullptr : &it->second;
}

// The report's first line: what runs the renders and how many; the CPU's device gets its thread count.
void print_banner(const Bench& b, json& doc) {
    const std::vector<int>& devices = b.ropt.devices;
    const unsigned cpu_threads = b.ropt.threads ? b.ropt.threads : std::max(1u, std::thread::hardware_concurrency());
    if (!b.gpu) doc["device"] = "cpu, " + std::to_string(cpu_threads) + " threads";
    std::string list;
    for (int d : devices) list += (list.empty() ? "" : ",") + std::to_string(d);
    if (b.gpu && !devices.empty())
        std::printf(
            "wavepath bench: gpu, devices %s (first: %s), %u warm-up + %u timed renders per mode and device "
            "set, medians\n",
            list.c_str(), gpu_device_name(devices[0]).c_str(), b.o.warmup, b.o.repeat);
    else if (b.gpu)
        std::printf("wavepath bench: gpu (%s), %u warm-up + %u timed renders per mode, medians\n", b.dev.c_str(),
                    b.o.warmup, b.o.repeat);
    else
        std::printf("wavepath bench: cpu (%u threads), %u warm-up + %u timed renders per mode, medians\n", cpu_threads,
                    b.o.warmup, b.o.repeat);
}

// A scene's entry (its render settings) and the head of its table.
json scene_header(const Bench& b, const std::string& path, const RenderParams& rp) {
    json js{{"scene", path},
            {"name", scene_label(path)},
            {"width", rp.width},
            {"height", rp.height},
            {"spp", rp.spp},
            {"max_depth", rp.max_depth},
            {"light_sampling", rp.light_sampling}};
    js["modes"] = json::array();
    std::printf("\n%s: %ux%u, %u spp, max depth %u\n", path.c_str(), rp.width, rp.height, rp.spp, rp.max_depth);
    std::printf("  %-11s %10s %11s %10s %10s %10s %10s\n", "mode", "ms", "Msamples/s", "Mrays/s", "ext Mr/s",
                "shadow Mr/s", b.gpu ? "device MB" : "queue MB");
    return js;
}

// The renders of one mode: the timed ones, the one that timed every kernel, the first device alone.
struct ModeRuns {
    std::vector<double> ms;         // the timed renders' times, in run order
    std::vector<RenderStats> runs;  // their statistics
    size_t median = 0;              // the run with the median time (the lower median for an even count)
    bool table_run = false;         // GPU: one more render with per-kernel events supplied the kernel table
    RenderStats timed;              // that render
    double t_one = 0.0;             // --devices: the first device alone (median)
    std::vector<double> ms_one;
    const RenderStats& last() const { return runs[median]; }
    const RenderStats& table() const { return table_run ? timed : last(); }
};

// Times one mode: warm-ups, the timed renders, the render for the kernel table, and with --devices the first
// device alone, for the scaling efficiency.
ModeRuns time_mode(const Bench& b, const LoadedScene& ls, Mode m) {
    // GPU: the timed renders run without per-kernel events (the frame's two events only), which slow the
    // wavefront's many short launches (docs/DECISIONS.md: bench-events); one more render with them supplies
    // the per-kernel table, its kernel times nested in its own frame (so they sum to at most 100% of it).
    // CPU: the run with the median time supplies the table. The rays and samples are the same in every run.
    const RenderParams& rp = ls.params;
    ModeRuns r;
    RenderOptions frame_opt = b.ropt;
    r.table_run = b.gpu && b.ropt.kernel_timing;
    if (b.gpu) frame_opt.kernel_timing = false;
    for (unsigned w = 0; w < b.o.warmup; ++w) wp::render(b.be, ls.data, rp, m, frame_opt, nullptr);
    for (unsigned i = 0; i < b.o.repeat; ++i) {
        RenderStats st;
        wp::render(b.be, ls.data, rp, m, frame_opt, &st);
        r.ms.push_back(st.render_ms);
        r.runs.push_back(std::move(st));
    }
    std::vector<size_t> idx(r.runs.size());
    for (size_t i = 0; i < idx.size(); ++i) idx[i] = i;
    std::sort(idx.begin(), idx.end(), [&](size_t x, size_t y) { return r.ms[x] < r.ms[y]; });
    r.median = idx[(idx.size() - 1) / 2];
    if (r.table_run) wp::render(b.be, ls.data, rp, m, b.ropt, &r.timed);
    const std::vector<int>& devices = b.ropt.devices;
    if (!devices.empty()) {
        RenderOptions one = frame_opt;
        one.devices = {devices[0]};
        for (unsigned w = 0; w < b.o.warmup; ++w) wp::render(b.be, ls.data, rp, m, one, nullptr);
        for (unsigned i = 0; i < b.o.repeat; ++i) {
            RenderStats st;
            wp::render(b.be, ls.data, rp, m, one, &st);
            r.ms_one.push_back(st.render_ms);
        }
        r.t_one = median(r.ms_one);
    }
    return r;
}

// A mode's timed figures: the median time, the rates it gives, the work done and the queue's settings.
json mode_figures(const Bench& b, const ModeRuns& r, Mode m) {
    const RenderStats& last = r.last();
    const double t = last.render_ms;
    json jm;
    jm["mode"] = mode_name(m);
    jm["render_ms"] = t;  // the median run's (the lower median for an even count)
    jm["render_ms_runs"] = r.ms;
    jm["setup_ms"] = last.setup_ms;  // GPU: allocation and zeroing before the first launch, not in render_ms
    jm["samples"] = last.samples;
    jm["extension_rays"] = last.extension_rays;
    jm["shadow_rays"] = last.shadow_rays;
    jm["msamples_per_s"] = t > 0 ? double(last.samples) / t / 1e3 : 0.0;
    jm["mrays_per_s"] = t > 0 ? double(last.extension_rays + last.shadow_rays) / t / 1e3 : 0.0;
    jm["extension_mrays_per_s"] = t > 0 ? double(last.extension_rays) / t / 1e3 : 0.0;
    jm["shadow_mrays_per_s"] = t > 0 ? double(last.shadow_rays) / t / 1e3 : 0.0;
    jm["peak_device_bytes"] = last.device_bytes;
    jm["queue_capacity"] = last.capacity;
    // every schedule option of the list by its member's name: its value where it does something, else 0 (false)
    for (const ScheduleOption& o : schedule_options()) {
        const uint64_t v = option_applies(o, b.gpu, m == Mode::Wavefront) ? o.value(b.ropt) : 0;
        if (std::string(o.kind) == "VALUE")
            jm[o.member] = v;
        else
            jm[o.member] = v != 0;
    }
    jm["drained_paths"] = last.drained;
    jm["iterations"] = last.iterations.size();
    jm["sorted_shading"] = last.sorted;
    return jm;
}

// The per-kernel table into the mode's entry: each kernel's time and share of its frame, and on the GPU its
// registers, spills and stack (ptxas) and theoretical occupancy (the runtime).
void kernel_table(Bench& b, const RenderStats& table, json& jm) {
    const double t_table = table.render_ms;
    json kernels = json::array();
    uint32_t set = kFeaturesAll;  // the set the render ran, by its name (kernels/features.h)
    for (uint32_t fs : kFeatureSets)
        if (table.feature_set == feature_set_name(fs)) set = fs;
    jm["render_ms_kernel_timing"] = t_table;  // the frame of the run that timed every kernel
    for (const KernelRow& kr : table.kernels) {
        const std::string& k = kr.name;
        double km = kr.ms;
        json jk{{"kernel", k},
                {"launches", kr.launches},
                {"ms", km},
                {"percent_of_frame", t_table > 0 ? 100.0 * km / t_table : 0.0},
                {"avg_ms", kr.launches ? km / double(kr.launches) : 0.0}};
        // ptxas's figures describe the GPU's kernels: the CPU's stages of the same names have none
        if (const PtxasKernel* r = b.gpu ? ptx_instance(b, k, set) : nullptr) {
            jk["registers"] = r->registers;
            jk["spill_stores"] = r->spill_stores;
            jk["spill_loads"] = r->spill_loads;
            jk["stack_bytes"] = r->stack_bytes;
            jk["symbol"] = r->mangled;
        }
        if (const KernelAttr* a = occupancy_of(b, k, set)) {
            if (!jk.contains("registers")) jk["registers"] = a->registers;
            jk["theoretical_occupancy"] = a->occupancy;
        }
        for (uint32_t f = 0; f < table.family_paths.size(); ++f)  // a material family's kernel: the paths it shaded
            if (k == kFamilyStageNames[f]) jk["paths"] = table.family_paths[f];
        kernels.push_back(jk);
    }
    jm["kernels"] = kernels;
    jm["feature_set"] = table.feature_set;
}

// --devices: the split's scaling against the first device alone, and each device's share of the median run.
void device_figures(const Bench& b, const ModeRuns& r, json& jm) {
    const std::vector<int>& devices = b.ropt.devices;
    const RenderStats& last = r.last();
    const double t = last.render_ms;
    const double n = double(devices.size());
    jm["device_count"] = devices.size();
    jm["split_batch"] = last.split_batch;
    jm["single_device_ms"] = r.t_one;  // the first device alone (median)
    jm["single_device_ms_runs"] = r.ms_one;
    jm["scaling_efficiency"] = t > 0 ? r.t_one / (n * t) : 0.0;  // t(1) / (N x t(N))
    json rows = json::array();
    for (const DeviceStat& d : last.devices)
        rows.push_back(json{{"device", d.device},
                            {"name", d.name},
                            {"batches", d.batches},
                            {"samples", d.samples},
                            {"busy_ms", d.busy_ms},
                            {"setup_ms", d.setup_ms},
                            {"device_bytes", d.device_bytes}});
    jm["per_device"] = rows;  // the median run's
}

// The paths and shadow rays at each depth, and the share of the camera paths still alive there.
json queue_fill(const RenderStats& last) {
    json fill = json::array();
    if (!last.paths_at_depth.empty() && last.paths_at_depth[0] > 0)
        for (size_t d = 0; d < last.paths_at_depth.size(); ++d) {
            if (last.paths_at_depth[d] == 0) continue;
            fill.push_back(
                json{{"depth", d},
                     {"paths", last.paths_at_depth[d]},
                     {"shadow_rays", last.shadow_at_depth[d]},
                     {"fraction_of_camera_paths", double(last.paths_at_depth[d]) / double(last.paths_at_depth[0])}});
        }
    return fill;
}

// The mode's row of the scene's table, and with --devices the split's lines under it.
void print_mode_row(const Bench& b, const ModeRuns& r, Mode m, const json& jm) {
    const std::vector<int>& devices = b.ropt.devices;
    const RenderStats& last = r.last();
    const double t = last.render_ms;
    std::printf("  %-11s %10.2f %11.2f %10.1f %10.1f %10.1f %10.1f\n", mode_name(m), t,
                jm["msamples_per_s"].get<double>(), jm["mrays_per_s"].get<double>(),
                jm["extension_mrays_per_s"].get<double>(), jm["shadow_mrays_per_s"].get<double>(),
                double(last.device_bytes) / 1048576.0);
    if (devices.empty()) return;
    std::printf(
        "    %zu devices: %.2f ms, first device alone %.2f ms, scaling efficiency %.2f (t1 / (%zu x "
        "t%zu)), batches of %llu samples\n",
        devices.size(), t, r.t_one, jm["scaling_efficiency"].get<double>(), devices.size(), devices.size(),
        (unsigned long long)last.split_batch);
    for (const DeviceStat& d : last.devices)
        std::printf("      device %d (%s): %llu batches, %llu samples, busy %.2f ms\n", d.device, d.name.c_str(),
                    (unsigned long long)d.batches, (unsigned long long)d.samples, d.busy_ms);
}

// Times one mode on a scene and returns its entry (figures, kernel table, device split, queue fill).
json bench_mode(Bench& b, const LoadedScene& ls, Mode m) {
    const ModeRuns r = time_mode(b, ls, m);
    json jm = mode_figures(b, r, m);
    kernel_table(b, r.table(), jm);
    if (!b.ropt.devices.empty()) device_figures(b, r, jm);
    jm["queue_fill"] = queue_fill(r.last());
    print_mode_row(b, r, m, jm);
    return jm;
}

// The CPU's stages of a mode: wall clock, no registers or occupancy.
void print_stage_table(const json& jm) {
    std::printf("  %s stages (the median render, wall clock):\n    %-26s %8s %10s %7s\n",
                jm["mode"].get<std::string>().c_str(), "stage", "launches", "ms", "%frame");
    for (const json& k : jm["kernels"])
        std::printf("    %-26s %8llu %10.3f %6.1f%%\n", k["kernel"].get<std::string>().c_str(),
                    (unsigned long long)k["launches"].get<uint64_t>(), k["ms"].get<double>(),
                    k["percent_of_frame"].get<double>());
}

// The GPU's kernels of a mode: times from the render with per-kernel events, resources, occupancy.
void print_kernel_table(const json& jm) {
    std::printf(
        "  %s kernels (feature set %s; render with per-kernel events: %.2f ms):\n    %-26s %8s %10s %7s %5s "
        "%6s "
        "%6s %6s %5s %8s\n",
        jm["mode"].get<std::string>().c_str(), jm["feature_set"].get<std::string>().c_str(),
        jm["render_ms_kernel_timing"].get<double>(), "kernel", "launches", "ms", "%frame", "regs", "spillS", "spillL",
        "stack", "occ", "Mpaths");
    for (const json& k : jm["kernels"]) {
        auto num = [&](const char* f) {
            return k.contains(f) ? std::to_string(k[f].get<long long>()) : std::string("-");
        };
        char occs[16] = "-";
        if (k.contains("theoretical_occupancy"))
            std::snprintf(occs, sizeof occs, "%.0f%%", 100.0 * k["theoretical_occupancy"].get<double>());
        char paths[16] = "-";
        if (k.contains("paths")) std::snprintf(paths, sizeof paths, "%.2f", 1e-6 * double(k["paths"].get<uint64_t>()));
        std::printf("    %-26s %8llu %10.3f %6.1f%% %5s %6s %6s %6s %5s %8s\n", k["kernel"].get<std::string>().c_str(),
                    (unsigned long long)k["launches"].get<uint64_t>(), k["ms"].get<double>(),
                    k["percent_of_frame"].get<double>(), num("registers").c_str(), num("spill_stores").c_str(),
                    num("spill_loads").c_str(), num("stack_bytes").c_str(), occs, paths);
    }
}

// Two modes: the second's time over the first's, into the scene's entry and the report.
void print_speedup(json& js, const std::vector<json>& mode_docs) {
    if (mode_docs.size() != 2) return;
    double a = mode_docs[0]["render_ms"], b = mode_docs[1]["render_ms"];
    js["speedup_" + mode_docs[0]["mode"].get<std::string>() + "_over_" + mode_docs[1]["mode"].get<std::string>()] =
        a > 0 ? b / a : 0.0;
    std::printf("  %s / %s time: %.2fx\n", mode_docs[1]["mode"].get<std::string>().c_str(),
                mode_docs[0]["mode"].get<std::string>().c_str(), a > 0 ? b / a : 0.0);
}

// The ray-cast-only pass's medians and the per-ray work counted on the host.
struct RaycastRun {
    uint32_t spp = 0;
    RaycastStats rs;      // the last run's (the ray counts are the same in every run)
    double p = 0, d = 0;  // primary and diffuse-bounce medians, ms
    double ds = 0;        // --sort-rays: the bounces' sort, ms (0: not sorted)
    TraversalFigures tf;  // node visits and primitive tests per ray
};

// Times the ray-cast-only pass (camera rays, then one diffuse bounce) and counts its work per ray.
RaycastRun time_raycast(const Bench& b, const LoadedScene& ls) {
    RenderParams rr = ls.params;
    rr.spp = b.o.raycast_spp;
    RaycastRun r;
    r.spp = rr.spp;
    std::vector<double> pm, dm, sm;
    for (unsigned i = 0; i < b.o.warmup + b.o.repeat; ++i) {
        r.rs = b.gpu ? raycast_gpu(ls.data, rr, b.ropt) : raycast_cpu(ls.data, rr, b.ropt);
        if (i >= b.o.warmup) {
            pm.push_back(r.rs.primary_ms);
            dm.push_back(r.rs.diffuse_ms);
            sm.push_back(r.rs.diffuse_sort_ms);
        }
    }
    r.p = median(pm);
    r.d = median(dm);
    r.ds = median(sm);
    // the work per ray behind the rates: node visits and primitive tests, counted on the host over up to 2^18
    // of the pass's camera rays and their bounces (the binary tree; the GPU's speculative traversal visits
    // a few more)
    r.tf = count_traversal(ls.data, rr, 1u << 18, b.ropt.threads);
    return r;
}

// The ray-cast pass's entry in the scene's document.
json raycast_figures(const RaycastRun& r) {
    const RaycastStats& rs = r.rs;
    json jr{{"spp", r.spp},
            {"primary_rays", rs.primary_rays},
            {"primary_ms", r.p},
            {"primary_grays_per_s", r.p > 0 ? double(rs.primary_rays) / r.p / 1e6 : 0.0},
            {"diffuse_rays", rs.diffuse_rays},
            {"diffuse_ms", r.d},
            {"diffuse_grays_per_s", r.d > 0 ? double(rs.diffuse_rays) / r.d / 1e6 : 0.0}};
    if (r.ds > 0) {  // --sort-rays: the bounces were sorted first; the rate with the sort's time counted too
        jr["diffuse_sort_ms"] = r.ds;
        jr["diffuse_grays_per_s_with_sort"] = double(rs.diffuse_rays) / (r.d + r.ds) / 1e6;
    }
    const TraversalFigures& tf = r.tf;
    if (tf.primary_rays) {
        jr["primary_nodes_per_ray"] = tf.primary_nodes;
        jr["primary_prims_per_ray"] = tf.primary_prims;
        jr["diffuse_nodes_per_ray"] = tf.diffuse_nodes;
        jr["diffuse_prims_per_ray"] = tf.diffuse_prims;
        jr["counted_rays"] = tf.primary_rays;
    }
    return jr;
}

// The ray-cast pass's lines of the report: its rates, the sort's share, the work per ray.
void print_raycast(bool gpu, const RaycastRun& r, const json& jr) {
    const RaycastStats& rs = r.rs;
    if (gpu)
        std::printf(
            "  ray cast only (%u spp): primary %llu rays %.3f ms = %.3f Grays/s; diffuse bounce %llu rays "
            "%.3f ms = %.3f Grays/s\n",
            r.spp, (unsigned long long)rs.primary_rays, r.p, jr["primary_grays_per_s"].get<double>(),
            (unsigned long long)rs.diffuse_rays, r.d, jr["diffuse_grays_per_s"].get<double>());
    else  // CPU rates are Mrays/s: in Grays/s they print as 0.000
        std::printf(
            "  ray cast only (%u spp): primary %llu rays %.3f ms = %.2f Mrays/s; diffuse bounce %llu rays "
            "%.3f ms = %.2f Mrays/s\n",
            r.spp, (unsigned long long)rs.primary_rays, r.p, 1e3 * jr["primary_grays_per_s"].get<double>(),
            (unsigned long long)rs.diffuse_rays, r.d, 1e3 * jr["diffuse_grays_per_s"].get<double>());
    if (r.ds > 0)
        std::printf("  diffuse bounces sorted first (--sort-rays): sort %.3f ms; with it %.3f %s\n", r.ds,
                    (gpu ? 1.0 : 1e3) * jr["diffuse_grays_per_s_with_sort"].get<double>(), gpu ? "Grays/s" : "Mrays/s");
    const TraversalFigures& tf = r.tf;
    if (tf.primary_rays)
        std::printf(
            "  per ray (host count of %llu camera rays and their bounces, binary tree): primary %.1f nodes "
            "%.1f primitives; diffuse bounce %.1f nodes %.1f primitives\n",
            (unsigned long long)tf.primary_rays, tf.primary_nodes, tf.primary_prims, tf.diffuse_nodes,
            tf.diffuse_prims);
}

// --reference: the scene's reference, the file's image (its size checked against the render's) or, for "auto", the
// megakernel's render at bench_reference_spp with the next seed (its samples none of the measured images'); its
// entry in the scene's document, and a line.
Image scene_reference(const Bench& b, const std::string& path, const LoadedScene& ls, json& js) {
    const RenderParams& rp = ls.params;
    if (b.o.reference != "auto") {
        const Image& ref = b.reference;
        if (ref.width != rp.width || ref.height != rp.height)
            throw SceneError("--reference " + b.o.reference + " is " + std::to_string(ref.width) + "x" +
                             std::to_string(ref.height) + ", but " + path + " renders " + std::to_string(rp.width) +
                             "x" + std::to_string(rp.height) + ": the reference must be of the render's size");
        js["reference"] = json{{"path", b.o.reference}, {"width", ref.width}, {"height", ref.height}};
        return ref;
    }
    RenderParams rr = rp;
    rr.spp = bench_reference_spp(b.o);
    rr.seed = rp.seed + 1;
    RenderOptions opt = b.ropt;
    opt.kernel_timing = opt.queue_stats = false;
    RenderStats st;
    Image ref = wp::render(b.be, ls.data, rr, Mode::Megakernel, opt, &st);
    js["reference"] =
        json{{"path", "auto"}, {"mode", "megakernel"}, {"spp", rr.spp}, {"seed", rr.seed}, {"render_ms", st.render_ms}};
    return ref;
}

// One mode's error curve: rendered at each of --spp-list (the median time of --repeat renders; the image is the same
// in each) and compared with the reference; the time to reach --target-relmse. Into the mode's entry.
void error_curve(const Bench& b, const LoadedScene& ls, Mode m, const Image& ref, json& jm) {
    RenderOptions opt = b.ropt;
    if (b.gpu) opt.kernel_timing = false;  // the frame's two events only, as the timed renders
    json points = json::array();
    std::vector<double> ms, rel;
    for (uint32_t n : b.o.spp_list) {
        RenderParams rp = ls.params;
        rp.spp = n;
        std::vector<double> runs;
        Image img;
        for (unsigned i = 0; i < b.o.repeat; ++i) {
            RenderStats st;
            Image im = wp::render(b.be, ls.data, rp, m, opt, &st);
            runs.push_back(st.render_ms);
            if (i == 0) img = std::move(im);
        }
        const ReferenceError e = reference_error(img, ref);
        ms.push_back(median(runs));
        rel.push_back(e.relmse);
        points.push_back(json{{"spp", n}, {"ms", ms.back()}, {"mse", e.mse}, {"relmse", e.relmse}});
    }
    const TargetTime t = time_to_target(b.o.spp_list, ms, rel, b.o.target_relmse);
    jm["error"] = points;
    jm["ms_to_target_relmse"] = std::isnan(t.ms) ? json(nullptr) : json(t.ms);
    jm["ms_to_target_relmse_extrapolated"] = t.extrapolated;
    jm["ms_to_target_relmse_how"] = t.how;
}

// The error table of the scene's modes, and each one's time to the target relMSE.
void print_error_table(const Bench& b, const json& js, const std::vector<json>& mode_docs) {
    const json& r = js["reference"];
    if (r["path"] == "auto")
        std::printf("  error against the reference (auto: megakernel, %u spp, seed %u, %.2f ms), target relMSE %g:\n",
                    r["spp"].get<uint32_t>(), r["seed"].get<uint32_t>(), r["render_ms"].get<double>(),
                    b.o.target_relmse);
    else
        std::printf("  error against the reference %s, target relMSE %g:\n", b.o.reference.c_str(), b.o.target_relmse);
    std::printf("    %-11s %8s %10s %12s %12s\n", "mode", "spp", "ms", "MSE", "relMSE");
    for (const json& jm : mode_docs)
        for (const json& p : jm["error"])
            std::printf("    %-11s %8u %10.2f %12.4e %12.4e\n", jm["mode"].get<std::string>().c_str(),
                        p["spp"].get<uint32_t>(), p["ms"].get<double>(), p["mse"].get<double>(),
                        p["relmse"].get<double>());
    for (const json& jm : mode_docs) {
        const std::string how = jm["ms_to_target_relmse_how"];
        if (jm["ms_to_target_relmse"].is_null())
            std::printf("    %s: relMSE %g: no time (%s)\n", jm["mode"].get<std::string>().c_str(), b.o.target_relmse,
                        how.c_str());
        else
            std::printf("    %s: relMSE %g in %.2f ms (%s)\n", jm["mode"].get<std::string>().c_str(), b.o.target_relmse,
                        jm["ms_to_target_relmse"].get<double>(), how.c_str());
    }
}

// One scene: loaded as every command-line render loads it, each mode timed, the tables, the ray-cast pass.
json bench_scene(Bench& b, const std::string& path) {
    LoadedScene ls = load_render_scene(path, b.o.settings.scene, b.o.settings.load);
    json js = scene_header(b, path, ls.params);
    const Image ref = measures_error(b.o) ? scene_reference(b, path, ls, js) : Image{};
    std::vector<json> mode_docs;
    for (Mode m : b.o.modes) {
        mode_docs.push_back(bench_mode(b, ls, m));
        if (measures_error(b.o)) error_curve(b, ls, m, ref, mode_docs.back());
        js["modes"].push_back(mode_docs.back());
    }
    for (const json& jm : mode_docs) {
        if (b.gpu)
            print_kernel_table(jm);
        else
            print_stage_table(jm);
    }
    print_speedup(js, mode_docs);
    if (measures_error(b.o)) print_error_table(b, js, mode_docs);
    if (b.o.raycast) {
        const RaycastRun r = time_raycast(b, ls);
        js["raycast"] = raycast_figures(r);
        print_raycast(b.gpu, r, js["raycast"]);
    }
    return js;
}

// Writes the document (--json) and its plot (--plot), each checked for a failed write.
void write_outputs(const BenchOptions& o, const json& doc) {
    if (!o.json_path.empty()) {
        std::ofstream f(o.json_path);
        if (!f) throw std::runtime_error("bench: cannot write '" + o.json_path + "'");
        f << doc.dump(2) << "\n";
        if (!f) throw std::runtime_error("bench: error writing '" + o.json_path + "'");
        std::printf("\nwrote %s\n", o.json_path.c_str());
    }
    if (!o.plot_path.empty()) {
        std::ofstream f(o.plot_path);
        if (!f) throw std::runtime_error("bench: cannot write '" + o.plot_path + "'");
        f << bench_plot_svg(doc);
        if (!f) throw std::runtime_error("bench: error writing '" + o.plot_path + "'");
        std::printf("wrote %s\n", o.plot_path.c_str());
    }
}

}  // namespace

// The bench as a script of its phases: check the call, pick the backend, the document's header and the kernels'
// resources, then each scene in turn, then the outputs.
json run_bench(const BenchOptions& o) {
    check_call(o);
    Bench b(o);
    choose_backend(b);
    read_reference(b);
    json doc = bench_header(b);
    if (measures_error(o)) {
        doc["reference"] = o.reference;
        doc["spp_list"] = o.spp_list;
        doc["target_relmse"] = o.target_relmse;
    }
    read_kernel_resources(b, doc);
    print_banner(b, doc);
    json scenes = json::array();
    for (const std::string& path : o.scenes) scenes.push_back(bench_scene(b, path));
    doc["scenes"] = scenes;
    write_outputs(o, doc);
    return doc;
}

namespace {

// The scenes of the document whose modes carry an error curve (--reference with --spp-list).
std::vector<const json*> error_scenes(const json& doc) {
    std::vector<const json*> v;
    for (const json& s : doc["scenes"]) {
        bool any = false;
        for (const json& m : s["modes"]) any = any || (m.contains("error") && !m["error"].empty());
        if (any) v.push_back(&s);
    }
    return v;
}

constexpr int kErrorPanelHeight = 300;  // one scene's error-against-time panel, its title and axis labels included

// One scene's panel of relMSE against render time, log-log, from `y`: one line per schedule, each point titled with
// its sample count, the target relMSE dashed.
std::string error_panel_svg(const json& s, double target, int y, int W, int left, int right) {
    static const char* colours[] = {"#4e79a7", "#f28e2b", "#e15759", "#59a14f"};
    double t0 = 1e300, t1 = 0, e0 = target, e1 = target;
    for (const json& m : s["modes"])
        for (const json& p : m.value("error", json::array())) {
            t0 = std::min(t0, p["ms"].get<double>());
            t1 = std::max(t1, p["ms"].get<double>());
            e0 = std::min(e0, p["relmse"].get<double>());
            e1 = std::max(e1, p["relmse"].get<double>());
        }
    // whole decades around the points and the target (an error of 0 is drawn at the bottom)
    const double lt0 = std::floor(std::log10(std::max(t0, 1e-6))), lt1 = std::ceil(std::log10(std::max(t1, 1e-6)));
    const double le0 = std::floor(std::log10(std::max(e0, 1e-12))), le1 = std::ceil(std::log10(std::max(e1, 1e-12)));
    const double dt = std::max(lt1 - lt0, 1.0), de = std::max(le1 - le0, 1.0);
    const int x0 = left, x1 = W - right, py0 = y + 30, py1 = y + kErrorPanelHeight - 40;
    auto px = [&](double ms) { return x0 + (x1 - x0) * (std::log10(std::max(ms, 1e-6)) - lt0) / dt; };
    auto py = [&](double e) { return py1 - (py1 - py0) * (std::log10(std::max(e, 1e-12)) - le0) / de; };
    std::ostringstream o;
    char buf[512];
    std::snprintf(buf, sizeof buf,
                  "<text x=\"10\" y=\"%d\" font-weight=\"bold\">%s: relMSE against render time (log-log)</text>\n"
                  "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#333\"/>\n",
                  y + 12, s["name"].get<std::string>().c_str(), x0, py0, x1 - x0, py1 - py0);
    o << buf;
    for (double k = lt0; k <= lt0 + dt + 1e-9; k += 1) {  // a decade of time: a tick and its label
        std::snprintf(buf, sizeof buf, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%g ms</text>\n",
                      px(std::pow(10, k)), py1 + 16, std::pow(10, k));
        o << buf;
    }
    for (double k = le0; k <= le0 + de + 1e-9; k += 1) {
        std::snprintf(buf, sizeof buf, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%g</text>\n", x0 - 6,
                      py(std::pow(10, k)) + 4, std::pow(10, k));
        o << buf;
    }
    std::snprintf(buf, sizeof buf,
                  "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#888\" stroke-dasharray=\"5 4\"/>"
                  "<text x=\"%d\" y=\"%.1f\" fill=\"#888\" text-anchor=\"end\">target relMSE %g</text>\n",
                  x0, py(target), x1, py(target), x1 - 4, py(target) - 4, target);
    o << buf;
    int k = 0;
    for (const json& m : s["modes"]) {
        if (!m.contains("error")) continue;
        const char* c = colours[k % 4];
        const std::string mode = m["mode"];
        o << "<polyline fill=\"none\" stroke=\"" << c << "\" stroke-width=\"2\" points=\"";
        for (const json& p : m["error"]) o << px(p["ms"].get<double>()) << "," << py(p["relmse"].get<double>()) << " ";
        o << "\"/>\n";
        for (const json& p : m["error"]) {
            std::snprintf(
                buf, sizeof buf,
                "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\"><title>%s %u spp: %.3f ms, relMSE %.4g, "
                "MSE %.4g</title></circle>\n",
                px(p["ms"].get<double>()), py(p["relmse"].get<double>()), c, mode.c_str(), p["spp"].get<uint32_t>(),
                p["ms"].get<double>(), p["relmse"].get<double>(), p["mse"].get<double>());
            o << buf;
        }
        std::snprintf(buf, sizeof buf, "<text x=\"%d\" y=\"%d\" fill=\"%s\">%s</text>\n", x0 + 10 + 120 * k, py1 + 32,
                      c, mode.c_str());
        o << buf;
        ++k;
    }
    return o.str();
}

}  // namespace

std::string bench_plot_svg(const json& doc) {
    static const char* palette[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                                    "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};
    std::vector<std::string> names;  // kernel -> colour, in first-seen order
    for (const json& s : doc["scenes"])
        for (const json& m : s["modes"])
            for (const json& k : m["kernels"])
                if (std::find(names.begin(), names.end(), k["kernel"].get<std::string>()) == names.end())
                    names.push_back(k["kernel"]);
    auto colour = [&](const std::string& n) {
        size_t i = size_t(std::find(names.begin(), names.end(), n) - names.begin());
        return palette[i % 10];
    };
    const int W = 900, left = 170, right = 30, bar_h = 26, gap = 8, panel_gap = 46, top = 50;
    int height = top;
    for (const json& s : doc["scenes"]) height += panel_gap + int(s["modes"].size()) * (bar_h + gap);
    height += 40 + 22 * int((names.size() + 3) / 4);
    const std::vector<const json*> with_error = error_scenes(doc);
    height += kErrorPanelHeight * int(with_error.size());
    std::ostringstream o;
    char buf[512];
    o << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << W << "\" height=\"" << height
      << "\" font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
    // "(gpu: NVIDIA H100 80GB HBM3)", "(cpu, 2 threads)": the CPU's device names its backend already
    const std::string backend = doc.value("backend", std::string("?")), device = doc.value("device", std::string("?"));
    const std::string on = device.rfind(backend, 0) == 0 ? device : backend + ": " + device;
    std::snprintf(buf, sizeof buf,
                  "<text x=\"%d\" y=\"24\" font-size=\"15\">wavepath bench: time per %s, stacked (%s)</text>\n", left,
                  backend == "cpu" ? "stage" : "kernel", on.c_str());
    o << buf;
    int y = top;
    for (const json& s : doc["scenes"]) {
        double tmax = 0;
        for (const json& m : s["modes"]) tmax = std::max(tmax, m["render_ms"].get<double>());
        if (tmax <= 0) tmax = 1;
        y += panel_gap;
        std::snprintf(buf, sizeof buf, "<text x=\"10\" y=\"%d\" font-weight=\"bold\">%s (%dx%d, %d spp)</text>\n",
                      y - 12, s["name"].get<std::string>().c_str(), s["width"].get<int>(), s["height"].get<int>(),
                      s["spp"].get<int>());
        o << buf;
        double scale = double(W - left - right - 90) / tmax;
        for (const json& m : s["modes"]) {
            std::snprintf(buf, sizeof buf, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>\n", left - 8,
                          y + bar_h / 2 + 4, m["mode"].get<std::string>().c_str());
            o << buf;
            double x = left;
            for (const json& k : m["kernels"]) {
                double w = k["ms"].get<double>() * scale;
                std::snprintf(buf, sizeof buf,
                              "<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" fill=\"%s\"><title>%s %.3f ms "
                              "(%.1f%%)</title></rect>\n",
                              x, y, std::max(w, 0.0), bar_h, colour(k["kernel"]),
                              k["kernel"].get<std::string>().c_str(), k["ms"].get<double>(),
                              k["percent_of_frame"].get<double>());
                o << buf;
                x += w;
            }
            double frame = m["render_ms"].get<double>() * scale;
            std::snprintf(buf, sizeof buf,
                          "<rect x=\"%d\" y=\"%d\" width=\"%.2f\" height=\"%d\" fill=\"none\" stroke=\"#333\"/>\n"
                          "<text x=\"%.2f\" y=\"%d\">%.2f ms</text>\n",
                          left, y, frame, bar_h, left + frame + 6, y + bar_h / 2 + 4, m["render_ms"].get<double>());
            o << buf;
            y += bar_h + gap;
        }
    }
    y += 30;
    for (size_t i = 0; i < names.size(); ++i) {
        int lx = left + int(i % 4) * 170, ly = y + int(i / 4) * 22;
        std::snprintf(
            buf, sizeof buf,
            "<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"14\" fill=\"%s\"/><text x=\"%d\" y=\"%d\">%s</text>\n", lx,
            ly - 11, colour(names[i]), lx + 20, ly, names[i].c_str());
        o << buf;
    }
    y += 22 * int((names.size() + 3) / 4) + 10;
    for (const json* s : with_error) {
        o << error_panel_svg(*s, doc.value("target_relmse", 0.01), y, W, left, right);
        y += kErrorPanelHeight;
    }
    o << "</svg>\n";
    return o.str();
}

namespace {

// The bench call's schedules and switches into its options; a usage error (exit 2) for an unknown schedule.
int read_bench_modes(BenchCall& c) {
    c.bo.raycast = !c.no_raycast;
    c.bo.modes.clear();
    std::stringstream ms(c.modes);
    for (std::string m; std::getline(ms, m, ',');) {
        if (m == "wavefront")
            c.bo.modes.push_back(Mode::Wavefront);
        else if (m == "megakernel")
            c.bo.modes.push_back(Mode::Megakernel);
        else {
            std::fprintf(stderr, "error: --modes: unknown schedule '%s' (wavefront, megakernel)\n", m.c_str());
            return kExitUsage;
        }
    }
    if (c.bo.modes.empty()) {
        std::fprintf(stderr, "error: --modes: no schedule given\n");
        return kExitUsage;
    }
    // --spp-list: whole numbers (CLI11 has checked them), measured in increasing order, each once
    std::stringstream ls(c.spp_list);
    for (std::string n; std::getline(ls, n, ',');) c.bo.spp_list.push_back(uint32_t(std::stoul(n)));
    std::sort(c.bo.spp_list.begin(), c.bo.spp_list.end());
    c.bo.spp_list.erase(std::unique(c.bo.spp_list.begin(), c.bo.spp_list.end()), c.bo.spp_list.end());
    return kExitOk;
}

// The outputs before any work, and the scenes: the ones given, else the benchmark set (exit 1 when none is found).
int check_bench_outputs_and_scenes(BenchCall& c) {
    // the outputs before any work
    int bad = 0;
    for (const auto& [path, ext, what] :
         {std::make_tuple(c.bo.json_path, ".json", "--json"), std::make_tuple(c.bo.plot_path, ".svg", "--plot")})
        if (!path.empty())
            if (std::string why = output_problem(path, {ext}, what); !why.empty()) {
                std::fprintf(stderr, "error: %s\n", why.c_str());
                ++bad;
            }
    if (bad) return kExitUsage;
    if (c.bo.scenes.empty()) {
        std::string dir = find_bench_scenes();
        if (dir.empty()) {
            std::fprintf(stderr, "error: no scenes given and no benchmark set found (%s)\n",
                         bench_scene_places().c_str());
            return kExitInput;
        }
        std::string missing;
        c.bo.scenes = default_bench_scenes(dir, missing);
        if (!missing.empty())
            std::fprintf(stderr,
                         "warning: the benchmark set's published pbrt-v4 scenes are not in %s (CMake extracts them "
                         "from tests/parity/published.tar.xz): benchmarking the native scenes alone\n",
                         missing.c_str());
    }
    return kExitOk;
}

}  // namespace

// `wavepath bench` from its command line: the call checked (schedules, outputs, scenes, GPUs), the options that do
// nothing here said, then run_bench; its errors as exit codes.
int run_bench_command(BenchCall& c) {
    if (int rc = read_bench_modes(c)) return rc;
    if (int rc = check_bench_outputs_and_scenes(c)) return rc;
    for (const std::string& why : {devices_problem(c.bo.settings), bench_reference_problem(c.bo)})
        if (!why.empty()) {
            std::fprintf(stderr, "error: %s\n", why.c_str());
            return kExitUsage;
        }
    std::string dev;
    const bool cpu = c.bo.settings.backend == "cpu" || (c.bo.settings.backend == "auto" && !gpu_available(&dev));
    {  // the options that do nothing in this backend and these schedules, counted and said
        OptionUse use;
        use.gpu = !cpu;
        use.wavefront = std::find(c.bo.modes.begin(), c.bo.modes.end(), Mode::Wavefront) != c.bo.modes.end();
        use.megakernel = std::find(c.bo.modes.begin(), c.bo.modes.end(), Mode::Megakernel) != c.bo.modes.end();
        use.raycast = c.bo.raycast;
        use.reference = !c.bo.reference.empty();
        use.auto_reference = c.bo.reference == "auto";
        use.spp_list = !c.bo.spp_list.empty();
        use.wavefront_hint = "--modes wavefront";
        std::string what = std::string("this bench (") + (cpu ? "cpu" : "gpu") + ", --modes " + c.modes +
                           (c.bo.raycast ? "" : ", --no-raycast") + ")";
        std::fputs(ignored_options_text(ignored_options(c.given, use), what).c_str(), stderr);
    }
    try {
        run_bench(c.bo);
    } catch (const UsageError& e) {  // (a --crop outside a scene's image)
        std::fprintf(stderr, "error: %s\n", e.what());
        return kExitUsage;
    } catch (const SceneError& e) {
        std::fprintf(stderr, "error: %s\n", e.what());
        return kExitInput;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "error: %s\n", e.what());
        return kExitRender;
    }
    return kExitOk;
}

}  // namespace wp
