// wavepath command line.
#include <CLI/CLI.hpp>
#include <unistd.h>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <sstream>
#include "host/app/bench.h"
#include "host/app/render_setup.h"
#include "host/image/image_io.h"
#include "host/image/image_stats.h"
#include "host/render/render.h"
#include "host/scene/scene_json.h"

using namespace wp;

namespace {

// SIGINT / SIGTERM: the render stops taking samples, finishes the paths in flight, writes the image so far and
// exits with 128 + signal. A second signal kills at once (default action restored).
std::atomic<bool> g_cancel{false};
volatile std::sig_atomic_t g_signal = 0;
extern "C" void on_signal(int sig) {
    g_signal = sig;
    g_cancel.store(true);
    std::signal(sig, SIG_DFL);
}

// "\r[####......]  42%  1.2 s, ETA 1.6 s" on stderr, at most ten times a second, only on a terminal.
class Progress {
public:
    explicit Progress(std::string label) : label_(std::move(label)), tty_(isatty(STDERR_FILENO) != 0) {}
    void operator()(uint64_t done, uint64_t total) {
        if (!tty_ || total == 0) return;
        auto now = std::chrono::steady_clock::now();
        if (shown_ && now - last_ < std::chrono::milliseconds(100) && done < total) return;
        last_ = now;
        shown_ = true;
        double f = double(done) / double(total);
        double el = std::chrono::duration<double>(now - t0_).count();
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
    ~Progress() {
        if (shown_) std::fprintf(stderr, "\r%*s\r", int(label_.size()) + 50, "");
    }

private:
    std::string label_;
    bool tty_;
    bool shown_ = false;
    std::chrono::steady_clock::time_point t0_ = std::chrono::steady_clock::now(), last_;
};

// A count as the help texts write it: 8M, 64K, or the number.
std::string count_text(uint64_t n) {
    if (n >= (1u << 20) && n % (1u << 20) == 0) return std::to_string(n >> 20) + "M";
    if (n >= (1u << 10) && n % (1u << 10) == 0) return std::to_string(n >> 10) + "K";
    return std::to_string(n);
}

// The options `render` and `bench` share, declared once: the backend, the overrides of the scene's settings and
// the render options, bound to `s`. Defaults come from the structs (RenderOptions); help texts print them.
void add_render_options(CLI::App* cmd, RenderSettings& s) {
    SceneOverrides& o = s.scene;
    RenderOptions& r = s.options;
    cmd->add_option("--backend", s.backend, "gpu, cpu or auto (the GPU when present)")
        ->check(CLI::IsMember({"auto", "gpu", "cpu"}));
    cmd->add_option("--spp", o.spp, "samples per pixel (default: the scene's)")->check(CLI::PositiveNumber);
    cmd->add_option("--width", o.width, "image width (default: the scene's)")->check(CLI::PositiveNumber);
    cmd->add_option("--height", o.height, "image height (default: the scene's)")->check(CLI::PositiveNumber);
    cmd->add_option("--max-depth", o.max_depth, "longest path, in segments (default: the scene's)")
        ->check(CLI::PositiveNumber);
    cmd->add_option("--capacity", r.capacity,
                    "wavefront paths in flight (default: GPU " + count_text(kDefaultGpuCapacity) +
                        " within free memory; CPU " + count_text(kDefaultCpuCapacity) + ")")
        ->check(CLI::PositiveNumber);
    cmd->add_flag("--sort-materials", r.sort_materials, "wavefront: shade in material order (CUB radix sort)");
    cmd->add_flag(
        "--general-kernels", r.general_kernels,
        "GPU: the kernels compiled for every feature, not the smallest set that holds the scene's (a baseline)");
    cmd->add_option("--drain", r.drain_below,
                    "wavefront: once all camera paths are out, finish at most this many live paths in one kernel, "
                    "each path to its end (0: never; default " +
                        std::to_string(RenderOptions::kDefaultDrainBelow) + ")");
    cmd->add_flag("--push-compaction,!--select-compaction", r.push_compaction,
                  "wavefront compaction: shade packs live paths into the next queue by a CUB block scan (default), "
                  "or --select-compaction: CUB DeviceSelect and a gather kernel");
    cmd->add_option("--refill", r.refill,
                    "GPU: persistent extend kernel, a warp refills its idle lanes once this many (1-32) are idle; "
                    "0: one thread per ray (default " +
                        std::to_string(RenderOptions::kDefaultRefill) + ")")
        ->check(CLI::Range(0, 32));
    cmd->add_option("--threads", r.threads, "CPU threads (default: all cores)")->check(CLI::PositiveNumber);
}

void print_stats(const RenderStats& st, const RenderOptions& opt) {
    std::printf("  %s %s on %s: %.2f ms, %.2f Msamples/s, %.1f Mrays/s (%llu extension + %llu shadow rays)\n",
                st.backend.c_str(), mode_name(st.mode), st.device.c_str(), st.render_ms, st.msamples_per_s(),
                st.mrays_per_s(), (unsigned long long)st.extension_rays, (unsigned long long)st.shadow_rays);
    if (st.backend == "gpu")
        std::printf("  kernels of feature set '%s' (kernels/features.h)\n", st.feature_set.c_str());
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

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"wavepath: a wavefront GPU path tracer"};
    app.require_subcommand(1);
    auto* render = app.add_subcommand("render", "render JSON scenes to images");
    std::vector<std::string> scenes;
    std::string out;
    std::string mode = "auto";
    bool stats = false;
    RenderSettings rs;
    render->add_option("scenes", scenes, "scene files (JSON)")->required();
    render->add_option("-o,--output", out, "output image (.exr, .png, .pfm); default: scene name + .exr");
    add_render_options(render, rs);
    render->add_option("--seed", rs.scene.seed, "random seed");
    render->add_option("--mode", mode, "wavefront, megakernel, both, or auto (GPU: wavefront, CPU: megakernel)")
        ->check(CLI::IsMember({"auto", "wavefront", "megakernel", "both"}));
    render->add_flag("--stats", stats, "print the per-kernel table and queue sizes");
    auto* bench = app.add_subcommand("bench", "time scenes in both schedules: per-kernel table, JSON, SVG plot");
    BenchOptions bo;
    std::string bench_modes = "wavefront,megakernel";
    bench->add_option("scenes", bo.scenes,
                      "scene files (default: the benchmark set scenes/{cornell-box,rtiow,sponza,dragon,helmet}.json)");
    add_render_options(bench, bo.settings);
    bench->add_option("--modes", bench_modes, "comma-separated schedules: wavefront,megakernel");
    bench->add_option("--repeat", bo.repeat, "timed renders per mode (the median is reported)")
        ->check(CLI::PositiveNumber);
    bench->add_option("--warmup", bo.warmup, "untimed renders per mode first");
    bench->add_option("--json", bo.json_path, "write the results as JSON");
    bench->add_option("--plot", bo.plot_path, "write per-kernel times, stacked, as an SVG");
    bench->add_option("--raycast-spp", bo.raycast_spp, "camera rays per pixel of the ray-cast-only pass")
        ->check(CLI::PositiveNumber);
    bool no_raycast = false;
    bench->add_flag("--no-raycast", no_raycast, "skip the ray-cast-only traversal pass");
    bench->add_option("--resources", bo.resources_path,
                      "ptxas report (default: kernel_resources.txt beside the binary)");
    bool no_qs = false;
    bench->add_flag("--no-queue-stats", no_qs, "wavefront: no per-depth path and shadow-ray counts (queue fill)");
    bool no_kt = false;
    bench->add_flag("--no-kernel-timing", no_kt, "GPU: no per-kernel events (frame time only)");
    CLI11_PARSE(app, argc, argv);
    if (bench->parsed()) {
        for (int i = 0; i < argc; ++i) bo.command += (i ? " " : "") + std::string(argv[i]);
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
                return 1;
            }
        }
        if (bo.modes.empty()) {
            std::fprintf(stderr, "error: --modes: no schedule given\n");
            return 1;
        }
        if (bo.scenes.empty())
            bo.scenes = {"scenes/cornell-box.json", "scenes/rtiow.json", "scenes/sponza.json", "scenes/dragon.json",
                         "scenes/helmet.json"};
        try {
            run_bench(bo);
        } catch (const std::exception& e) {
            std::fprintf(stderr, "error: %s\n", e.what());
            return 1;
        }
        return 0;
    }
    std::signal(SIGINT, on_signal);
    std::signal(SIGTERM, on_signal);
    const std::string& backend = rs.backend;

    std::string dev;
    bool have_gpu = gpu_available(&dev);
    if (backend == "gpu" && !have_gpu) {
        std::fprintf(stderr,
                     "wavepath: --backend gpu asked for, but no CUDA GPU is present (or the build has no CUDA)\n");
        return 1;
    }
    Backend be = (backend == "gpu" || (backend == "auto" && have_gpu)) ? Backend::Gpu : Backend::Cpu;
    if (backend == "auto")
        std::printf("backend: %s\n", be == Backend::Gpu ? ("gpu (" + dev + ")").c_str() : "cpu (no CUDA GPU found)");
    std::vector<Mode> modes;
    if (mode == "both")
        modes = {Mode::Wavefront, Mode::Megakernel};
    else if (mode == "wavefront" || (mode == "auto" && be == Backend::Gpu))
        modes = {Mode::Wavefront};
    else
        modes = {Mode::Megakernel};
    if (scenes.size() > 1 && !out.empty()) {
        std::fprintf(stderr, "wavepath: -o names one file; with several scenes leave it out\n");
        return 1;
    }
    for (const std::string& path : scenes) {
        try {
            LoadedScene ls = load_render_scene(path, rs.scene);
            const RenderParams& rp = ls.params;
            std::string target = out;
            if (target.empty()) {
                size_t d = path.find_last_of('.');
                target = (d == std::string::npos ? path : path.substr(0, d)) + ".exr";
            }
            RenderOptions opt = rs.options;
            opt.cancel = &g_cancel;
            std::vector<Image> images;
            std::vector<RenderStats> all;
            for (Mode m : modes) {
                Progress progress(std::string(mode_name(m)));
                opt.progress = [&](uint64_t d, uint64_t t) { progress(d, t); };
                auto t0 = std::chrono::steady_clock::now();
                RenderStats st;
                Image img = wp::render(be, ls.data, rp, m, opt, &st);
                double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
                // the first mode's image is the one written (both modes render the same estimator)
                std::string written = images.empty() ? target : std::string("(not written)");
                if (images.empty()) {
                    char spp_s[64];
                    std::snprintf(spp_s, sizeof spp_s, "%.6g", img.spp());
                    ImageMetadata meta = {{"wavepath:scene", path},
                                          {"wavepath:spp", spp_s},
                                          {"wavepath:samples", std::to_string(img.samples)},
                                          {"wavepath:seed", std::to_string(rp.seed)},
                                          {"wavepath:max_depth", std::to_string(rp.max_depth)},
                                          {"wavepath:mode", mode_name(m)},
                                          {"wavepath:interrupted", img.interrupted ? "true" : "false"}};
                    write_image(target, img, meta);
                    if (img.interrupted && target.size() > 4 && target.substr(target.size() - 4) != ".exr") {
                        std::ofstream side(target + ".json");  // PNG and PFM carry no metadata: a sidecar
                        side << "{";
                        for (size_t k = 0; k < meta.size(); ++k)
                            side << (k ? ", " : "") << "\"" << meta[k].first.substr(9) << "\": \"" << meta[k].second
                                 << "\"";
                        side << "}\n";
                    }
                }
                std::printf("%s: %ux%u, %u spp, %s %s -> %s: %.3f s wall, %.2f Msamples/s, render %.1f ms on %s\n",
                            path.c_str(), rp.width, rp.height, rp.spp, be == Backend::Gpu ? "gpu" : "cpu", mode_name(m),
                            written.c_str(), s, st.msamples_per_s(), st.render_ms, st.device.c_str());
                if (img.nonfinite)
                    std::printf("warning: %llu non-finite samples dropped, first at pixel (%u, %u)\n", img.nonfinite,
                                img.first_nonfinite_pixel % rp.width, img.first_nonfinite_pixel / rp.width);
                if (stats || modes.size() > 1) print_stats(st, opt);
                if (img.interrupted) {
                    std::fprintf(stderr, "interrupted (signal %d): %s holds %.3g spp (%llu of %llu samples)\n",
                                 int(g_signal), written.c_str(), img.spp(), (unsigned long long)img.samples,
                                 (unsigned long long)rp.num_pixels() * rp.spp);
                    return 128 + int(g_signal ? g_signal : SIGINT);
                }
                images.push_back(std::move(img));
                all.push_back(std::move(st));
            }
            if (modes.size() == 2) {
                ImageDiff d = compare_images(images[0], images[1]);
                std::printf("wavefront vs megakernel: speed ratio %.2fx (megakernel ms / wavefront ms)\n",
                            all[1].render_ms / all[0].render_ms);
                std::printf("  images: %.2f%% of pixels bit-identical, RMSE %.3g, max |diff| %.3g\n", 100 * d.identical,
                            d.rmse, d.max_abs);
                std::printf("  means R/G/B: wavefront %.5f %.5f %.5f, megakernel %.5f %.5f %.5f\n", d.mean_a[0],
                            d.mean_a[1], d.mean_a[2], d.mean_b[0], d.mean_b[1], d.mean_b[2]);
                std::printf(
                    "  per 16x16 tile and channel, z = diff / sqrt(var_a/n + var_b/n) over the tile's pixels: "
                    "mean z^2 %.3f, max |z| %.2f over %zu tiles (conservative: image structure adds to var)\n",
                    d.z2_mean, d.z_max, d.tiles);
            }
        } catch (const std::exception& e) {
            std::fprintf(stderr, "error: %s\n", e.what());
            return 1;
        }
    }
    return 0;
}
