// `wavepath render` as a script of named phases (run_render at the end of this file): the call's checks, the
// outputs planned, the backend and schedules chosen, the film to resume read, every scene loaded, the renders, the
// summary. Each phase is a function of its own; the state they share is a RenderRun.
#include "host/app/render_command.h"
#include <sys/stat.h>
#include <unistd.h>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <nlohmann/json.hpp>
#include "host/app/cli_support.h"
#include "host/image/image_load.h"
#include "host/image/image_stats.h"
#include "host/render/render.h"
#include "host/scene/render_limits.h"
#include "host/scene/render_settings.h"
#include "host/scene/scene_json.h"
#include "kernels/aov.h"

namespace wp {

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

// --denoise-device's value (CLI11 has checked it is auto, cpu or cuda).
DenoiseDevice denoise_device_of(const std::string& v) {
    return v == "cpu" ? DenoiseDevice::Cpu : v == "cuda" ? DenoiseDevice::Cuda : DenoiseDevice::Auto;
}

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
                           : "holds " + bytes_text(held) + " and " + bytes_text(hm.available) + " of the " +
                                 (hm.address_limit ? "address space under ulimit -v, " : "host's ") +
                                 bytes_text(hm.total) + ", are left") +
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

// What the phases of one `render` call share: the call's settings, the shard or resume, the jobs (one per scene),
// the backend, the schedules and the film to resume.
struct RenderRun {
    RenderSettings rs;
    uint64_t shard_start = 0, shard_count = 0;
    bool shard = false, resuming = false, both = false;
    std::vector<Job> jobs;
    Backend be = Backend::Cpu;
    DenoiseDevice denoise_on = DenoiseDevice::Cpu;
    int denoise_gpu = 0;
    std::vector<Mode> modes;
    PartialFilm resumed;
    bool interrupted = false;
    Image reference;  // --reference: the image the final image is compared with
};

// One image of a job: what the render gave and the film it adds to.
struct Rendered {
    Image img;
    RenderStats st;
    PartialFilm film;
    double seconds = 0.0, stop_ms = 0.0;
};

// 0. The shard and resume options' form, and the scenes that are folders: usage errors before anything else.
int check_call(const RenderCall& c, RenderRun& r) {
    r.shard = !c.samples.empty();
    r.resuming = !c.resume.empty();
    r.both = c.mode == "both";
    if (r.shard && !parse_samples(c.samples, r.shard_start, r.shard_count)) {
        std::fprintf(stderr,
                     "error: --samples '%s': give START:COUNT, e.g. --samples 32:32 (samples 32 to 63 of "
                     "every pixel)\n",
                     c.samples.c_str());
        return kExitUsage;
    }
    if (r.shard && r.resuming) {
        std::fprintf(stderr, "error: --samples and --resume together: the film to resume holds its range\n");
        return kExitUsage;
    }
    if (r.resuming && (c.scenes.size() > 1 || r.both)) {
        std::fprintf(stderr, "error: --resume continues one render: give one scene and one --mode\n");
        return kExitUsage;
    }
    if (!c.reference.empty() && c.scenes.size() > 1) {
        std::fprintf(stderr, "error: --reference %s is the image of one scene, and %zu scenes are given\n",
                     c.reference.c_str(), c.scenes.size());
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
    if (!c.reference.empty()) {  // read before any work: an unreadable reference is the input's error
        try {
            r.reference = read_reference_image(c.reference);
        } catch (const ImageError& e) {
            std::fprintf(stderr, "error: --reference: %s\n", e.what());
            return kExitInput;
        }
    }
    return kExitOk;
}

// --reference against the job's render: "" when of its size, else the error naming both sizes and the file.
std::string reference_size_problem(const RenderCall& c, const RenderRun& r, const Job& j) {
    const RenderParams& rp = j.loaded->params;
    if (c.reference.empty() || (r.reference.width == rp.width && r.reference.height == rp.height)) return "";
    return "--reference " + c.reference + " is " + std::to_string(r.reference.width) + "x" +
           std::to_string(r.reference.height) + ", but " + j.scene + " renders " + std::to_string(rp.width) + "x" +
           std::to_string(rp.height) + ": the reference must be of the render's size";
}

// --reference: the image's MSE and relMSE against it, one line.
void report_reference(const RenderCall& c, const RenderRun& r, const Image& img) {
    if (c.reference.empty()) return;
    const ReferenceError e = reference_error(img, r.reference);
    std::printf("reference: MSE %.6g, relMSE %.6g against %s (%ux%u%s)\n", e.mse, e.relmse, c.reference.c_str(),
                img.width, img.height,
                e.skipped ? (", " + std::to_string(e.skipped) + " non-finite values left out").c_str() : "");
}

// The output a scene names for itself (pbrt-v4's Film "filename", Tungsten's output file) where -o gives none; the
// note that says which is used goes to `notes`. Returns the pattern the job's output is made from.
std::string scene_named_output(const RenderCall& c, const Job& j, std::vector<std::string>& notes) {
    std::string directive;
    const std::string named = scene_output_name(j.scene, &directive);
    if (named.empty()) return c.out;
    const std::string file = named.substr(named.find_last_of('/') + 1);
    const std::vector<std::string>& known = image_extensions();
    if (!c.out.empty()) {
        notes.push_back(j.scene + ": its " + directive + " \"" + named + "\" is not used: -o gives the output");
        return c.out;
    }
    if (std::find(known.begin(), known.end(), extension_of(file)) == known.end()) {
        notes.push_back(j.scene + ": its " + directive + " \"" + named +
                        "\" is not used: wavepath writes .exr, .png or .pfm (-o), here the default {name}.exr");
        return c.out;
    }
    notes.push_back(j.scene + ": writing " + output_for(file, c.output_dir, j.scene) + ", the file its " + directive +
                    " names" + (file == named ? std::string() : " (\"" + named + "\", its folders dropped)") +
                    ", in the " + (c.output_dir.empty() ? "current folder" : "--output-dir") + " (-o gives another)");
    return file;
}

// A job's files (its images, their AOV files and denoised images), each checked: writable, of a known kind, a film
// for a shard, not also another job's (owner: output -> scene).
void check_job_outputs(const RenderCall& c, const RenderRun& r, const Job& j, std::map<std::string, std::string>& owner,
                       std::vector<std::string>& problems) {
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
        else if (r.shard && extension_of(img) != ".wpfilm")
            problems.push_back("output '" + img +
                               "': --samples renders a part of the image: write it as a partial film (-o "
                               "part.wpfilm) and join the parts with `wavepath merge`");
        else if (auto [it, fresh] = owner.emplace(img, j.scene); !fresh)
            problems.push_back("output '" + img + "': both " + it->second + " and " + j.scene +
                               " would write it (use -o with {dir}, e.g. -o 'out/{dir}-{name}.exr')");
    }
}

// 1. The outputs, before anything is loaded: named, distinct, writable (probe files); the problems together.
int plan_outputs(const RenderCall& c, RenderRun& r) {
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
    std::vector<std::string> problems, notes;  // notes: the outputs the scenes name for themselves
    // (AOVs are kept as exact sums in the partial film, as the beauty: shards and resumes carry them)
    if (r.shard && c.denoise)
        problems.push_back(
            "--denoise with --samples: a part is not an image; render the AOVs (--aov albedo,normal) into the parts "
            "and denoise the merged image (wavepath merge --denoise)");
    std::map<std::string, std::string> owner;  // output -> scene
    r.jobs.resize(c.scenes.size());
    for (size_t i = 0; i < r.jobs.size(); ++i) {
        Job& j = r.jobs[i];
        j.scene = c.scenes[i];
        j.output = output_for(scene_named_output(c, j, notes), c.output_dir, j.scene);
        if (r.both) {
            j.images = {with_tag(j.output, "wavefront"), with_tag(j.output, "megakernel")};
            j.compare = with_extension(j.output, ".compare.json");
        } else {
            j.images = {j.output};
        }
        check_job_outputs(c, r, j, owner, problems);
    }
    if (!problems.empty()) {
        for (const std::string& p : problems) std::fprintf(stderr, "error: %s\n", p.c_str());
        return kExitUsage;
    }
    for (const std::string& n : notes) std::printf("output: %s\n", n.c_str());
    return kExitOk;
}

// 2. The backend, the GPUs, the denoiser's device and the schedules; the options that do nothing with them said.
int choose_backend(const RenderCall& c, RenderRun& r) {
    std::string dev;
    const bool have_gpu = gpu_available(&dev);
    if (r.rs.backend == "gpu" && !have_gpu) {
        std::fprintf(stderr, "error: --backend gpu asked for, but no CUDA GPU is present (or the build has no CUDA)\n");
        return kExitRender;
    }
    r.be = (r.rs.backend == "gpu" || (r.rs.backend == "auto" && have_gpu)) ? Backend::Gpu : Backend::Cpu;
    if (r.rs.backend == "auto")
        std::printf("backend: %s\n", r.be == Backend::Gpu ? ("gpu (" + dev + ")").c_str() : "cpu (no CUDA GPU found)");
    if (std::string why = devices_problem(r.rs); !why.empty()) {
        std::fprintf(stderr, "error: %s\n", why.c_str());
        return kExitUsage;
    }
    // the denoiser, before any work (host/image/denoise.h): on the render's GPU (OIDN's CUDA device) or the CPU
    r.denoise_gpu = r.rs.options.devices.empty() ? 0 : r.rs.options.devices[0];
    if (c.denoise) {
        const DenoiseDevice asked = denoise_device_of(c.denoise_device);
        r.denoise_on = resolve_denoise_device(asked, r.be == Backend::Gpu, r.denoise_gpu);
        if (std::string why = denoiser_problem(r.denoise_on, r.denoise_gpu); !why.empty()) {
            std::fprintf(stderr, "error: --denoise on the %s: %s\n",
                         r.denoise_on == DenoiseDevice::Cuda ? "GPU (--denoise-device cuda)" : "CPU", why.c_str());
            return kExitUsage;
        }
    } else if (c.denoise_device != "auto") {
        std::fprintf(stderr, "warning: --denoise-device without --denoise: ignored\n");
    }
    if (r.both)
        r.modes = {Mode::Wavefront, Mode::Megakernel};
    else if (c.mode == "wavefront" || (c.mode == "auto" && r.be == Backend::Gpu))
        r.modes = {Mode::Wavefront};
    else
        r.modes = {Mode::Megakernel};
    // the options that do nothing in this backend and these schedules, counted and said
    OptionUse use;
    use.gpu = r.be == Backend::Gpu;
    use.wavefront = std::find(r.modes.begin(), r.modes.end(), Mode::Wavefront) != r.modes.end();
    use.megakernel = std::find(r.modes.begin(), r.modes.end(), Mode::Megakernel) != r.modes.end();
    const std::string what = std::string("this render (") + (use.gpu ? "gpu " : "cpu ") +
                             (r.both ? "wavefront and megakernel" : mode_name(r.modes[0])) + ")";
    std::fputs(ignored_options_text(ignored_options(c.given, use), what).c_str(), stderr);
    return kExitOk;
}

// The film to resume, read before the scene: its settings are the render's (unless the command line gives them),
// its AOVs the render's.
int read_resumed_film(const RenderCall& c, RenderRun& r) {
    if (!r.resuming) return kExitOk;
    try {
        r.resumed = read_film(c.resume);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "error: --resume: %s\n", e.what());
        return kExitInput;
    }
    const PartialFilm& f = r.resumed;
    // the AOVs continue as the film holds them: their sums over the earlier samples are in it. --denoise renders its
    // guides (albedo, normal) as AOVs: a film of a render with --denoise holds them; one without them is denoised
    // from the beauty alone.
    if (f.aovs != (c.aovs | denoise_guides(c.denoise)) && !(c.denoise && f.aovs == c.aovs)) {
        if (f.aovs)
            std::fprintf(stderr, "error: --resume %s holds the AOVs %s: resume it with %s%s\n", c.resume.c_str(),
                         aov_names(f.aovs).c_str(), resume_aov_options(f.aovs, c.denoise).c_str(),
                         !c.denoise && (f.aovs & denoise_guides(true)) == denoise_guides(true)
                             ? (" (or " + resume_aov_options(f.aovs, true) + ", whose guides they are)").c_str()
                             : "");
        else
            std::fprintf(stderr,
                         "error: --resume %s holds no AOVs (its samples so far were rendered without --aov): "
                         "resume it without --aov\n",
                         c.resume.c_str());
        return kExitUsage;
    }
    if (c.denoise && (f.aovs & denoise_guides(true)) != denoise_guides(true))
        std::fprintf(stderr,
                     "warning: --denoise: %s holds no albedo and normal AOVs (its samples so far were rendered "
                     "without them): the denoiser runs on the beauty alone\n",
                     c.resume.c_str());
    return kExitOk;
}

// A resumed render's settings: every setting of the list (kernels/render_params.h) the command line does not give
// is the film's; then the scene and those settings are checked against the film's.
void take_film_settings(const RenderCall& c, RenderRun& r, Job& j) {
    // (in the settings' form: width and height the full image's where there is a crop); a new width or height sets
    // the camera's aspect, as an override does
    RenderParams p = crop_settings(j.loaded->params);
    const RenderParams fp = crop_settings(film_params(r.resumed));
    const uint32_t scene_width = p.width, scene_height = p.height;
    for (const SettingInfo& st : render_settings())
        if (!override_given(r.rs.scene, st.name)) copy_setting(p, fp, st);
    if (p.width != scene_width || p.height != scene_height)
        j.loaded->data.camera.aspect = float(p.width) / float(p.height);
    check_given_crop(j.scene, r.rs.scene, p);  // (--crop against the film's size)
    if (std::string why = render_limits_problem(p); !why.empty()) throw SceneError(j.scene + ": " + why);
    j.loaded->params = crop_for_render(p);
    // --spp above the film's: the render goes on to the larger count (the random numbers are keyed by pixel and
    // sample, so the film is a prefix of that render); below it: an error
    PartialFilm& resumed = r.resumed;
    if (r.rs.scene.spp && r.rs.scene.spp != resumed.spp) raise_film_spp(resumed, *r.rs.scene.spp, c.resume);
    PartialFilm here;
    here.scene = j.scene;
    here.scene_hash = scene_fingerprint(j.loaded->data);
    set_film_settings(here, j.loaded->params);
    if (std::string d = film_settings_difference(resumed, here); !d.empty())
        throw FilmError("--resume " + c.resume + " is not a render of " + j.scene +
                        " with these settings: they differ in " + d);
}

// One scene loaded (watched: progress lines, the host's memory) and, when resuming, set to the film's settings.
// Returns false (with the job's status and code) when it failed.
bool load_job(const RenderCall& c, RenderRun& r, Job& j) {
    try {
        {
            // a large file says so before its load starts (a log shows the load from its first second)
            struct stat fs {};
            if (stat(j.scene.c_str(), &fs) == 0 && uint64_t(fs.st_size) >= (64ull << 20))
                std::fprintf(stderr, "loading %s: a %s file; host memory %s available\n", j.scene.c_str(),
                             bytes_text(uint64_t(fs.st_size)).c_str(), bytes_text(host_memory().available).c_str());
            LoadWatch watch(j.scene, c.progress);
            j.loaded = std::make_unique<LoadedScene>(load_render_scene(j.scene, r.rs.scene, r.rs.load));
            if (std::string why = watch.check(); !why.empty()) {
                std::fprintf(stderr, "error: %s\n", why.c_str());
                j.loaded.reset();
                j.status = "scene error";
                j.code = kExitRender;
                return false;
            }
        }
        if (c.stats || load_was_slow(*j.loaded)) std::fprintf(stderr, "%s\n", load_line(j.scene, *j.loaded).c_str());
        if (r.resuming) take_film_settings(c, r, j);
    } catch (const UsageError& e) {  // (a --crop outside the image)
        std::fprintf(stderr, "error: %s\n", e.what());
        j.status = "usage error";
        j.code = kExitUsage;
        return false;
    } catch (const SceneMemoryError& e) {  // the tree's forecast over the memory available: refused unbuilt
        std::fprintf(stderr, "error: %s\n", e.what());
        j.status = "scene error";
        j.code = kExitRender;
        return false;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "error: %s\n", e.what());
        j.status = "scene error";
        j.code = kExitInput;
        return false;
    }
    return true;
}

// 3. Every scene loaded and checked before the first render; the errors reported together.
int load_scenes(const RenderCall& c, RenderRun& r) {
    size_t load_errors = 0;
    for (Job& j : r.jobs) {
        if (!load_job(c, r, j)) ++load_errors;
        if (g_cancel) break;
    }
    if (!load_errors || c.keep_going) return kExitOk;
    if (r.jobs.size() > 1)
        std::fprintf(stderr, "%zu of %zu scenes failed to load: nothing rendered (--keep-going renders the rest)\n",
                     load_errors, r.jobs.size());
    for (const Job& j : r.jobs)
        if (j.code != kExitOk) return j.code;
    return kExitInput;
}

// The job's range of samples (its shard, the rest of a resumed film, or all) and AOVs in opt; false (a usage error
// in the job) when a shard goes past the render's samples per pixel.
bool job_samples(const RenderCall& c, const RenderRun& r, Job& j, RenderOptions& opt, uint64_t& target_end) {
    const RenderParams& rp = j.loaded->params;
    const uint64_t np = rp.num_pixels();
    opt.sample_end = target_end = np * rp.spp;
    if (r.shard) {
        if (r.shard_start + r.shard_count > rp.spp) {
            std::fprintf(stderr,
                         "error: %s: --samples %s goes past the render's %u samples per pixel (--spp sets them)\n",
                         j.scene.c_str(), c.samples.c_str(), rp.spp);
            j.status = "usage error";
            j.code = kExitUsage;
            return false;
        }
        opt.sample_begin = r.shard_start * np;
        opt.sample_end = target_end = (r.shard_start + r.shard_count) * np;
    } else if (r.resuming) {
        opt.sample_begin = r.resumed.end;
        opt.sample_end = target_end = r.resumed.target_end;
    }
    opt.aovs = r.resuming ? r.resumed.aovs : c.aovs | denoise_guides(c.denoise);  // (as checked in 2.)
    return true;
}

// The render's host memory (film, image, AOVs, CPU queues) against what the host has left, before any of it is
// allocated (the GPU's own memory is checked by the GPU render, before it allocates); false (a render error in the
// job) when it does not fit.
bool render_fits_host(const RenderCall& c, const RenderRun& r, Job& j, const RenderOptions& opt) {
    const LoadedScene& ls = *j.loaded;
    const RenderParams& rp = ls.params;
    std::string what, scene_what;
    const bool wf = std::find(r.modes.begin(), r.modes.end(), Mode::Wavefront) != r.modes.end();
    const uint64_t need = render_host_bytes(r.be, rp, opt, wf, unsigned(r.modes.size()), &what);
    const uint64_t scene_bytes = scene_device_bytes(ls.data, &scene_what);
    const HostMemory hm = host_memory();
    if (c.stats)
        std::printf("memory: the scene's arrays %s (%s); the render about %s (%s); host memory %s available of %s%s\n",
                    bytes_text(scene_bytes).c_str(), scene_what.c_str(), bytes_text(need).c_str(), what.c_str(),
                    bytes_text(hm.available).c_str(), bytes_text(hm.total).c_str(),
                    hm.limited ? " (WP_HOST_MEMORY_LIMIT)" : "");
    if (c.stats && r.be == Backend::Gpu)
        std::printf(
            "memory: on the GPU the scene's arrays and the film, %s, and the path queues: checked against its free "
            "memory before anything is allocated\n",
            bytes_text(scene_bytes + film_device_bytes(rp)).c_str());
    if (need <= hm.available) return true;
    std::fprintf(stderr,
                 "error: %s: the render does not fit in host memory: it needs about %s (%s) besides the loaded "
                 "scene, and %s of %s are available%s: lower --width and --height\n",
                 j.scene.c_str(), bytes_text(need).c_str(), what.c_str(), bytes_text(hm.available).c_str(),
                 bytes_text(hm.total).c_str(), hm.limited ? " (WP_HOST_MEMORY_LIMIT)" : "");
    j.status = "render error";
    j.code = kExitRender;
    j.loaded.reset();
    return false;
}

// A long render's cost estimate first (from a short probe), so that a log says what to expect.
void print_estimate(const RenderRun& r, const Job& j, Mode m, const RenderOptions& opt) {
    const LoadedScene& ls = *j.loaded;
    const RenderParams& rp = ls.params;
    const uint64_t total = opt.sample_end - opt.sample_begin;
    if (total < probe_threshold(r.be)) return;
    const double est = estimate_seconds(r.be, ls, m, opt) * double(total) / (double(rp.num_pixels()) * double(rp.spp));
    if (est <= 600.0) return;
    std::printf(
        "estimate: %s is %ux%u at %u spp (%.3g samples), about %s on %s %s (from a short probe); Ctrl-C stops it "
        "and writes the image so far\n",
        j.scene.c_str(), rp.width, rp.height, rp.spp, double(total), duration_text(est).c_str(),
        r.be == Backend::Gpu ? "gpu" : "cpu", mode_name(m));
    std::fflush(stdout);
}

// The render of one schedule with its progress, and its film (with a resumed film's samples before it).
Rendered render_image(const RenderCall& c, const RenderRun& r, const Job& j, Mode m, RenderOptions opt,
                      uint64_t target_end, uint64_t scene_hash) {
    const LoadedScene& ls = *j.loaded;
    print_estimate(r, j, m, opt);
    Progress progress(std::string(mode_name(m)), c.progress);
    opt.progress = [&](uint64_t d, uint64_t t) { progress(d, t); };
    Rendered out;
    const auto t0 = std::chrono::steady_clock::now();
    out.img = wp::render(r.be, ls.data, ls.params, m, opt, &out.st);
    // from the signal to the render's return: finishing the paths in flight and the image's division
    out.stop_ms = out.img.interrupted && g_signal_ns.load() ? double(monotonic_ns() - g_signal_ns.load()) / 1e6 : 0.0;
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    progress.finish();
    out.film = film_of(out.img, ls.params, scene_hash, j.scene, target_end);
    out.film.backend = r.be == Backend::Gpu ? "gpu" : "cpu";
    out.film.mode = mode_name(m);
    if (r.resuming) {  // the film so far plus this render: its image holds them all
        PartialFilm f = r.resumed;
        append_render(f, out.img);
        f.backend =
            r.resumed.backend == out.film.backend ? out.film.backend : r.resumed.backend + "+" + out.film.backend;
        f.mode = r.resumed.mode == out.film.mode ? out.film.mode : r.resumed.mode + "+" + out.film.mode;
        const bool cut = out.img.interrupted;
        out.film = std::move(f);
        out.img = film_image(out.film);
        out.img.interrupted = cut;
    }
    return out;
}

// The image's metadata: what was rendered, how, and every render setting.
ImageMetadata render_metadata(const RenderCall& c, const RenderRun& r, const Job& j, Mode m, const Rendered& x,
                              const RenderOptions& opt) {
    const RenderParams& rp = j.loaded->params;
    char spp_s[64], ms_s[64], wall_s[64];
    std::snprintf(spp_s, sizeof spp_s, "%.6g", x.img.spp());
    std::snprintf(ms_s, sizeof ms_s, "%.3f", x.st.render_ms);
    std::snprintf(wall_s, sizeof wall_s, "%.3f", x.seconds);
    ImageMetadata meta = {{"wavepath:scene", j.scene},
                          {"wavepath:spp", spp_s},
                          {"wavepath:samples", std::to_string(x.img.samples)},
                          {"wavepath:sample_range", range_text(x.film.begin, x.film.end, rp.num_pixels())},
                          {"wavepath:mode", mode_name(m)},
                          {"wavepath:interrupted", x.img.interrupted ? "true" : "false"},
                          {"wavepath:backend", r.be == Backend::Gpu ? "gpu" : "cpu"},
                          {"wavepath:device", x.st.device},
                          {"wavepath:schedule", schedule_text(m, r.be, x.st, opt)},
                          {"wavepath:render_ms", ms_s},
                          {"wavepath:wall_s", wall_s},
                          {"wavepath:version", version_short()},
                          {"wavepath:command", c.command}};
    for (const auto& kv : settings_metadata(crop_settings(rp))) meta.push_back(kv);  // seed, filter, ...
    return meta;
}

// What one schedule's render wrote: the path ("" if nothing could be), the files beside it, and the film an
// interrupted render leaves to resume from.
struct Written {
    std::string path, extra, resume_from;
};

// The image (or film), its AOV files, its denoised image and, when interrupted, its film and metadata sidecar.
// A failure marks the job (a denoiser's: render error; a write's: write error) and still writes what it can.
Written write_render(const RenderCall& c, const RenderRun& r, Job& j, const std::string& target, Rendered& x,
                     const ImageMetadata& meta, bool& failed) {
    Image denoised;
    std::string denoise_error;
    double denoise_ms = 0.0;
    if (c.denoise) {  // with the albedo and normal guides; a failure still writes the raw image
        const auto t0 = std::chrono::steady_clock::now();
        try {
            denoised = denoise_image(x.img, r.denoise_on, r.denoise_gpu);
        } catch (const std::exception& e) { denoise_error = e.what(); }
        denoise_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    }
    if (!(c.aovs & kAovAlbedo)) x.img.albedo.clear();  // only the AOVs asked for are written
    if (!(c.aovs & kAovNormal)) x.img.normal.clear();
    Written w;
    w.path = write_or_rescue(target, x.img, x.film, meta);
    if (!w.path.empty() && w.path == target) {  // the AOV files (PNG, PFM) and the denoised image
        if (extension_of(target) != ".wpfilm")
            for (const std::string& f : write_aov_files(target, x.img)) w.extra += ", " + f;
        if (c.denoise && denoise_error.empty()) {
            const std::string dn = aov_path(target, "denoised");
            ImageMetadata dmeta = meta;
            dmeta.push_back({"wavepath:denoiser", std::string("oidn ") + denoise_device_name(r.denoise_on)});
            write_image(dn, denoised, dmeta);
            char t[96];
            std::snprintf(t, sizeof t, " (denoised on the %s in %.0f ms)",
                          r.denoise_on == DenoiseDevice::Cuda ? "GPU" : "CPU", denoise_ms);
            w.extra += ", " + dn + t;
        }
    }
    if (!denoise_error.empty()) {
        std::fprintf(stderr, "error: %s: --denoise failed: %s\n", j.scene.c_str(), denoise_error.c_str());
        j.status = "render error";
        j.code = kExitRender;
        failed = true;
    }
    if (w.path.empty() || w.path != target) {
        j.status = "write error";
        j.code = kExitUsage;
        failed = true;
    }
    const std::string ext = extension_of(w.path);
    if (!w.path.empty() && x.img.interrupted && ext != ".exr" && ext != ".wpfilm") write_sidecar(w.path, meta);
    // an interrupted image gets its film beside it, to continue with --resume
    w.resume_from = w.path;
    if (!w.path.empty() && x.img.interrupted && ext != ".wpfilm") {
        w.resume_from = w.path + ".wpfilm";
        try {
            write_film(w.resume_from, x.film);
        } catch (const std::exception& e) {
            std::fprintf(stderr, "error: %s\n", e.what());
            w.resume_from.clear();
        }
    }
    return w;
}

// The render's line ("scene: 64x48, 16 spp, cpu megakernel -> out.exr: ..."), its warnings and statistics.
void report_render(const RenderCall& c, const RenderRun& r, const Job& j, Mode m, const Rendered& x, const Written& w,
                   const RenderOptions& opt) {
    const RenderParams& rp = j.loaded->params;
    // (a crop: "34x32 (crop 16,8,50,40 of 64x48)"; its pixels named in the whole image's coordinates)
    const std::string size =
        std::to_string(rp.width) + "x" + std::to_string(rp.height) +
        (rp.full_width ? " (crop " + setting_text(rp, *find_setting("crop")) + " of " + std::to_string(rp.full_width) +
                             "x" + std::to_string(rp.full_height) + ")"
                       : "");
    const uint32_t dx = rp.full_width ? rp.crop_x0 : 0, dy = rp.full_width ? rp.crop_y0 : 0;
    std::printf("%s: %s, %u spp, %s %s -> %s: %.3f s wall, %.2f Msamples/s, render %.1f ms on %s\n", j.scene.c_str(),
                size.c_str(), rp.spp, r.be == Backend::Gpu ? "gpu" : "cpu", mode_name(m),
                w.path.empty() ? "(not written)" : (w.path + w.extra).c_str(), x.seconds, x.st.msamples_per_s(),
                x.st.render_ms, x.st.device.c_str());
    if (x.img.nonfinite)
        std::fprintf(stderr, "warning: %llu non-finite samples dropped, first at pixel (%u, %u)\n", x.img.nonfinite,
                     x.img.first_nonfinite_pixel % rp.width + dx, x.img.first_nonfinite_pixel / rp.width + dy);
    if (x.img.clamped)
        std::fprintf(stderr, "warning: %llu samples clamped at 1e6 (the film's largest sample value)\n", x.img.clamped);
    if (!c.stats && r.modes.size() == 1) print_devices(x.st);
    if (c.stats || r.modes.size() > 1) print_stats(x.st, opt);
}

// An interrupted render: what it holds, how fast it stopped, and the command that continues it.
void report_interrupt(const RenderCall& c, const RenderRun& r, const Job& j, Mode m, const Rendered& x,
                      const Written& w) {
    const PartialFilm& film = x.film;
    std::fprintf(stderr,
                 "interrupted (signal %d): %s holds %.3g spp (%s; %llu of %llu samples); the render stopped %.1f ms "
                 "after the signal\n",
                 int(g_signal), w.path.c_str(), x.img.spp(),
                 range_text(film.begin, film.end, j.loaded->params.num_pixels()).c_str(),
                 (unsigned long long)(film.end - film.begin), (unsigned long long)(film.target_end - film.begin),
                 x.stop_ms);
    // (this command's own --aov and --denoise where it denoises: they match the film, as checked)
    std::string resume_hint = c.denoise ? aov_options(c.aovs, true) : aov_options(film.aovs, false);
    if (!resume_hint.empty()) resume_hint.insert(0, " ");
    // the command that continues it, with the output this one wrote (a film given as -o is its own output: the
    // resume rewrites it), and the options of this command that the film does not carry: the backend and mode it
    // ran with (the same ones continue it bit for bit). Every render setting is in the film (resume takes those the
    // command line does not give).
    std::string given;
    if (r.rs.backend != "auto") given += " --backend " + r.rs.backend;
    if (c.mode != "auto") given += " --mode " + std::string(mode_name(m));
    if (!w.resume_from.empty())
        std::fprintf(stderr, "resume: wavepath render %s%s --resume %s%s -o %s\n", shell_word(j.scene).c_str(),
                     given.c_str(), shell_word(w.resume_from).c_str(), resume_hint.c_str(), shell_word(w.path).c_str());
}

// --mode both: the two images compared (speed ratio, identical pixels, per-tile z statistics), printed and written
// as NAME.compare.json.
void compare_schedules(const RenderCall& c, const RenderRun& r, Job& j, const std::vector<Image>& images,
                       const std::vector<RenderStats>& all, bool& failed) {
    const RenderParams& rp = j.loaded->params;
    ImageDiff d = compare_images(images[0], images[1]);
    const double ratio = all[1].render_ms / all[0].render_ms;
    std::printf("wavefront vs megakernel: speed ratio %.2fx (megakernel ms / wavefront ms)\n", ratio);
    std::printf("  images: %.2f%% of pixels bit-identical, RMSE %.3g, max |diff| %.3g\n", 100 * d.identical, d.rmse,
                d.max_abs);
    std::printf("  means R/G/B: wavefront %.5f %.5f %.5f, megakernel %.5f %.5f %.5f\n", d.mean_a[0], d.mean_a[1],
                d.mean_a[2], d.mean_b[0], d.mean_b[1], d.mean_b[2]);
    std::printf(
        "  per 16x16 tile and channel, z = diff / sqrt(var_a/n + var_b/n) over the tile's pixels: mean z^2 %.3f, "
        "max |z| %.2f over %zu tiles (conservative: image structure adds to var)\n",
        d.z2_mean, d.z_max, d.tiles);
    nlohmann::json cj{{"scene", j.scene},
                      {"backend", r.be == Backend::Gpu ? "gpu" : "cpu"},
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

// One job's renders, one per schedule: each rendered, written and reported; with both schedules, compared.
// Returns false when the job failed.
bool render_job(const RenderCall& c, RenderRun& r, Job& j) {
    RenderOptions opt = r.rs.options;
    opt.cancel = &g_cancel;
    uint64_t target_end = 0;
    if (std::string why = reference_size_problem(c, r, j); !why.empty()) {
        std::fprintf(stderr, "error: %s\n", why.c_str());
        j.status = "scene error";
        j.code = kExitInput;
        return false;
    }
    if (!job_samples(c, r, j, opt, target_end) || !render_fits_host(c, r, j, opt)) return false;
    const uint64_t scene_hash = scene_fingerprint(j.loaded->data);
    std::vector<Image> images;
    std::vector<RenderStats> all;
    bool failed = false;
    j.status = "ok";
    for (size_t k = 0; k < r.modes.size() && !failed; ++k) {
        const Mode m = r.modes[k];
        try {
            Rendered x = render_image(c, r, j, m, opt, target_end, scene_hash);
            const ImageMetadata meta = render_metadata(c, r, j, m, x, opt);
            const Written w = write_render(c, r, j, j.images[k], x, meta, failed);
            j.written += (j.written.empty() ? "" : ", ") + (w.path.empty() ? "(lost)" : w.path) + w.extra;
            j.seconds += x.seconds;
            j.msamples_per_s = x.st.msamples_per_s();
            report_render(c, r, j, m, x, w, opt);
            report_reference(c, r, x.img);
            if (x.img.interrupted) {
                report_interrupt(c, r, j, m, x, w);
                j.status = "interrupted";
                r.interrupted = true;
                break;
            }
            images.push_back(std::move(x.img));
            all.push_back(std::move(x.st));
        } catch (const std::exception& e) {
            std::fprintf(stderr, "error: %s: %s render failed: %s\n", j.scene.c_str(), mode_name(m), e.what());
            j.status = "render error";
            j.code = kExitRender;
            failed = true;
        }
    }
    if (images.size() == 2) compare_schedules(c, r, j, images, all, failed);
    j.loaded.reset();  // the scene's memory back before the next
    return !failed;
}

// 4. The renders, scene by scene (after a failure only with --keep-going; none after an interrupt).
void render_jobs(const RenderCall& c, RenderRun& r) {
    for (Job& j : r.jobs) {
        if (!j.loaded || r.interrupted || g_cancel) continue;
        if (!render_job(c, r, j) && !c.keep_going) break;
    }
}

// 5. The summary of a batch and the exit code: 128 + signal after an interrupt, else the first job's error.
int finish_render(const RenderRun& r) {
    if (r.jobs.size() > 1) print_summary(r.jobs);
    if (r.interrupted || g_cancel) return 128 + int(g_signal ? g_signal : SIGINT);
    for (const Job& j : r.jobs)
        if (j.code != kExitOk) return j.code;
    for (const Job& j : r.jobs)
        if (j.status != "ok") return kExitRender;  // not run after a failure
    return kExitOk;
}

}  // namespace

// `wavepath render`: a script of named phases (after pbrt-v4's WavefrontPathIntegrator::Render). Every usage error
// comes before any work; every scene is loaded before the first render; nothing rendered is lost.
int run_render(const RenderCall& c) {
    std::signal(SIGINT, on_signal);
    std::signal(SIGTERM, on_signal);
    RenderRun r;
    r.rs = c.rs;
    if (int rc = check_call(c, r)) return rc;
    if (int rc = plan_outputs(c, r)) return rc;
    if (int rc = choose_backend(c, r)) return rc;
    if (int rc = read_resumed_film(c, r)) return rc;
    if (int rc = load_scenes(c, r)) return rc;
    render_jobs(c, r);
    return finish_render(r);
}

}  // namespace wp
