// wavepath command line.
#include <CLI/CLI.hpp>
#include <sys/stat.h>
#include <unistd.h>
#include <atomic>
#include <condition_variable>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <thread>
#include <tuple>
#include <nlohmann/json.hpp>
#include "host/app/bench.h"
#include "host/app/cli_support.h"
#include "host/app/render_setup.h"
#include "host/render/film_file.h"
#include "host/scene/render_limits.h"
#include "host/scene/render_settings.h"
#include "host/image/denoise.h"
#include "host/image/image_io.h"
#include "host/image/image_stats.h"
#include "host/render/render.h"
#include "kernels/aov.h"
#include "host/scene/scene_json.h"

using namespace wp;

namespace {

// SIGINT / SIGTERM: the render stops taking samples, finishes the paths in flight, writes the image so far and
// exits with 128 + signal. A second signal kills at once (default action restored).
std::atomic<bool> g_cancel{false};
volatile std::sig_atomic_t g_signal = 0;
// CLOCK_MONOTONIC at the first signal, in ns (clock_gettime is async-signal-safe): how long the render took to stop
// after it is reported, apart from the image's write (tests/run_cli.sh interrupt_prompt bounds it)
std::atomic<int64_t> g_signal_ns{0};
int64_t monotonic_ns() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}
extern "C" void on_signal(int sig) {
    g_signal = sig;
    g_signal_ns.store(monotonic_ns());
    g_cancel.store(true);
    std::signal(sig, SIG_DFL);
}

// "\r[####......]  42%  1.2 s, ETA 1.6 s" on stderr, at most ten times a second, on a terminal. Elsewhere (a log, a
// pipe) a line every `interval` seconds, the first after `interval` (0: none): "megakernel: 42% (1.1e+06 of
// 2.6e+06 samples), 2.31 Msamples/s, 12.0 s, ETA 16.6 s".
class Progress {
public:
    Progress(std::string label, double interval)
        : label_(std::move(label)), tty_(isatty(STDERR_FILENO) != 0), interval_(interval) {}
    void operator()(uint64_t done, uint64_t total) {
        if (total == 0) return;
        auto now = std::chrono::steady_clock::now();
        double f = double(done) / double(total);
        double el = std::chrono::duration<double>(now - t0_).count();
        if (!tty_) {
            if (interval_ <= 0.0 || el < next_line_ || done == last_done_) return;
            while (next_line_ <= el) next_line_ += interval_;
            last_done_ = done;
            char eta[48] = "";
            if (f > 0.0) std::snprintf(eta, sizeof eta, ", ETA %.1f s", el * (1.0 - f) / f);
            std::fprintf(stderr, "%s: %d%% (%.3g of %.3g samples), %.2f Msamples/s, %.1f s%s\n", label_.c_str(),
                         int(f * 100), double(done), double(total), el > 0 ? 1e-6 * double(done) / el : 0.0, el, eta);
            std::fflush(stderr);
            return;
        }
        if (shown_ && now - last_ < std::chrono::milliseconds(100) && done < total) return;
        last_ = now;
        shown_ = true;
        char bar[21];
        int k = int(f * 20 + 0.5);
        for (int i = 0; i < 20; ++i) bar[i] = i < k ? '#' : '.';
        bar[20] = 0;
        if (f > 0.0)
            std::fprintf(stderr, "\r%s [%s] %3d%%  %.1f s, ETA %.1f s   ", label_.c_str(), bar, int(f * 100), el,
                         el * (1.0 - f) / f);
        else
            std::fprintf(stderr, "\r%s [%s] %3d%%  %.1f s   ", label_.c_str(), bar, 0, el);
        std::fflush(stderr);
    }
    // Clears the line, so that what is printed next starts at its beginning.
    void finish() {
        if (shown_) std::fprintf(stderr, "\r%*s\r", int(label_.size()) + 50, "");
        shown_ = false;
    }
    ~Progress() { finish(); }

private:
    std::string label_;
    bool tty_;
    double interval_, next_line_ = interval_;
    uint64_t last_done_ = ~0ull;
    bool shown_ = false;
    std::chrono::steady_clock::time_point t0_ = std::chrono::steady_clock::now(), last_;
};

// A scene's load, watched from a thread of its own (the loaders cannot be interrupted): every `interval` seconds
// (0: never) a line on stderr, "loading x.json: 30 s so far, 3.2 GiB resident, 12.0 GiB available", and when the
// host runs out of memory (host_memory: at most 1/50 of it or 256 MiB left while this process holds a quarter of
// it; with WP_HOST_MEMORY_LIMIT, resident memory past the limit) an error naming the scene and the sizes, exit code
// 3, rather than swapping or the kernel's OOM killer. After the load, check() compares the load's peak with a
// WP_HOST_MEMORY_LIMIT (the same verdict, whatever the thread saw).
class LoadWatch {
public:
    LoadWatch(std::string path, double interval) : path_(std::move(path)), interval_(interval) {
        thread_ = std::thread([this] { watch(); });
    }
    ~LoadWatch() {
        {
            std::lock_guard<std::mutex> l(m_);
            done_ = true;
        }
        cv_.notify_all();
        thread_.join();
    }
    // "" when the load stayed within a WP_HOST_MEMORY_LIMIT, else the error
    std::string check() const {
        const HostMemory hm = host_memory();
        const uint64_t peak = process_peak_bytes();
        return hm.limited && peak > hm.total ? too_big(peak, hm) : "";
    }

private:
    std::string too_big(uint64_t held, const HostMemory& hm) const {
        return path_ + ": the scene does not fit in host memory: loading it " +
               (hm.limited ? "took " + bytes_text(held) + ", over WP_HOST_MEMORY_LIMIT=" + bytes_text(hm.total)
                           : "holds " + bytes_text(held) + " and " + bytes_text(hm.available) + " of the host's " +
                                 bytes_text(hm.total) + " are left") +
               " (the parse, the scene's arrays and its BVH; `--stats` on a smaller version of the scene shows what "
               "the tree takes)";
    }
    void watch() {
        const auto t0 = std::chrono::steady_clock::now();
        double next = interval_;
        std::unique_lock<std::mutex> l(m_);
        while (!cv_.wait_for(l, std::chrono::milliseconds(100), [this] { return done_; })) {
            const double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            const HostMemory hm = host_memory();
            const uint64_t rss = process_resident_bytes();
            const bool out = hm.limited
                                 ? rss > hm.total
                                 : hm.available < std::max<uint64_t>(hm.total / 50, 256ull << 20) && rss > hm.total / 4;
            if (out) {
                std::fprintf(stderr, "error: %s\n", too_big(rss, hm).c_str());
                std::fflush(stderr);
                std::_Exit(kExitRender);
            }
            if (interval_ > 0.0 && el >= next) {
                while (next <= el) next += interval_;
                std::fprintf(stderr, "loading %s: %.0f s so far, %s resident, %s available\n", path_.c_str(), el,
                             bytes_text(rss).c_str(), bytes_text(hm.available).c_str());
                std::fflush(stderr);
            }
        }
    }
    std::string path_;
    double interval_;
    std::mutex m_;
    std::condition_variable cv_;
    bool done_ = false;
    std::thread thread_;
};

// A count as the help texts write it: 8M, 64K, or the number.
std::string count_text(uint64_t n) {
    if (n >= (1u << 20) && n % (1u << 20) == 0) return std::to_string(n >> 20) + "M";
    if (n >= (1u << 10) && n % (1u << 10) == 0) return std::to_string(n >> 10) + "K";
    return std::to_string(n);
}

// A whole number in [lo, hi], with a message of human size: "--spp: 0 is out of range (1 to 16777216)".
CLI::Validator whole(uint64_t lo, uint64_t hi) {
    return CLI::Validator(
        [lo, hi](std::string& v) -> std::string {
            const std::string range = "(" + std::to_string(lo) + " to " + std::to_string(hi) + ")";
            size_t used = 0;
            unsigned long long x = 0;
            bool ok = !v.empty() && v[0] != '-' && v[0] != '+';
            try {
                if (ok) x = std::stoull(v, &used, 10);
            } catch (const std::exception&) { ok = false; }
            if (!ok || used != v.size()) return "'" + v + "' is not a whole number " + range;
            if (x < lo || x > hi) return v + " is out of range " + range;
            return "";
        },
        "", "whole");
}

// A number in [lo, hi], with a message of human size: "--clamp: -1 is out of range (0 to 1e+30; 0: off)".
CLI::Validator real(double lo, double hi, const std::string& note = "") {
    return CLI::Validator(
        [lo, hi, note](std::string& v) -> std::string {
            char range[96];
            std::snprintf(range, sizeof range, "(%g to %g%s%s)", lo, hi, note.empty() ? "" : "; ", note.c_str());
            size_t used = 0;
            double x = 0;
            bool ok = !v.empty();
            try {
                if (ok) x = std::stod(v, &used);
            } catch (const std::exception&) { ok = false; }
            if (!ok || used != v.size() || !std::isfinite(x)) return "'" + v + "' is not a number " + range;
            if (x < lo || x > hi) return v + " is out of range " + range;
            return "";
        },
        "", "real");
}

// A setting of the list as an option: its flag, its help with the default of a native scene file, its range check
// (set_setting's messages: "--rr-depth: 5000 is out of range (1 to 1024)"). A flag's "true"/"false" read as 1/0.
template <class T>
void add_setting_option(CLI::App* cmd, std::optional<T>& into, const SettingInfo& s) {
    const std::string def = setting_text(default_settings(), s);
    cmd->add_option(s.flag, into,
                    std::string(s.help) + " (default: the scene's render." + s.name + ", else " + def + ")")
        ->check(CLI::Validator(
            [&s](std::string& v) {
                std::string why = setting_value_problem(s, v);
                if (why.empty() && s.kind == SettingKind::Flag) v = v == "true" || v == "1" ? "1" : "0";
                return why;
            },
            "", s.name));
}

// The options `render` and `bench` share, declared once: the backend, the overrides of the scene's settings and
// the render options, bound to `s`. Defaults come from the structs (RenderOptions); help texts print them.
void add_render_options(CLI::App* cmd, RenderSettings& s) {
    SceneOverrides& o = s.scene;
    RenderOptions& r = s.options;
    cmd->add_option("--backend", s.backend, "gpu, cpu or auto (default auto: the GPU when present)")
        ->check(CLI::IsMember({"auto", "gpu", "cpu"}));
    // every render setting of the list (kernels/render_params.h) as its option, checked against the list's range
#define WP_SETTING_OPTION(K, member, n, ...) add_setting_option(cmd, o.n, *find_setting(#n));
    WP_RENDER_SETTINGS(WP_SETTING_OPTION)
#undef WP_SETTING_OPTION
    cmd->add_option("--set", s.sets,
                    "NAME=VALUE: a render setting by its name, as in the scene file's render block (repeatable; "
                    "docs/OPTIONS.md; settings: " +
                        setting_names() + ")")
        ->check(CLI::Validator(
            [](std::string& v) {
                SceneOverrides none;
                return set_override(none, v);
            },
            "NAME=VALUE", "setting"));
    // (after every option is read: a setting given by --set and by its own option is refused there)
    cmd->parse_complete_callback([&s] {
        for (const std::string& a : s.sets)
            if (std::string why = set_override(s.scene, a); !why.empty()) throw CLI::ValidationError("--set", why);
    });
    cmd->add_option("--capacity", r.capacity,
                    "wavefront paths in flight (default: GPU " + count_text(kDefaultGpuCapacity) +
                        " within free memory; CPU " + count_text(kDefaultCpuCapacity) + ")")
        ->check(whole(1, 1u << 30));
    cmd->add_flag("--sort-materials", r.sort_materials, "wavefront: shade in material order (CUB radix sort)");
    cmd->add_option("--sort-rays", r.sort_rays,
                    "wavefront: an iteration of at least this many paths traces its rays in spatial order (the "
                    "direction's octant and the Morton code of the origin, CUB radix sort); same image; 0: never "
                    "(default)")
        ->check(whole(0, 0xffffffffu));
    cmd->add_flag(
        "--general-kernels", r.general_kernels,
        "GPU: the kernels compiled for every feature, not the smallest set that holds the scene's (a baseline)");
    cmd->add_option("--drain", r.drain_below,
                    "wavefront: once all camera paths are out, finish at most this many live paths in one kernel, "
                    "each path to its end (0: never; default " +
                        std::to_string(RenderOptions::kDefaultDrainBelow) + ")")
        ->check(whole(0, 0xffffffffu));
    cmd->add_flag("--push-compaction,!--select-compaction", r.push_compaction,
                  "wavefront compaction: shade packs live paths into the next queue by a CUB block scan (default), "
                  "or --select-compaction: CUB DeviceSelect and a gather kernel");
    cmd->add_option("--refill", r.refill,
                    "GPU: persistent extend kernel, a warp refills its idle lanes once this many (1-32) are idle; "
                    "0: one thread per ray (default " +
                        std::to_string(RenderOptions::kDefaultRefill) + ")")
        ->check(whole(0, 32));
    cmd->add_option("--threads", r.threads, "CPU threads (default: all cores)")->check(whole(1, 4096));
    cmd->add_option("--devices", s.devices,
                    "GPU: split the render over these CUDA devices, 'all' or a list (0,1; a repeated index is "
                    "several workers on one GPU): batches of samples from a shared counter, the image bit for bit "
                    "the single GPU's");
    cmd->add_flag("--strict", s.load.strict, "every warning of a scene importer is an error");
}

// A split render's workers, one line each: what they took and how long they were busy.
void print_devices(const RenderStats& st) {
    if (st.devices.empty()) return;
    std::printf("  split over %zu workers in batches of %llu samples:\n", st.devices.size(),
                (unsigned long long)st.split_batch);
    for (const DeviceStat& d : st.devices)
        std::printf("    device %d (%s): %llu batches, %llu samples, busy %.2f ms, setup %.2f ms\n", d.device,
                    d.name.c_str(), (unsigned long long)d.batches, (unsigned long long)d.samples, d.busy_ms,
                    d.setup_ms);
}

void print_stats(const RenderStats& st, const RenderOptions& opt) {
    std::printf("  %s %s on %s: %.2f ms, %.2f Msamples/s, %.1f Mrays/s (%llu extension + %llu shadow rays)\n",
                st.backend.c_str(), mode_name(st.mode), st.device.c_str(), st.render_ms, st.msamples_per_s(),
                st.mrays_per_s(), (unsigned long long)st.extension_rays, (unsigned long long)st.shadow_rays);
    if (st.backend == "gpu")
        std::printf("  kernels of feature set '%s' (kernels/features.h)\n", st.feature_set.c_str());
    print_devices(st);
    if (!st.devices.empty())
        std::printf("  (split render: kernel times summed over the devices, %% of the frame's wall time)\n");
    if (st.mode == Mode::Wavefront)
        std::printf("  queue capacity %u paths, %zu iterations, shading %s, compaction %s, %llu paths drained\n",
                    st.capacity, st.iterations.size(), st.sorted ? "sorted by material" : "unsorted",
                    opt.push_compaction ? "by push" : "by select and gather", (unsigned long long)st.drained);
    double sum = 0;
    for (const KernelRow& k : st.kernels) sum += k.ms;
    std::printf("  %-16s %9s %11s %8s %11s\n", "kernel", "launches", "total ms", "% frame", "avg ms");
    for (const KernelRow& k : st.kernels)
        std::printf("  %-16s %9llu %11.3f %7.1f%% %11.4f\n", k.name.c_str(), (unsigned long long)k.launches, k.ms,
                    st.render_ms > 0 ? 100.0 * k.ms / st.render_ms : 0.0, k.launches ? k.ms / double(k.launches) : 0.0);
    std::printf("  %-16s %9s %11.3f %7.1f%%   (rest: launch gaps, read-backs)\n", "sum", "", sum,
                st.render_ms > 0 ? 100.0 * sum / st.render_ms : 0.0);
    if (st.mode == Mode::Wavefront && !st.paths_at_depth.empty()) {
        std::printf("  queue sizes per bounce (paths shaded at each depth, shadow rays they pushed):\n");
        std::printf("  %6s %14s %14s\n", "depth", "paths", "shadow rays");
        for (size_t d = 0; d < st.paths_at_depth.size(); ++d) {
            if (st.paths_at_depth[d] == 0) continue;
            std::printf("  %5zu%s %14llu %14llu\n", d, d + 1 == st.paths_at_depth.size() ? "+" : " ",
                        st.paths_at_depth[d], st.shadow_at_depth[d]);
        }
        std::printf("  per iteration (generated / extended / shadow / live after compaction):");
        size_t n = st.iterations.size();
        for (size_t i = 0; i < n; ++i) {
            if (n > 12 && i == 6) {
                std::printf(" ...");
                i = n - 6;
            }
            const IterationStat& it = st.iterations[i];
            std::printf(" %u/%u/%u/%u", it.generated, it.extended, it.shadow, it.live);
        }
        std::printf("\n");
    }
}

// The command line as one string, for the metadata and the bench's JSON (arguments with spaces quoted).
std::string command_line(int argc, char** argv) {
    std::string c;
    for (int i = 0; i < argc; ++i) {
        std::string a = argv[i];
        bool quote = a.empty() || a.find_first_of(" \t'\"{}*?") != std::string::npos;
        c += (i ? " " : "") + (quote ? "'" + a + "'" : a);
    }
    return c;
}

// One word of a shell command: as it is when the shell leaves it so, else in single quotes.
std::string shell_word(const std::string& a) {
    if (!a.empty() && a.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+=.,:/@%") ==
                          std::string::npos)
        return a;
    std::string q = "'";
    for (char ch : a) q += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
    return q + "'";
}

// The schedule of a render in words, for the EXR metadata.
std::string schedule_text(Mode m, Backend be, const RenderStats& st, const RenderOptions& opt) {
    std::string s = mode_name(m);
    if (m == Mode::Wavefront) {
        s += ", capacity " + std::to_string(st.capacity) + ", compaction " +
             (opt.push_compaction ? "by push" : "by select and gather") + ", shading " +
             (st.sorted ? "sorted" : "unsorted") + ", drain below " + std::to_string(opt.drain_below);
        if (opt.sort_rays > 0) s += ", rays sorted from " + std::to_string(opt.sort_rays) + " paths";
        if (be == Backend::Gpu) s += ", refill " + std::to_string(opt.refill);
    } else if (be == Backend::Gpu) {
        s += ", persistent with path regeneration";
    }
    if (!st.devices.empty())
        s += ", split over " + std::to_string(st.devices.size()) + " workers in batches of " +
             std::to_string(st.split_batch) + " samples";
    return s;
}

// --devices against the backend and the GPUs visible (into options.devices): "" when good or not given, else the
// problem (a usage error).
std::string devices_problem(RenderSettings& rs) {
    if (!rs.devices_given) return "";
    if (rs.backend == "cpu")
        return "--devices picks CUDA GPUs: not with --backend cpu (--threads sets the CPU's threads)";
    return parse_devices(rs.devices, gpu_device_count(), rs.options.devices);
}

// One scene of a `render` call: its outputs (named before anything is loaded), the loaded scene, what became of it.
struct Job {
    std::string scene;
    std::string output;               // the image, or (--mode both) the name the two images are derived from
    std::vector<std::string> images;  // one per schedule
    std::string compare;              // --mode both: the comparison's JSON
    std::unique_ptr<LoadedScene> loaded;
    std::string status = "not run";
    std::string written;  // what was written, for the summary
    double seconds = 0.0, msamples_per_s = 0.0;
    int code = kExitOk;
};

// A render of this many samples or more gets a cost estimate first (a probe of a few samples).
uint64_t probe_threshold(Backend be) { return be == Backend::Gpu ? (1ull << 32) : (1ull << 24); }

// Seconds the render would take, from a short probe: the scene at a size of about `probe` samples (1 spp at a
// reduced resolution, or a few spp at the scene's own), timed by the renderer (upload excluded). 0 if cancelled.
double estimate_seconds(Backend be, const LoadedScene& ls, Mode m, const RenderOptions& opt) {
    const RenderParams& rp = ls.params;
    const uint64_t probe = be == Backend::Gpu ? (1ull << 22) : (1ull << 16);
    RenderParams pp = rp;
    if (rp.num_pixels() > probe) {
        double f = std::sqrt(double(probe) / double(rp.num_pixels()));
        pp.width = std::max<uint32_t>(1, uint32_t(rp.width * f));
        pp.height = std::max<uint32_t>(1, uint32_t(rp.height * f));
        pp.spp = 1;
    } else {
        pp.spp = uint32_t(std::max<uint64_t>(1, probe / rp.num_pixels()));
    }
    RenderOptions po = opt;
    po.sample_begin = po.sample_end = 0;  // the probe's own samples (the caller scales to its range)
    po.progress = nullptr;
    po.queue_stats = false;
    po.kernel_timing = false;
    RenderStats st;
    wp::render(be, ls.data, pp, m, po, &st);
    if (st.samples == 0 || st.render_ms <= 0) return 0.0;
    return double(rp.num_pixels()) * rp.spp * (st.render_ms / 1e3) / double(st.samples);
}

std::string duration_text(double s) {
    char b[64];
    if (s < 120)
        std::snprintf(b, sizeof b, "%.0f seconds", s);
    else if (s < 7200)
        std::snprintf(b, sizeof b, "%.0f minutes", s / 60);
    else if (s < 2 * 86400)
        std::snprintf(b, sizeof b, "%.1f hours", s / 3600);
    else
        std::snprintf(b, sizeof b, "%.1f days", s / 86400);
    return b;
}

// Writes the image; if that fails (the disk filled up since the check), the image goes to the current folder or
// /tmp instead, so that nothing rendered is lost. Returns the path written ("" if none could be).
// A render's output by its extension: a partial film (.wpfilm) or an image.
void write_output(const std::string& path, const Image& img, const PartialFilm& film, const ImageMetadata& meta) {
    if (extension_of(path) == ".wpfilm")
        write_film(path, film);
    else
        write_image(path, img, meta);
}

// The outputs `render -o` writes: the images and partial films.
const std::vector<std::string>& render_extensions() {
    static const std::vector<std::string> e = [] {
        std::vector<std::string> v = image_extensions();
        v.push_back(".wpfilm");
        return v;
    }();
    return e;
}

std::string write_or_rescue(const std::string& target, const Image& img, const PartialFilm& film,
                            const ImageMetadata& meta) {
    try {
        write_output(target, img, film, meta);
        return target;
    } catch (const std::exception& e) { std::fprintf(stderr, "error: %s\n", e.what()); }
    size_t s = target.find_last_of('/');
    std::string file = with_tag(s == std::string::npos ? target : target.substr(s + 1), "rescued");
    for (const std::string& alt : {"./" + file, "/tmp/" + file}) {
        if (!output_problem(alt, render_extensions(), "rescue").empty()) continue;
        try {
            write_output(alt, img, film, meta);
            std::fprintf(stderr, "error: %s could not be written: the image is saved as %s\n", target.c_str(),
                         alt.c_str());
            return alt;
        } catch (const std::exception&) {}
    }
    std::fprintf(stderr, "error: %s could not be written anywhere: the image is lost\n", target.c_str());
    return "";
}

// PNG and PFM carry no metadata: an interrupted render's goes to a .json sidecar beside the image.
void write_sidecar(const std::string& image, const ImageMetadata& meta) {
    nlohmann::json j = nlohmann::json::object();
    for (const auto& [k, v] : meta) j[k.substr(k.find(':') + 1)] = v;
    std::ofstream(image + ".json") << j.dump() << "\n";
}

void print_summary(const std::vector<Job>& jobs) {
    size_t w = 5, wo = 6;
    for (const Job& j : jobs) {
        w = std::max(w, j.scene.size());
        wo = std::max(wo, j.written.size());
    }
    std::printf("\n%-*s  %-14s %9s %11s  %s\n", int(w), "scene", "status", "time s", "Msamples/s", "output");
    for (const Job& j : jobs)
        std::printf("%-*s  %-14s %9.2f %11.2f  %s\n", int(w), j.scene.c_str(), j.status.c_str(), j.seconds,
                    j.msamples_per_s, j.written.empty() ? "-" : j.written.c_str());
    size_t ok = 0;
    for (const Job& j : jobs) ok += j.status == "ok";
    std::printf("%zu of %zu scenes rendered\n", ok, jobs.size());
}

// --denoise-device's value (CLI11 has checked it is auto, cpu or cuda).
DenoiseDevice denoise_device_of(const std::string& v) {
    return v == "cpu" ? DenoiseDevice::Cpu : v == "cuda" ? DenoiseDevice::Cuda : DenoiseDevice::Auto;
}

// The AOVs --denoise renders as its guides.
uint32_t denoise_guides(bool denoise) { return denoise ? uint32_t(kAovAlbedo | kAovNormal) : 0u; }

// The command-line options for the AOVs `aovs` and the denoiser: "--denoise --aov albedo,depth", "" for neither.
std::string aov_options(uint32_t aovs, bool denoise) {
    std::string o = denoise ? "--denoise" : "";
    if (aovs) o += (o.empty() ? "--aov " : " --aov ") + aov_names(aovs);
    return o;
}

// The options that resume a film holding the AOVs `aovs`, for a command with or without --denoise: with --denoise
// (and the film holding its guides), --aov names the others.
std::string resume_aov_options(uint32_t aovs, bool denoise) {
    const uint32_t g = denoise_guides(true);
    return denoise && (aovs & g) == g ? aov_options(aovs & ~g, true) : aov_options(aovs, false);
}

// `wavepath render`: outputs checked, every scene loaded, then the renders.
struct RenderCall {
    std::vector<std::string> scenes;
    std::string out, output_dir, mode = "auto", command;
    std::string samples;  // --samples START:COUNT
    std::string resume;   // --resume PART
    bool stats = false, keep_going = false;
    uint32_t aovs = 0;                    // --aov: kernels/aov.h AovBits
    bool denoise = false;                 // --denoise
    std::string denoise_device = "auto";  // --denoise-device: auto, cpu, cuda
    double progress = 10.0;               // --progress: seconds between progress lines off a terminal (0: none)
    std::vector<std::string> given;       // the render options given, for those that do nothing here
    RenderSettings rs;
};

// "START:COUNT" of --samples: false when it is not two whole numbers with COUNT > 0.
bool parse_samples(const std::string& v, uint64_t& start, uint64_t& count) {
    size_t colon = v.find(':');
    if (colon == std::string::npos) return false;
    auto num = [](const std::string& t, uint64_t& x) {
        if (t.empty() || t.size() > 9 || t.find_first_not_of("0123456789") != std::string::npos) return false;
        x = std::stoull(t);
        return true;
    };
    return num(v.substr(0, colon), start) && num(v.substr(colon + 1), count) && count > 0;
}

int run_render(const RenderCall& c) {
    std::signal(SIGINT, on_signal);
    std::signal(SIGTERM, on_signal);
    RenderSettings rs = c.rs;
    // 0. the shard and resume options' form
    uint64_t shard_start = 0, shard_count = 0;
    const bool shard = !c.samples.empty(), resuming = !c.resume.empty();
    if (shard && !parse_samples(c.samples, shard_start, shard_count)) {
        std::fprintf(stderr,
                     "error: --samples '%s': give START:COUNT, e.g. --samples 32:32 (samples 32 to 63 of "
                     "every pixel)\n",
                     c.samples.c_str());
        return kExitUsage;
    }
    if (shard && resuming) {
        std::fprintf(stderr, "error: --samples and --resume together: the film to resume holds its range\n");
        return kExitUsage;
    }
    if (resuming && (c.scenes.size() > 1 || c.mode == "both")) {
        std::fprintf(stderr, "error: --resume continues one render: give one scene and one --mode\n");
        return kExitUsage;
    }
    // a folder given as a scene is said to be one, before an output is named after it
    for (const std::string& sc : c.scenes) {
        try {
            refuse_folder(sc);
        } catch (const SceneError& e) {
            std::fprintf(stderr, "error: %s\n", e.what());
            return kExitInput;
        }
    }
    // 1. the outputs, before anything is loaded: named, distinct, writable (probe files)
    std::vector<Job> jobs(c.scenes.size());
    std::vector<std::string> problems;
    if (c.scenes.size() > 1 && !c.out.empty() && c.out.find("{name}") == std::string::npos &&
        c.out.find("{dir}") == std::string::npos) {
        std::fprintf(stderr,
                     "error: -o '%s' names one file for %zu scenes: give a pattern such as -o 'out/{name}.exr', or "
                     "--output-dir\n",
                     c.out.c_str(), c.scenes.size());
        return kExitUsage;
    }
    if (!c.output_dir.empty() && !c.out.empty() && c.out[0] == '/') {
        std::fprintf(stderr,
                     "error: --output-dir %s with an absolute -o %s: the output would not be in %s; give -o relative "
                     "to it (-o '{name}.exr') or leave out --output-dir\n",
                     c.output_dir.c_str(), c.out.c_str(), c.output_dir.c_str());
        return kExitUsage;
    }
    const bool both = c.mode == "both";
    std::vector<std::string> notes;  // the outputs the scenes name for themselves (pbrt's Film, Tungsten's renderer)
    // (AOVs are kept as exact sums in the partial film, as the beauty: shards and resumes carry them)
    if (shard && c.denoise)
        problems.push_back(
            "--denoise with --samples: a part is not an image; render the AOVs (--aov albedo,normal) into the parts "
            "and denoise the merged image (wavepath merge --denoise)");
    std::map<std::string, std::string> owner;  // output -> scene
    for (size_t i = 0; i < jobs.size(); ++i) {
        Job& j = jobs[i];
        j.scene = c.scenes[i];
        std::string pattern = c.out, directive;
        if (const std::string named = scene_output_name(j.scene, &directive); !named.empty()) {
            const std::string file = named.substr(named.find_last_of('/') + 1);
            const std::vector<std::string>& known = image_extensions();
            if (!c.out.empty())
                notes.push_back(j.scene + ": its " + directive + " \"" + named + "\" is not used: -o gives the output");
            else if (std::find(known.begin(), known.end(), extension_of(file)) == known.end())
                notes.push_back(j.scene + ": its " + directive + " \"" + named +
                                "\" is not used: wavepath writes .exr, .png or .pfm (-o), here the default {name}.exr");
            else {
                pattern = file;
                notes.push_back(
                    j.scene + ": writing " + output_for(file, c.output_dir, j.scene) + ", the file its " + directive +
                    " names" + (file == named ? std::string() : " (\"" + named + "\", its folders dropped)") +
                    ", in the " + (c.output_dir.empty() ? "current folder" : "--output-dir") + " (-o gives another)");
            }
        }
        j.output = output_for(pattern, c.output_dir, j.scene);
        if (both) {
            j.images = {with_tag(j.output, "wavefront"), with_tag(j.output, "megakernel")};
            j.compare = with_extension(j.output, ".compare.json");
        } else {
            j.images = {j.output};
        }
        std::vector<std::string> outs;
        for (const std::string& img : j.images) {
            outs.push_back(img);
            if (extension_of(img) != ".wpfilm")  // (a partial film holds its AOVs' sums itself)
                for (const std::string& f : aov_files(img, c.aovs)) outs.push_back(f);
            if (c.denoise) outs.push_back(aov_path(img, "denoised"));
        }
        for (const std::string& img : outs) {
            if (std::string why = output_problem(img, render_extensions(), "output"); !why.empty())
                problems.push_back(why);
            else if (shard && extension_of(img) != ".wpfilm")
                problems.push_back("output '" + img +
                                   "': --samples renders a part of the image: write it as a partial film (-o "
                                   "part.wpfilm) and join the parts with `wavepath merge`");
            else if (auto [it, fresh] = owner.emplace(img, j.scene); !fresh)
                problems.push_back("output '" + img + "': both " + it->second + " and " + j.scene +
                                   " would write it (use -o with {dir}, e.g. -o 'out/{dir}-{name}.exr')");
        }
    }
    if (!problems.empty()) {
        for (const std::string& p : problems) std::fprintf(stderr, "error: %s\n", p.c_str());
        return kExitUsage;
    }
    for (const std::string& n : notes) std::printf("output: %s\n", n.c_str());

    // 2. the backend
    std::string dev;
    const bool have_gpu = gpu_available(&dev);
    if (rs.backend == "gpu" && !have_gpu) {
        std::fprintf(stderr, "error: --backend gpu asked for, but no CUDA GPU is present (or the build has no CUDA)\n");
        return kExitRender;
    }
    const Backend be = (rs.backend == "gpu" || (rs.backend == "auto" && have_gpu)) ? Backend::Gpu : Backend::Cpu;
    if (rs.backend == "auto")
        std::printf("backend: %s\n", be == Backend::Gpu ? ("gpu (" + dev + ")").c_str() : "cpu (no CUDA GPU found)");
    if (std::string why = devices_problem(rs); !why.empty()) {
        std::fprintf(stderr, "error: %s\n", why.c_str());
        return kExitUsage;
    }
    // the denoiser, before any work (host/image/denoise.h): on the render's GPU (OIDN's CUDA device) or the CPU
    DenoiseDevice denoise_on = DenoiseDevice::Cpu;
    const int denoise_gpu = rs.options.devices.empty() ? 0 : rs.options.devices[0];
    if (c.denoise) {
        const DenoiseDevice asked = denoise_device_of(c.denoise_device);
        denoise_on = resolve_denoise_device(asked, be == Backend::Gpu, denoise_gpu);
        if (std::string why = denoiser_problem(denoise_on, denoise_gpu); !why.empty()) {
            std::fprintf(stderr, "error: --denoise on the %s: %s\n",
                         denoise_on == DenoiseDevice::Cuda ? "GPU (--denoise-device cuda)" : "CPU", why.c_str());
            return kExitUsage;
        }
    } else if (c.denoise_device != "auto") {
        std::fprintf(stderr, "warning: --denoise-device without --denoise: ignored\n");
    }

    std::vector<Mode> modes;
    if (both)
        modes = {Mode::Wavefront, Mode::Megakernel};
    else if (c.mode == "wavefront" || (c.mode == "auto" && be == Backend::Gpu))
        modes = {Mode::Wavefront};
    else
        modes = {Mode::Megakernel};

    // the options that do nothing in this backend and these schedules, counted and said
    {
        OptionUse use;
        use.gpu = be == Backend::Gpu;
        use.wavefront = std::find(modes.begin(), modes.end(), Mode::Wavefront) != modes.end();
        use.megakernel = std::find(modes.begin(), modes.end(), Mode::Megakernel) != modes.end();
        const std::string what = std::string("this render (") + (use.gpu ? "gpu " : "cpu ") +
                                 (both ? "wavefront and megakernel" : mode_name(modes[0])) + ")";
        std::fputs(ignored_options_text(ignored_options(c.given, use), what).c_str(), stderr);
    }

    // the film to resume, read before the scene: its settings are the render's (unless the command line gives them)
    PartialFilm resumed;
    if (resuming) {
        try {
            resumed = read_film(c.resume);
        } catch (const std::exception& e) {
            std::fprintf(stderr, "error: --resume: %s\n", e.what());
            return kExitInput;
        }
        // the AOVs continue as the film holds them: their sums over the earlier samples are in it. --denoise renders
        // its guides (albedo, normal) as AOVs: a film of a render with --denoise holds them; one without them is
        // denoised from the beauty alone.
        if (resumed.aovs != (c.aovs | denoise_guides(c.denoise)) && !(c.denoise && resumed.aovs == c.aovs)) {
            if (resumed.aovs)
                std::fprintf(
                    stderr, "error: --resume %s holds the AOVs %s: resume it with %s%s\n", c.resume.c_str(),
                    aov_names(resumed.aovs).c_str(), resume_aov_options(resumed.aovs, c.denoise).c_str(),
                    !c.denoise && (resumed.aovs & denoise_guides(true)) == denoise_guides(true)
                        ? (" (or " + resume_aov_options(resumed.aovs, true) + ", whose guides they are)").c_str()
                        : "");
            else
                std::fprintf(stderr,
                             "error: --resume %s holds no AOVs (its samples so far were rendered without --aov): "
                             "resume it without --aov\n",
                             c.resume.c_str());
            return kExitUsage;
        }
        if (c.denoise && (resumed.aovs & denoise_guides(true)) != denoise_guides(true))
            std::fprintf(stderr,
                         "warning: --denoise: %s holds no albedo and normal AOVs (its samples so far were rendered "
                         "without them): the denoiser runs on the beauty alone\n",
                         c.resume.c_str());
    }

    // 3. every scene loaded and checked before the first render; the errors reported together
    size_t load_errors = 0;
    for (Job& j : jobs) {
        try {
            {
                // a large file says so before its load starts (a log shows the load from its first second)
                struct stat fs {};
                if (stat(j.scene.c_str(), &fs) == 0 && uint64_t(fs.st_size) >= (64ull << 20))
                    std::fprintf(stderr, "loading %s: a %s file; host memory %s available\n", j.scene.c_str(),
                                 bytes_text(uint64_t(fs.st_size)).c_str(), bytes_text(host_memory().available).c_str());
                LoadWatch watch(j.scene, c.progress);
                j.loaded = std::make_unique<LoadedScene>(load_render_scene(j.scene, rs.scene, rs.load));
                if (std::string why = watch.check(); !why.empty()) {
                    std::fprintf(stderr, "error: %s\n", why.c_str());
                    j.loaded.reset();
                    j.status = "scene error";
                    j.code = kExitRender;
                    ++load_errors;
                    if (g_cancel) break;
                    continue;
                }
            }
            if (c.stats || load_was_slow(*j.loaded))
                std::fprintf(stderr, "%s\n", load_line(j.scene, *j.loaded).c_str());
            if (resuming) {  // the film's settings where the command line gives none (as its render had them)
                // every setting of the list (kernels/render_params.h) the command line does not give; a new width
                // or height sets the camera's aspect, as an override does
                // (in the settings' form: width and height the full image's where there is a crop)
                RenderParams p = crop_settings(j.loaded->params);
                const RenderParams fp = crop_settings(film_params(resumed));
                const uint32_t scene_width = p.width, scene_height = p.height;
                for (const SettingInfo& st : render_settings())
                    if (!override_given(rs.scene, st.name)) copy_setting(p, fp, st);
                if (p.width != scene_width || p.height != scene_height)
                    j.loaded->data.camera.aspect = float(p.width) / float(p.height);
                if (std::string why = render_limits_problem(p); !why.empty())  // (--crop against the film's size)
                    throw SceneError(j.scene + ": " + why);
                j.loaded->params = crop_for_render(p);
                // --spp above the film's: the render goes on to the larger count (the random numbers are keyed by
                // pixel and sample, so the film is a prefix of that render); below it: an error
                if (rs.scene.spp && rs.scene.spp != resumed.spp) raise_film_spp(resumed, *rs.scene.spp, c.resume);
                PartialFilm here;
                here.scene = j.scene;
                here.scene_hash = scene_fingerprint(j.loaded->data);
                set_film_settings(here, j.loaded->params);
                if (std::string d = film_settings_difference(resumed, here); !d.empty())
                    throw FilmError("--resume " + c.resume + " is not a render of " + j.scene +
                                    " with these settings: they differ in " + d);
            }
        } catch (const SceneMemoryError& e) {  // the tree's forecast over the memory available: refused unbuilt
            std::fprintf(stderr, "error: %s\n", e.what());
            j.status = "scene error";
            j.code = kExitRender;
            ++load_errors;
        } catch (const std::exception& e) {
            std::fprintf(stderr, "error: %s\n", e.what());
            j.status = "scene error";
            j.code = kExitInput;
            ++load_errors;
        }
        if (g_cancel) break;
    }
    if (load_errors && !c.keep_going) {
        if (jobs.size() > 1)
            std::fprintf(stderr, "%zu of %zu scenes failed to load: nothing rendered (--keep-going renders the rest)\n",
                         load_errors, jobs.size());
        for (const Job& j : jobs)
            if (j.code != kExitOk) return j.code;
        return kExitInput;
    }

    // 4. the renders
    bool interrupted = false;
    for (Job& j : jobs) {
        if (!j.loaded || interrupted || g_cancel) continue;
        const LoadedScene& ls = *j.loaded;
        const RenderParams& rp = ls.params;
        RenderOptions opt = rs.options;
        opt.cancel = &g_cancel;
        const uint64_t np = rp.num_pixels(), all_samples = np * rp.spp;
        uint64_t target_end = all_samples;
        opt.sample_end = all_samples;
        if (shard) {
            if (shard_start + shard_count > rp.spp) {
                std::fprintf(stderr,
                             "error: %s: --samples %s goes past the render's %u samples per pixel (--spp sets "
                             "them)\n",
                             j.scene.c_str(), c.samples.c_str(), rp.spp);
                j.status = "usage error";
                j.code = kExitUsage;
                if (!c.keep_going) break;
                continue;
            }
            opt.sample_begin = shard_start * np;
            opt.sample_end = target_end = (shard_start + shard_count) * np;
        } else if (resuming) {
            opt.sample_begin = resumed.end;
            opt.sample_end = target_end = resumed.target_end;
        }
        const uint64_t scene_hash = scene_fingerprint(ls.data);
        opt.aovs = resuming ? resumed.aovs : c.aovs | denoise_guides(c.denoise);  // (as checked in 2.)
        {  // the render's host memory (film, image, AOVs, CPU queues) against what the host has left, before any
            // of it is allocated (the GPU's own memory is checked by the GPU render, before it allocates)
            std::string what, scene_what;
            const bool wf = std::find(modes.begin(), modes.end(), Mode::Wavefront) != modes.end();
            const uint64_t need = render_host_bytes(be, rp, opt, wf, unsigned(modes.size()), &what);
            const uint64_t scene_bytes = scene_device_bytes(ls.data, &scene_what);
            const HostMemory hm = host_memory();
            if (c.stats)
                std::printf(
                    "memory: the scene's arrays %s (%s); the render about %s (%s); host memory %s available "
                    "of %s%s\n",
                    bytes_text(scene_bytes).c_str(), scene_what.c_str(), bytes_text(need).c_str(), what.c_str(),
                    bytes_text(hm.available).c_str(), bytes_text(hm.total).c_str(),
                    hm.limited ? " (WP_HOST_MEMORY_LIMIT)" : "");
            if (c.stats && be == Backend::Gpu)
                std::printf(
                    "memory: on the GPU the scene's arrays and the film, %s, and the path queues: checked "
                    "against its free memory before anything is allocated\n",
                    bytes_text(scene_bytes + film_device_bytes(rp)).c_str());
            if (need > hm.available) {
                std::fprintf(stderr,
                             "error: %s: the render does not fit in host memory: it needs about %s (%s) besides the "
                             "loaded scene, and %s of %s are available%s: lower --width and --height\n",
                             j.scene.c_str(), bytes_text(need).c_str(), what.c_str(), bytes_text(hm.available).c_str(),
                             bytes_text(hm.total).c_str(), hm.limited ? " (WP_HOST_MEMORY_LIMIT)" : "");
                j.status = "render error";
                j.code = kExitRender;
                j.loaded.reset();
                if (!c.keep_going) break;
                continue;
            }
        }
        std::vector<Image> images;
        std::vector<RenderStats> all;
        bool failed = false;
        j.status = "ok";
        for (size_t k = 0; k < modes.size() && !failed; ++k) {
            const Mode m = modes[k];
            const std::string& target = j.images[k];
            try {
                const uint64_t total = opt.sample_end - opt.sample_begin;
                if (total >= probe_threshold(be)) {
                    double est = estimate_seconds(be, ls, m, opt) * double(total) / double(all_samples);
                    if (est > 600.0) {
                        std::printf(
                            "estimate: %s is %ux%u at %u spp (%.3g samples), about %s on %s %s (from a short "
                            "probe); Ctrl-C stops it and writes the image so far\n",
                            j.scene.c_str(), rp.width, rp.height, rp.spp, double(total), duration_text(est).c_str(),
                            be == Backend::Gpu ? "gpu" : "cpu", mode_name(m));
                        std::fflush(stdout);
                    }
                }
                Progress progress(std::string(mode_name(m)), c.progress);
                opt.progress = [&](uint64_t d, uint64_t t) { progress(d, t); };
                auto t0 = std::chrono::steady_clock::now();
                RenderStats st;
                Image img = wp::render(be, ls.data, rp, m, opt, &st);
                // from the signal to the render's return: finishing the paths in flight and the image's division
                const double stop_ms =
                    img.interrupted && g_signal_ns.load() ? double(monotonic_ns() - g_signal_ns.load()) / 1e6 : 0.0;
                double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
                progress.finish();
                PartialFilm film = film_of(img, rp, scene_hash, j.scene, target_end);
                film.backend = be == Backend::Gpu ? "gpu" : "cpu";
                film.mode = mode_name(m);
                if (resuming) {  // the film so far plus this render: its image holds them all
                    PartialFilm f = resumed;
                    append_render(f, img);
                    f.backend = resumed.backend == film.backend ? film.backend : resumed.backend + "+" + film.backend;
                    f.mode = resumed.mode == film.mode ? film.mode : resumed.mode + "+" + film.mode;
                    const bool cut = img.interrupted;
                    film = std::move(f);
                    img = film_image(film);
                    img.interrupted = cut;
                }
                char spp_s[64], ms_s[64], wall_s[64];
                std::snprintf(spp_s, sizeof spp_s, "%.6g", img.spp());
                std::snprintf(ms_s, sizeof ms_s, "%.3f", st.render_ms);
                std::snprintf(wall_s, sizeof wall_s, "%.3f", s);
                ImageMetadata meta = {{"wavepath:scene", j.scene},
                                      {"wavepath:spp", spp_s},
                                      {"wavepath:samples", std::to_string(img.samples)},
                                      {"wavepath:sample_range", range_text(film.begin, film.end, np)},
                                      {"wavepath:mode", mode_name(m)},
                                      {"wavepath:interrupted", img.interrupted ? "true" : "false"},
                                      {"wavepath:backend", be == Backend::Gpu ? "gpu" : "cpu"},
                                      {"wavepath:device", st.device},
                                      {"wavepath:schedule", schedule_text(m, be, st, opt)},
                                      {"wavepath:render_ms", ms_s},
                                      {"wavepath:wall_s", wall_s},
                                      {"wavepath:version", version_short()},
                                      {"wavepath:command", c.command}};
                for (const auto& kv : settings_metadata(crop_settings(rp))) meta.push_back(kv);  // seed, filter, ...
                Image denoised;
                std::string denoise_error;
                double denoise_ms = 0.0;
                if (c.denoise) {  // with the albedo and normal guides; a failure still writes the raw image
                    const auto t0 = std::chrono::steady_clock::now();
                    try {
                        denoised = denoise_image(img, denoise_on, denoise_gpu);
                    } catch (const std::exception& e) { denoise_error = e.what(); }
                    denoise_ms =
                        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
                }
                if (!(c.aovs & kAovAlbedo)) img.albedo.clear();  // only the AOVs asked for are written
                if (!(c.aovs & kAovNormal)) img.normal.clear();
                std::string written = write_or_rescue(target, img, film, meta), extra;
                if (!written.empty() && written == target) {  // the AOV files (PNG, PFM) and the denoised image
                    if (extension_of(target) != ".wpfilm")
                        for (const std::string& f : write_aov_files(target, img)) extra += ", " + f;
                    if (c.denoise && denoise_error.empty()) {
                        const std::string dn = aov_path(target, "denoised");
                        ImageMetadata dmeta = meta;
                        dmeta.push_back({"wavepath:denoiser", std::string("oidn ") + denoise_device_name(denoise_on)});
                        write_image(dn, denoised, dmeta);
                        char t[96];
                        std::snprintf(t, sizeof t, " (denoised on the %s in %.0f ms)",
                                      denoise_on == DenoiseDevice::Cuda ? "GPU" : "CPU", denoise_ms);
                        extra += ", " + dn + t;
                    }
                }
                if (!denoise_error.empty()) {
                    std::fprintf(stderr, "error: %s: --denoise failed: %s\n", j.scene.c_str(), denoise_error.c_str());
                    j.status = "render error";
                    j.code = kExitRender;
                    failed = true;
                }
                if (written.empty() || written != target) {
                    j.status = "write error";
                    j.code = kExitUsage;
                    failed = true;
                }
                if (!written.empty() && img.interrupted && extension_of(written) != ".exr" &&
                    extension_of(written) != ".wpfilm")
                    write_sidecar(written, meta);
                // an interrupted image gets its film beside it, to continue with --resume
                std::string resume_from = written;
                if (!written.empty() && img.interrupted && extension_of(written) != ".wpfilm") {
                    resume_from = written + ".wpfilm";
                    try {
                        write_film(resume_from, film);
                    } catch (const std::exception& e) {
                        std::fprintf(stderr, "error: %s\n", e.what());
                        resume_from.clear();
                    }
                }
                j.written += (j.written.empty() ? "" : ", ") + (written.empty() ? "(lost)" : written) + extra;
                j.seconds += s;
                j.msamples_per_s = st.msamples_per_s();
                // (a crop: "34x32 (crop 16,8,50,40 of 64x48)"; its pixels named in the whole image's coordinates)
                const std::string size =
                    std::to_string(rp.width) + "x" + std::to_string(rp.height) +
                    (rp.full_width ? " (crop " + setting_text(rp, *find_setting("crop")) + " of " +
                                         std::to_string(rp.full_width) + "x" + std::to_string(rp.full_height) + ")"
                                   : "");
                const uint32_t dx = rp.full_width ? rp.crop_x0 : 0, dy = rp.full_width ? rp.crop_y0 : 0;
                std::printf("%s: %s, %u spp, %s %s -> %s: %.3f s wall, %.2f Msamples/s, render %.1f ms on %s\n",
                            j.scene.c_str(), size.c_str(), rp.spp, be == Backend::Gpu ? "gpu" : "cpu", mode_name(m),
                            written.empty() ? "(not written)" : (written + extra).c_str(), s, st.msamples_per_s(),
                            st.render_ms, st.device.c_str());
                if (img.nonfinite)
                    std::printf("warning: %llu non-finite samples dropped, first at pixel (%u, %u)\n", img.nonfinite,
                                img.first_nonfinite_pixel % rp.width + dx, img.first_nonfinite_pixel / rp.width + dy);
                if (img.clamped)
                    std::printf("warning: %llu samples clamped at 1e6 (the film's largest sample value)\n",
                                img.clamped);
                if (!c.stats && modes.size() == 1) print_devices(st);
                if (c.stats || modes.size() > 1) print_stats(st, opt);
                if (img.interrupted) {
                    std::fprintf(stderr,
                                 "interrupted (signal %d): %s holds %.3g spp (%s; %llu of %llu samples); the render "
                                 "stopped %.1f ms after the signal\n",
                                 int(g_signal), written.c_str(), img.spp(),
                                 range_text(film.begin, film.end, np).c_str(),
                                 (unsigned long long)(film.end - film.begin),
                                 (unsigned long long)(film.target_end - film.begin), stop_ms);
                    // (this command's own --aov and --denoise where it denoises: they match the film, as checked)
                    std::string resume_hint = c.denoise ? aov_options(c.aovs, true) : aov_options(film.aovs, false);
                    if (!resume_hint.empty()) resume_hint.insert(0, " ");
                    // the command that continues it, with the output this one wrote (a film given as -o is its own
                    // output: the resume rewrites it), and the options of this command that the film does not
                    // carry: the backend and mode it ran with (the same ones continue it bit for bit). Every
                    // render setting is in the film (resume takes those the command line does not give).
                    std::string given;
                    if (rs.backend != "auto") given += " --backend " + rs.backend;
                    if (c.mode != "auto") given += " --mode " + std::string(mode_name(m));
                    if (!resume_from.empty())
                        std::fprintf(stderr, "resume: wavepath render %s%s --resume %s%s -o %s\n",
                                     shell_word(j.scene).c_str(), given.c_str(), shell_word(resume_from).c_str(),
                                     resume_hint.c_str(), shell_word(written).c_str());
                    j.status = "interrupted";
                    interrupted = true;
                    break;
                }
                images.push_back(std::move(img));
                all.push_back(std::move(st));
            } catch (const std::exception& e) {
                std::fprintf(stderr, "error: %s: %s render failed: %s\n", j.scene.c_str(), mode_name(m), e.what());
                j.status = "render error";
                j.code = kExitRender;
                failed = true;
            }
        }
        if (images.size() == 2) {
            ImageDiff d = compare_images(images[0], images[1]);
            const double ratio = all[1].render_ms / all[0].render_ms;
            std::printf("wavefront vs megakernel: speed ratio %.2fx (megakernel ms / wavefront ms)\n", ratio);
            std::printf("  images: %.2f%% of pixels bit-identical, RMSE %.3g, max |diff| %.3g\n", 100 * d.identical,
                        d.rmse, d.max_abs);
            std::printf("  means R/G/B: wavefront %.5f %.5f %.5f, megakernel %.5f %.5f %.5f\n", d.mean_a[0],
                        d.mean_a[1], d.mean_a[2], d.mean_b[0], d.mean_b[1], d.mean_b[2]);
            std::printf(
                "  per 16x16 tile and channel, z = diff / sqrt(var_a/n + var_b/n) over the tile's pixels: "
                "mean z^2 %.3f, max |z| %.2f over %zu tiles (conservative: image structure adds to var)\n",
                d.z2_mean, d.z_max, d.tiles);
            nlohmann::json cj{{"scene", j.scene},
                              {"backend", be == Backend::Gpu ? "gpu" : "cpu"},
                              {"device", all[0].device},
                              {"width", rp.width},
                              {"height", rp.height},
                              {"spp", rp.spp},
                              {"images", {{"wavefront", j.images[0]}, {"megakernel", j.images[1]}}},
                              {"render_ms", {{"wavefront", all[0].render_ms}, {"megakernel", all[1].render_ms}}},
                              {"speed_ratio_megakernel_over_wavefront", ratio},
                              {"identical_pixels", d.identical},
                              {"rmse", d.rmse},
                              {"max_abs_diff", d.max_abs},
                              {"mean_rgb",
                               {{"wavefront", {d.mean_a[0], d.mean_a[1], d.mean_a[2]}},
                                {"megakernel", {d.mean_b[0], d.mean_b[1], d.mean_b[2]}}}},
                              {"tile_z2_mean", d.z2_mean},
                              {"tile_z_max", d.z_max},
                              {"tiles", d.tiles},
                              {"command", c.command},
                              {"version", version_short()}};
            std::ofstream f(j.compare);
            f << cj.dump(2) << "\n";
            if (f) {
                std::printf("  comparison -> %s\n", j.compare.c_str());
                j.written += ", " + j.compare;
            } else {
                std::fprintf(stderr, "error: cannot write %s\n", j.compare.c_str());
                j.status = "write error";
                j.code = kExitUsage;
                failed = true;
            }
        }
        j.loaded.reset();  // the scene's memory back before the next
        if (failed && !c.keep_going) break;
    }
    if (jobs.size() > 1) print_summary(jobs);
    if (interrupted || g_cancel) return 128 + int(g_signal ? g_signal : SIGINT);
    for (const Job& j : jobs)
        if (j.code != kExitOk) return j.code;
    for (const Job& j : jobs)
        if (j.status != "ok") return kExitRender;  // not run after a failure
    return kExitOk;
}

// `wavepath merge`: partial films of one scene and settings added into the image (or a film). The output is checked
// first (exit 2); unreadable parts, other scenes or settings, overlaps and (without --partial) missing ranges exit 1.
struct MergeCall {
    std::vector<std::string> parts;
    std::string out, command;
    bool partial = false;
    bool denoise = false;                 // --denoise: the merged image denoised beside it (NAME.denoised.EXT)
    std::string denoise_device = "auto";  // --denoise-device
};

int run_merge(const MergeCall& c) {
    if (std::string why = output_problem(c.out, render_extensions(), "output"); !why.empty()) {
        std::fprintf(stderr, "error: %s\n", why.c_str());
        return kExitUsage;
    }
    DenoiseDevice denoise_on = DenoiseDevice::Cpu;
    if (c.denoise) {  // checked before the parts are read: on the GPU where OIDN has a CUDA device (auto), or as asked
        if (extension_of(c.out) == ".wpfilm") {
            std::fprintf(stderr, "error: --denoise writes an image: not with a film output (%s)\n", c.out.c_str());
            return kExitUsage;
        }
        const DenoiseDevice asked = denoise_device_of(c.denoise_device);
        denoise_on = resolve_denoise_device(asked, gpu_available(), 0);
        if (std::string why = denoiser_problem(denoise_on, 0); !why.empty()) {
            std::fprintf(stderr, "error: --denoise on the %s: %s\n",
                         denoise_on == DenoiseDevice::Cuda ? "GPU (--denoise-device cuda)" : "CPU", why.c_str());
            return kExitUsage;
        }
        if (std::string why = output_problem(aov_path(c.out, "denoised"), render_extensions(), "output");
            !why.empty()) {
            std::fprintf(stderr, "error: %s\n", why.c_str());
            return kExitUsage;
        }
    }
    std::vector<PartialFilm> parts;
    try {
        for (const std::string& p : c.parts) parts.push_back(read_film(p));
        std::vector<std::pair<uint64_t, uint64_t>> missing;
        PartialFilm m = merge_films(parts, c.parts, missing);
        const uint64_t np = m.pixels(), all = np * m.spp;
        // the ranges the parts hold, in order (the complement of the missing ones)
        std::vector<std::pair<uint64_t, uint64_t>> held;
        uint64_t at = 0;
        for (const auto& [b, e] : missing) {
            if (b > at) held.emplace_back(at, b);
            at = e;
        }
        if (at < all) held.emplace_back(at, all);
        if (!missing.empty()) {
            std::string list;
            for (const auto& [b, e] : missing) list += (list.empty() ? "" : ", ") + range_text(b, e, np);
            if (!c.partial) {
                std::fprintf(stderr,
                             "error: the parts do not hold the whole render (%u spp of %s): missing %s; render them "
                             "with --samples, or --partial writes the image of the samples there are\n",
                             m.spp, m.scene.c_str(), list.c_str());
                return kExitInput;
            }
            std::fprintf(stderr, "warning: --partial: missing %s; each pixel is divided by the samples it has\n",
                         list.c_str());
            if (extension_of(c.out) == ".wpfilm") {
                if (held.size() != 1) {
                    std::fprintf(stderr,
                                 "error: a partial film holds one range of samples, these parts hold %zu: write an "
                                 "image, or render the gaps first\n",
                                 held.size());
                    return kExitInput;
                }
                m.begin = held[0].first;
                m.end = held[0].second;
            }
        }
        if (held.empty()) held.emplace_back(0, 0);
        Image img = film_image(m, held);
        ImageMetadata meta = {{"wavepath:scene", m.scene},
                              {"wavepath:spp", std::to_string(m.spp)},
                              {"wavepath:samples", std::to_string(img.samples)},
                              {"wavepath:mode", m.mode},
                              {"wavepath:backend", m.backend},
                              {"wavepath:merged_parts", std::to_string(parts.size())},
                              {"wavepath:version", version_short()},
                              {"wavepath:command", c.command}};
        for (const auto& kv : settings_metadata(crop_settings(m))) meta.push_back(kv);  // seed, filter, ...
        if (m.backend.find('+') != std::string::npos ||
            (m.backend.find("gpu") != std::string::npos && m.mode.find('+') != std::string::npos))
            std::fprintf(stderr,
                         "warning: the parts were rendered by %s %s: the same estimator, but bit for bit a single "
                         "render's image only from one backend (and on the GPU one schedule)\n",
                         m.backend.c_str(), m.mode.c_str());
        // the AOVs the parts hold, written as a render writes them: EXR channels, or files beside a PNG or PFM
        std::vector<std::string> aov_outs;
        if (extension_of(c.out) != ".wpfilm") aov_outs = aov_files(c.out, m.aovs);
        for (const std::string& f : aov_outs)
            if (std::string why = output_problem(f, render_extensions(), "output"); !why.empty()) {
                std::fprintf(stderr, "error: %s\n", why.c_str());
                return kExitUsage;
            }
        write_output(c.out, img, m, meta);
        std::string extra;
        if (c.denoise) {  // with the albedo and normal the parts hold (rendered with --aov albedo,normal)
            if (img.albedo.empty() || img.normal.empty())
                std::fprintf(stderr,
                             "warning: --denoise: the parts hold no albedo and normal AOVs (render them with --aov "
                             "albedo,normal): denoised from the colour alone\n");
            Image dn = denoise_image(img, denoise_on, 0);
            ImageMetadata dmeta = meta;
            dmeta.push_back({"wavepath:denoiser", std::string("oidn ") + denoise_device_name(denoise_on)});
            const std::string dp = aov_path(c.out, "denoised");
            write_image(dp, dn, dmeta);
            extra += ", " + dp;
        }
        if (extension_of(c.out) != ".wpfilm")
            for (const std::string& f : write_aov_files(c.out, img)) extra += ", " + f;
        std::printf("merged %zu %s of %s (%ux%u, %s of %u spp, rendered by %s %s) -> %s%s\n", parts.size(),
                    parts.size() == 1 ? "part" : "parts", m.scene.c_str(), m.width, m.height,
                    missing.empty() ? "all" : (std::to_string(img.samples) + " samples").c_str(), m.spp,
                    m.backend.c_str(), m.mode.c_str(), c.out.c_str(), extra.c_str());
        if (m.nonfinite)
            std::printf("warning: %llu non-finite samples dropped, first at pixel (%u, %u)\n", m.nonfinite,
                        m.first_nonfinite_pixel % m.width, m.first_nonfinite_pixel / m.width);
        if (m.clamped)
            std::printf("warning: %llu samples clamped at 1e6 (the film's largest sample value)\n", m.clamped);
    } catch (const FilmError& e) {
        std::fprintf(stderr, "error: %s\n", e.what());
        return kExitInput;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "error: %s\n", e.what());
        return kExitUsage;  // the output could not be written
    }
    return kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"wavepath: a wavefront GPU path tracer"};
    app.require_subcommand(1);
    app.set_version_flag(
        "--version", [] { return version_text(); },
        "the version, git commit, CUDA architectures "
        "and the GPU found");
    auto* render = app.add_subcommand("render", "render scenes to images");
    RenderCall rc;
    rc.command = command_line(argc, argv);
    render->add_option("scenes", rc.scenes, "scene files (.json: native or Tungsten; .gltf, .glb; .pbrt: pbrt-v4)")
        ->required();
    render->add_option("-o,--output", rc.out,
                       "output image (.exr, .png, .pfm); with several scenes a pattern: {name} is the scene's file "
                       "name without extension, {dir} its folder's name (default: {name}.exr in the current folder)");
    render->add_option("--output-dir", rc.output_dir, "folder for the outputs (an existing one)");
    render->add_flag("--keep-going", rc.keep_going, "with several scenes: when one fails, render the rest");
    add_render_options(render, rc.rs);
    render
        ->add_option_function<std::string>(
            "--aov",
            [&rc](const std::string& v) {
                std::stringstream ss(v);
                for (std::string a; std::getline(ss, a, ',');)
                    rc.aovs |= a == "albedo"   ? kAovAlbedo
                               : a == "normal" ? kAovNormal
                               : a == "depth"  ? kAovDepth
                                               : kAovPosition;
            },
            "AOVs, comma-separated: albedo, normal, depth, position (EXR: channels albedo.R/G/B, N.X/Y/Z, Z, "
            "P.X/Y/Z of the image; PNG, PFM: NAME.albedo.EXT beside it, ...; a partial film (.wpfilm) keeps their "
            "exact sums, and `wavepath merge` writes them)")
        ->check(CLI::Validator(
            [](std::string& v) -> std::string {
                std::stringstream ss(v);
                for (std::string a; std::getline(ss, a, ',');)
                    if (a != "albedo" && a != "normal" && a != "depth" && a != "position")
                        return "unknown AOV '" + a + "' (albedo, normal, depth, position)";
                return "";
            },
            "LIST", "aov"));
    render->add_flag("--denoise", rc.denoise,
                     "also write NAME.denoised.EXT: Intel Open Image Denoise with the albedo and normal AOVs");
    render
        ->add_option("--denoise-device", rc.denoise_device,
                     "where --denoise runs: auto (a GPU render's GPU through OIDN's CUDA device where it is usable, "
                     "else the CPU), cpu, cuda")
        ->check(CLI::IsMember({"auto", "cpu", "cuda"}));
    render->add_option("--mode", rc.mode, "wavefront, megakernel, both, or auto (GPU: wavefront, CPU: megakernel)")
        ->check(CLI::IsMember({"auto", "wavefront", "megakernel", "both"}));
    render->add_flag("--stats", rc.stats, "print the per-kernel table, queue sizes and memory estimate");
    render
        ->add_option("--progress", rc.progress,
                     "when stderr is not a terminal (a log, a pipe): a progress line every this many seconds while "
                     "a scene loads and renders (percent, Msamples/s, ETA); 0: none (default 10; a terminal gets a "
                     "progress bar)")
        ->check(real(0.0, 86400.0));
    render->add_option("--samples", rc.samples,
                       "START:COUNT: render samples START to START+COUNT-1 of every pixel (of the render's --spp) "
                       "into a partial film (-o part.wpfilm); `wavepath merge` joins the parts bit for bit");
    render->add_option("--resume", rc.resume,
                       "continue the render whose partial film this is (a .wpfilm: an interrupted render writes "
                       "one); its settings unless given here (a larger --spp renders on to that many samples per "
                       "pixel)");
    auto* merge = app.add_subcommand("merge", "join partial films (render --samples) into the image");
    MergeCall mc;
    mc.command = rc.command;
    merge->add_option("parts", mc.parts, "partial films (.wpfilm) of one scene and settings")->required();
    merge->add_option("-o,--output", mc.out, "the image (.exr, .png, .pfm) or a film (.wpfilm)")->required();
    merge->add_flag("--partial", mc.partial,
                    "write the image even if samples are missing (each pixel divided by the samples it has)");
    merge->add_flag("--denoise", mc.denoise,
                    "also write NAME.denoised.EXT: Intel Open Image Denoise with the albedo and normal AOVs the parts "
                    "hold (render them with --aov albedo,normal)");
    merge
        ->add_option("--denoise-device", mc.denoise_device,
                     "where --denoise runs: auto (OIDN's CUDA device where a GPU is usable, else the CPU), cpu, cuda")
        ->check(CLI::IsMember({"auto", "cpu", "cuda"}));
    auto* bench = app.add_subcommand("bench", "time scenes in both schedules: per-kernel table, JSON, SVG plot");
    BenchOptions bo;
    std::string bench_modes = "wavefront,megakernel";
    bench->add_option("scenes", bo.scenes,
                      "scene files (default: the benchmark set {cornell-box,rtiow,sponza,dragon,helmet}.json, "
                      "installed or in the source tree, and the published pbrt-v4 scenes veach-ajar, living-room, "
                      "pbrt-book and material-testball, installed or extracted in the build folder)");
    add_render_options(bench, bo.settings);
    bench->add_option("--modes", bench_modes, "comma-separated schedules (default " + bench_modes + ")");
    bench
        ->add_option("--repeat", bo.repeat,
                     "timed renders per mode, the median reported (default " + std::to_string(bo.repeat) + ")")
        ->check(whole(1, 1000000));
    bench
        ->add_option("--warmup", bo.warmup,
                     "untimed renders per mode first (default " + std::to_string(bo.warmup) + ")")
        ->check(whole(0, 1000000));
    bench->add_option("--json", bo.json_path, "write the results as JSON (.json; default: none)");
    bench->add_option("--plot", bo.plot_path, "write per-kernel times, stacked, as an SVG (.svg; default: none)");
    bench
        ->add_option("--raycast-spp", bo.raycast_spp,
                     "camera rays per pixel of the ray-cast-only pass (default " + std::to_string(bo.raycast_spp) + ")")
        ->check(whole(1, kMaxSpp));
    bool no_raycast = false;
    bench->add_flag("--no-raycast", no_raycast, "skip the ray-cast-only traversal pass (default: it runs)");
    bench->add_option("--resources", bo.resources_path,
                      "ptxas report (default: kernel_resources.txt beside the binary, GPU only)");
    bool no_qs = false;
    bench->add_flag("--no-queue-stats", no_qs,
                    "wavefront: no per-depth path and shadow-ray counts (queue fill; default: counted)");
    bool no_kt = false;
    bench->add_flag("--no-kernel-timing", no_kt,
                    "GPU: no per-kernel events (frame time only; default: one more render with them)");
    auto* settings = app.add_subcommand("settings", "list the render settings (--set NAME=VALUE, docs/OPTIONS.md)");
    bool settings_markdown_table = false;
    settings->add_flag("--markdown", settings_markdown_table,
                       "the table of docs/OPTIONS.md (name, flag, scene key, type, default, range, help)");
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        // help and --version exit 0; every usage error exits 2 (CLI11's own codes are 100 and up)
        return app.exit(e) == 0 ? kExitOk : kExitUsage;
    }
    // the options given that may do nothing where they are given (ignored_options)
    auto given_options = [&](CLI::App* cmd, std::vector<std::string> names) {
        std::vector<std::string> g;
        for (const std::string& n : names)
            if (cmd->count(n) > 0) g.push_back(n);
        for (int i = 1; i < argc; ++i)  // the two spellings of one flag
            for (const char* n : {"--push-compaction", "--select-compaction"})
                if (std::string(argv[i]) == n) g.push_back(n);
        return g;
    };
    const std::vector<std::string> render_names = {"--capacity", "--sort-materials",  "--sort-rays", "--drain",
                                                   "--refill",   "--general-kernels", "--threads"};
    if (render->parsed()) {
        rc.given = given_options(render, render_names);
        rc.rs.devices_given = render->count("--devices") > 0;
        return run_render(rc);
    }
    if (merge->parsed()) return run_merge(mc);
    if (settings->parsed()) {  // the list of kernels/render_params.h, as a table or one line a setting
        if (settings_markdown_table) {
            std::fputs(settings_markdown().c_str(), stdout);
            return kExitOk;
        }
        const RenderParams d = default_settings();
        for (const SettingInfo& s : render_settings())
            std::printf("%-15s %-17s default %-8s %s: %s\n", s.name, s.flag, setting_text(d, s).c_str(),
                        setting_range_text(s).c_str(), s.help);
        return kExitOk;
    }
    bo.command = rc.command;
    bo.raycast = !no_raycast;
    bo.settings.options.kernel_timing = !no_kt;
    bo.settings.options.queue_stats = !no_qs;
    bo.modes.clear();
    std::stringstream ms(bench_modes);
    for (std::string m; std::getline(ms, m, ',');) {
        if (m == "wavefront")
            bo.modes.push_back(Mode::Wavefront);
        else if (m == "megakernel")
            bo.modes.push_back(Mode::Megakernel);
        else {
            std::fprintf(stderr, "error: --modes: unknown schedule '%s' (wavefront, megakernel)\n", m.c_str());
            return kExitUsage;
        }
    }
    if (bo.modes.empty()) {
        std::fprintf(stderr, "error: --modes: no schedule given\n");
        return kExitUsage;
    }
    // the outputs before any work
    int bad = 0;
    for (const auto& [path, ext, what] :
         {std::make_tuple(bo.json_path, ".json", "--json"), std::make_tuple(bo.plot_path, ".svg", "--plot")})
        if (!path.empty())
            if (std::string why = output_problem(path, {ext}, what); !why.empty()) {
                std::fprintf(stderr, "error: %s\n", why.c_str());
                ++bad;
            }
    if (bad) return kExitUsage;
    if (bo.scenes.empty()) {
        std::string dir = find_bench_scenes();
        if (dir.empty()) {
            std::fprintf(stderr, "error: no scenes given and no benchmark set found (%s)\n",
                         bench_scene_places().c_str());
            return kExitInput;
        }
        std::string missing;
        bo.scenes = default_bench_scenes(dir, missing);
        if (!missing.empty())
            std::fprintf(stderr,
                         "warning: the benchmark set's published pbrt-v4 scenes are not in %s (CMake extracts them "
                         "from tests/parity/published.tar.xz): benchmarking the native scenes alone\n",
                         missing.c_str());
    }
    bo.settings.devices_given = bench->count("--devices") > 0;
    if (std::string why = devices_problem(bo.settings); !why.empty()) {
        std::fprintf(stderr, "error: %s\n", why.c_str());
        return kExitUsage;
    }
    std::string dev;
    const bool cpu = bo.settings.backend == "cpu" || (bo.settings.backend == "auto" && !gpu_available(&dev));
    {  // the options that do nothing in this backend and these schedules, counted and said
        std::vector<std::string> names = render_names;
        for (const char* n : {"--no-kernel-timing", "--no-queue-stats", "--raycast-spp"}) names.push_back(n);
        OptionUse use;
        use.gpu = !cpu;
        use.wavefront = std::find(bo.modes.begin(), bo.modes.end(), Mode::Wavefront) != bo.modes.end();
        use.megakernel = std::find(bo.modes.begin(), bo.modes.end(), Mode::Megakernel) != bo.modes.end();
        use.raycast = bo.raycast;
        use.wavefront_hint = "--modes wavefront";
        std::string what = std::string("this bench (") + (cpu ? "cpu" : "gpu") + ", --modes " + bench_modes +
                           (bo.raycast ? "" : ", --no-raycast") + ")";
        std::fputs(ignored_options_text(ignored_options(given_options(bench, names), use), what).c_str(), stderr);
    }
    try {
        run_bench(bo);
    } catch (const SceneError& e) {
        std::fprintf(stderr, "error: %s\n", e.what());
        return kExitInput;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "error: %s\n", e.what());
        return kExitRender;
    }
    return kExitOk;
}
