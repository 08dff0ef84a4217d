// Rendering entry points for both backends (CPU threads, CUDA GPU) and both schedules (megakernel,
// wavefront), their options and their statistics. Declared without CUDA types so that any host file can
// call them.
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>
#include "host/image/image.h"
#include "host/render/render_common.h"
#include "host/scene/scene_build.h"
#include "kernels/kernel_attr.h"
#include "kernels/scene_view.h"

namespace wp {

enum class Backend { Cpu, Gpu };
enum class Mode { Megakernel, Wavefront };
inline const char* mode_name(Mode m) { return m == Mode::Megakernel ? "megakernel" : "wavefront"; }

// The GPU wavefront's default queue: 8M paths (~1.4 GB with the compaction's buffers): fewer iterations, fuller
// launches (docs/DECISIONS.md: queue-capacity).
constexpr uint32_t kDefaultGpuCapacity = 1u << 23;
// The CPU wavefront's default queue (and the CPU ray-cast benchmark's): 64K paths.
constexpr uint32_t kDefaultCpuCapacity = 1u << 16;

// A count as the help texts write it: 8M, 64K, or the number.
inline std::string count_text(uint64_t n) {
    if (n >= (1u << 20) && n % (1u << 20) == 0) return std::to_string(n >> 20) + "M";
    if (n >= (1u << 10) && n % (1u << 10) == 0) return std::to_string(n >> 10) + "K";
    return std::to_string(n);
}

// Where a schedule option does something (the scope column of WP_RENDER_OPTIONS).
enum OptionScope : unsigned {
    kOptWavefront = 1,  // the wavefront schedule
    kOptRaycast = 2,    // bench's ray-cast pass too (it has wavefront queues)
    kOptGpu = 4,        // the GPU backend only
    kOptCpu = 8,        // the CPU backend only
    kOptBench = 16,     // an option of `wavepath bench` only
};

// The schedule options, listed once (as kernels/render_params.h lists the render settings): from this list come
// RenderOptions' members below, the options of `wavepath render` and `bench` (host/app/main.cpp), the warning for an
// option given where it does nothing (host/app/cli_support.cpp, by the scope column), the bench JSON's mode entries
// (each option's value where it applies, else 0) and docs/CLI.md's table of them (`wavepath options --markdown`;
// tests/check_options_doc.sh compares). Why each default is what it is: the comments under the list.
// Columns: O(KIND, type, member, init, flag, scope, lo, hi, default_text, help)
//   KIND  VALUE: a number in [lo, hi]; SWITCH: a flag that turns it on, with its negation after a comma
//         ("--push-compaction,!--select-compaction"); OFF: a flag that turns it off (bench's "--no-queue-stats")
//   scope kOpt* above, or'ed; default_text: the default in words ("": the init value)
#define WP_RENDER_OPTIONS(O)                                                                                        \
    O(VALUE, uint32_t, capacity, 0, "--capacity", kOptWavefront | kOptRaycast, 1, 1u << 30,                         \
      "GPU " + count_text(kDefaultGpuCapacity) + " within free memory; CPU " + count_text(kDefaultCpuCapacity),     \
      "wavefront paths in flight")                                                                                  \
    O(SWITCH, bool, sort_materials, false, "--sort-materials", kOptWavefront, 0, 1, "off",                          \
      "wavefront: shade in material order (CUB radix sort)")                                                        \
    O(VALUE, uint32_t, sort_rays, 0, "--sort-rays", kOptWavefront, 0, 0xffffffffu, "",                              \
      "wavefront: an iteration of at least this many paths traces its rays in spatial order (the direction's "      \
      "octant and the Morton code of the origin, CUB radix sort); same image; 0: never")                            \
    O(VALUE, uint32_t, drain_below, kDefaultDrainBelow, "--drain", kOptWavefront, 0, 0xffffffffu, "",               \
      "wavefront: once all camera paths are out, finish at most this many live paths in one kernel, each path to "  \
      "its end (0: never)")                                                                                         \
    O(VALUE, uint32_t, refill, kDefaultRefill, "--refill", kOptGpu | kOptWavefront | kOptRaycast, 0, 32, "",        \
      "GPU: persistent extend kernel, a warp refills its idle lanes once this many (1-32) are idle; 0: one thread " \
      "per ray")                                                                                                    \
    O(SWITCH, bool, general_kernels, false, "--general-kernels", kOptGpu, 0, 1, "off",                              \
      "GPU: the kernels compiled for every feature, not the smallest set that holds the scene's (a baseline)")      \
    O(VALUE, unsigned, threads, 0, "--threads", kOptCpu, 1, 4096, "all cores", "CPU threads")                       \
    O(OFF, bool, kernel_timing, true, "--no-kernel-timing", kOptGpu | kOptBench, 0, 1, "one more render with them", \
      "GPU: no per-kernel events (frame time only)")                                                                \
    O(OFF, bool, queue_stats, true, "--no-queue-stats", kOptWavefront | kOptBench, 0, 1, "counted",                 \
      "wavefront: no per-depth path and shadow-ray counts (queue fill)")                                            \
    O(SWITCH, bool, push_compaction, true, "--push-compaction,!--select-compaction", kOptWavefront, 0, 1,           \
      "--push-compaction",                                                                                          \
      "wavefront compaction: shade packs live paths into the next queue by a CUB block scan, or "                   \
      "--select-compaction: CUB DeviceSelect and a gather kernel")

struct RenderOptions {
    // The defaults behind the list's values: 512K paths drained (docs/DECISIONS.md: drain-threshold); a warp of the
    // persistent extend refills at 16 idle lanes (kernels/persistent.h; refill); compaction by push rather than
    // select and gather (push-compaction). The general kernels: the baseline the specialised ones are measured against (same image bit for bit).
    // Counting paths per depth: RenderStats::paths_at_depth, the bench's queue fill; kernel timing: CUDA events
    // around every kernel (the per-kernel table), else the frame's only. Ray sorting: kernels/ray_order.h.
    static constexpr uint32_t kDefaultDrainBelow = 1u << 19;
    static constexpr uint32_t kDefaultRefill = 16;
#define WP_RENDER_OPTION_MEMBER(K, type, member, init, ...) type member = init;
    WP_RENDER_OPTIONS(WP_RENDER_OPTION_MEMBER)
#undef WP_RENDER_OPTION_MEMBER
    // AOVs to compute after the beauty (kernels/aov.h AovBits: albedo, normal, depth, position), in a pass of their
    // own over the same camera samples (stage "aov"); 0: none (the default).
    uint32_t aovs = 0;
    // Called from the rendering thread with (samples finished, samples in all) as the render goes.
    std::function<void(uint64_t, uint64_t)> progress;
    // When it turns true the render stops taking new samples, finishes the paths in flight, and returns the
    // image so far (Image::interrupted, Image::samples).
    const std::atomic<bool>* cancel = nullptr;
    // CPU megakernel: called on a rendering thread as each chunk of samples is taken (before its paths are traced),
    // with the chunk's first global sample index. Tests set *cancel from it to interrupt at a counted point of the
    // work rather than after a time (tests/test_render_cpu.cpp).
    std::function<void(uint64_t)> on_chunk;
    // The global sample indices to render: [sample_begin, sample_end) of [0, num_pixels * spp); sample_end 0: to the
    // end. Samples START to START+COUNT of every pixel are [START * num_pixels, (START + COUNT) * num_pixels). The
    // random numbers are keyed by (pixel, sample), so the sums of disjoint ranges add up to the whole render's bit for
    // bit (shards, resume: host/render/film_file.h). An interrupted render holds an exact prefix of its range.
    uint64_t sample_begin = 0, sample_end = 0;
    // GPU: plan with at most this much free device memory (0: what cudaMemGetInfo reports). For sharing a GPU,
    // and for testing the out-of-memory message.
    uint64_t device_memory_limit = 0;
    // GPU: the CUDA devices to split the render over (host/render/multi_device.h), one host thread, stream, scene
    // copy, film and queues each; a repeated index is several workers on one GPU. Empty: the current device alone,
    // the whole range at once (the single-GPU path). The films' sums add up to the single render's bit for bit.
    std::vector<int> devices;
    // A split render's batch of global samples (what a worker takes from the shared counter at a time); 0: chosen
    // by split_batch_size (host/render/multi_device.h). Any batch gives the same image.
    uint64_t split_batch = 0;
};

struct KernelRow {
    std::string name;
    uint64_t launches = 0;
    double ms = 0.0;  // summed over launches (GPU: CUDA events; CPU: wall clock)
};
struct IterationStat {
    uint32_t generated = 0, extended = 0, shadow = 0, live = 0;  // live: paths kept by compaction
};
// One worker of a render split over devices (RenderOptions::devices): what it took and how long it was busy.
struct DeviceStat {
    int device = -1;  // CUDA device index; -1: a CPU worker
    std::string name;
    uint64_t batches = 0, samples = 0;
    double busy_ms = 0.0;   // host clock over its batches (each ends when the batch's work on the device has ended)
    double setup_ms = 0.0;  // host clock before its first batch: memory check, scene upload, film, queues
    uint64_t device_bytes = 0;
};
struct RenderStats {
    std::string backend, device;
    Mode mode = Mode::Megakernel;
    double render_ms = 0.0;  // first launch to last result (GPU events / CPU wall clock), without upload
    double setup_ms = 0.0;   // GPU: the schedule's setup before its first launch (queue allocation), host clock
    uint64_t samples = 0, extension_rays = 0, shadow_rays = 0;
    uint32_t capacity = 0;  // wavefront queue capacity
    uint64_t drained = 0;   // wavefront: paths finished by the drain (the tail), 0 when it did not run
    // wavefront, shading by family (kernels/features.h): the paths each family's kernel shaded (empty otherwise)
    std::vector<unsigned long long> family_paths;
    std::string feature_set = "all";  // the kernels' compiled feature set (kernels/features.h); the CPU runs all
    bool sorted = false;
    std::vector<KernelRow> kernels;                                   // first-launch order
    std::vector<IterationStat> iterations;                            // wavefront
    std::vector<unsigned long long> paths_at_depth, shadow_at_depth;  // wavefront: by path depth, last bin = deeper
    uint64_t device_bytes = 0;  // GPU: device memory the render allocated (scene, film, queues); CPU: queue bytes
    // A split render (RenderOptions::devices): one row per worker, in the list's order. Then render_ms is the host
    // clock from the first worker's first batch to the last result of any (setup, the longest worker's, in
    // setup_ms); the rays, kernels (launches and ms summed over the devices), depth histograms and device_bytes are
    // sums, iterations the workers' lists one after another, capacity the largest queue.
    std::vector<DeviceStat> devices;
    uint64_t split_batch = 0;  // a split render's batch, in samples
    double msamples_per_s() const { return render_ms > 0 ? double(samples) / render_ms / 1e3 : 0.0; }
    double mrays_per_s() const { return render_ms > 0 ? double(extension_rays + shadow_rays) / render_ms / 1e3 : 0.0; }
};

// The range [begin, end) of opt (sample_end 0: the whole render); throws std::invalid_argument if it is not within
// [0, num_pixels * spp).
void sample_range(const RenderParams& rp, const RenderOptions& opt, uint64_t& begin, uint64_t& end);

// CPU backend (all in host/render/render_cpu.cpp).
Image render_cpu(const SceneData& scene, const RenderParams& rp, Mode mode, const RenderOptions& opt = {},
                 RenderStats* stats = nullptr);
inline Image render_cpu_megakernel(const SceneData& scene, const RenderParams& rp, unsigned threads = 0) {
    RenderOptions o;
    o.threads = threads;
    return render_cpu(scene, rp, Mode::Megakernel, o);
}

// GPU backend (host/render/render_gpu.cpp); throws where no GPU is present or built.
bool gpu_available(std::string* name = nullptr);
// CUDA devices visible (0 without a GPU or a CUDA build), and one's name.
int gpu_device_count();
std::string gpu_device_name(int device);
Image render_gpu(const SceneData& scene, const RenderParams& rp, Mode mode, const RenderOptions& opt = {},
                 RenderStats* stats = nullptr);

// Ray-cast-only benchmark: closest-hit traversal alone, timed over two passes: the camera rays of `rp.spp`
// samples per pixel (primary), then from their first hits one cosine-distributed diffuse bounce ray each
// (diffuse: incoherent rays). Rays are processed in queues of opt.capacity (default as the wavefront's).
struct RaycastStats {
    std::string backend, device;
    uint64_t primary_rays = 0, diffuse_rays = 0;
    double primary_ms = 0.0, diffuse_ms = 0.0;  // extend kernel time only (GPU events / CPU wall clock)
    double diffuse_sort_ms = 0.0;               // with RenderOptions::sort_rays: the bounces' sort before their extend
    double primary_grays_per_s() const { return primary_ms > 0 ? double(primary_rays) / primary_ms / 1e6 : 0.0; }
    double diffuse_grays_per_s() const { return diffuse_ms > 0 ? double(diffuse_rays) / diffuse_ms / 1e6 : 0.0; }
};
RaycastStats raycast_cpu(const SceneData& scene, const RenderParams& rp, const RenderOptions& opt = {});
// Node visits and primitive tests per ray of the ray-cast pass's rays (camera rays of at most max_rays samples spread
// evenly over the render's, and their diffuse bounces), counted on the host with the binary tree's while-while
// traversal. The host has no warp, so no speculative traversal: the GPU visits a few more nodes. All zero for the wide
// tree (not counted).
struct TraversalFigures {
    uint64_t primary_rays = 0, diffuse_rays = 0;
    double primary_nodes = 0, primary_prims = 0, diffuse_nodes = 0, diffuse_prims = 0;  // per ray
};
TraversalFigures count_traversal(const SceneData& scene, const RenderParams& rp, uint64_t max_rays,
                                 unsigned threads = 0);
RaycastStats raycast_gpu(const SceneData& scene, const RenderParams& rp, const RenderOptions& opt = {});

// Every wavepath kernel on the current GPU; empty without a GPU. feature_set picks the instances reported of the
// kernels compiled per feature set (kernels/features.h).
std::vector<KernelAttr> gpu_kernel_attrs(uint32_t feature_set = kFeaturesAll);

inline Image render(Backend b, const SceneData& scene, const RenderParams& rp, Mode mode, const RenderOptions& opt = {},
                    RenderStats* stats = nullptr) {
    return b == Backend::Gpu ? render_gpu(scene, rp, mode, opt, stats) : render_cpu(scene, rp, mode, opt, stats);
}

}  // namespace wp
