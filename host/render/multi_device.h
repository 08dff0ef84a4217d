// One render split over several workers (--devices): the GPUs of RenderOptions::devices, or CPU workers (the tests'
// stand-in for GPUs, in CI). A shared counter hands out batches [b, b + batch) of the render's range of global
// sample indices; each worker (a host thread of its own) takes a batch, renders every sample of it into its own
// film, and takes the next, until the range is done, the cancel flag is set or a worker fails. A worker finishes
// the batch it took, so the samples done are an exact prefix of the range (Image::samples, interrupted). The films'
// 64-bit fixed-point sums are then added on the host (integer adds, in any order: the single render's sums bit for
// bit, since every random number is keyed by (pixel, sample, bounce, dimension)) and film_to_image makes the image.
// A device that runs slower simply takes fewer batches. Bit for bit holds where each path runs through the same
// arithmetic whatever the batches: the CPU, the GPU megakernel, and the GPU wavefront, where every batch ends with a
// drain of its own and the drain and stage kernels are compiled without contraction (CMakeLists.txt), so a path is
// rounded the same whichever finishes it (tests/test_gpu.cpp: Gpu.DrainMatchesIterationsBitForBit).
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>
#include "host/render/render.h"

namespace wp {

// What a worker hands back after its last batch: its film and its statistics.
struct WorkerFilm {
    std::vector<unsigned long long> sum;  // 3 per film pixel (RenderParams::film_pixels); empty if it took no batch
    unsigned long long nonfinite = 0;
    uint32_t first_nonfinite_pixel = 0xffffffffu;  // the lowest film pixel with a non-finite sample
    unsigned long long clamped = 0;                // samples clamped at kFilmMaxSample
    RenderStats stats;                             // rays, kernels, iterations, histograms, device, device_bytes
    int device = -1;                               // CUDA device index (-1: a CPU worker)
};

// One worker of a split render. Made, used and asked for its film on the worker's thread; aovs (the first worker
// only) and the destructor run on the caller's thread after every worker's thread has ended.
class BatchWorker {
public:
    virtual ~BatchWorker() = default;
    // Adds the samples [b, e) to this worker's film. With cancel (given only when the worker is the only one and
    // the batch the whole range) it may stop early: returns the end of the samples taken, [b, returned); without,
    // every sample of the batch (returns e). progress(d): d of the batch's samples are done.
    virtual uint64_t render(uint64_t b, uint64_t e, const std::atomic<bool>* cancel,
                            const std::function<void(uint64_t)>& progress) = 0;
    // The film and statistics after the last batch.
    virtual WorkerFilm film() = 0;
    // The AOV pass (RenderOptions::aovs) over the samples [begin, end) into img's AOV sums (Image::aov_sum); its
    // kernel rows to st.
    virtual void aovs(Image& img, uint64_t begin, uint64_t end, RenderStats& st) = 0;
};
// Makes worker k of n (on the worker's own thread: a GPU worker selects its device there).
using WorkerFactory = std::function<std::unique_ptr<BatchWorker>(unsigned k)>;

// The batch of a split render of `samples` global samples over `workers` workers: about an eighth of each worker's
// share (samples / (8 x workers)), so that every worker takes several batches and a slower one takes fewer, and the
// last batches, where a device may idle while another finishes, are short; rounded up to a multiple of 64K;
// at least kMinSplitBatch, at most kMaxSplitBatch. One worker: the whole range in one batch (the single-device
// schedule, its cancel inside). Any batch gives the same image bit for bit; only the balance and the per-batch
// costs change.
uint64_t split_batch_size(uint64_t samples, unsigned workers);
// The batch a split render of `samples` over `workers` uses: the whole range for one worker, else opt.split_batch
// or, when 0, split_batch_size.
uint64_t split_batch(const RenderOptions& opt, uint64_t samples, unsigned workers);
// 4M samples: a batch is at least two of the megakernel's shortest launches (2M) and half the wavefront's default
// queue (8M paths), whose tail (the drain of the last paths) every batch pays once.
constexpr uint64_t kMinSplitBatch = 1ull << 22;
// 32M samples: a cancel waits for the batches in flight (each finished once taken), a fraction of a second on the
// slowest benchmark scene (docs/DECISIONS.md: split-batch).
constexpr uint64_t kMaxSplitBatch = 1ull << 25;

// The driver: the range of opt (sample_begin, sample_end) in batches of opt.split_batch (0: split_batch_size) over
// `workers` workers made by `make`; opt.progress gets the samples done summed over the workers (called under a lock,
// from the workers' threads), opt.cancel stops the handing out of batches. AOVs (opt.aovs) are computed by the
// first worker after the beauty, over the samples done, [begin, done). A worker's exception stops the others after their batches
// and is rethrown (the first worker's first). st: as RenderStats describes a split render's.
Image render_split(const RenderParams& rp, const RenderOptions& opt, unsigned workers, const WorkerFactory& make,
                   RenderStats& st);

// A CPU worker: render_cpu's schedules (opt.threads threads) over each batch, the sums added into a film of its own.
std::unique_ptr<BatchWorker> make_cpu_worker(const SceneData& scene, const RenderParams& rp, Mode mode,
                                             const RenderOptions& opt);
// A CPU render split over `workers` CPU workers (each with opt.threads threads): the same image as render_cpu's bit
// for bit. What CI has in place of several GPUs.
Image render_cpu_split(const SceneData& scene, const RenderParams& rp, Mode mode, const RenderOptions& opt,
                       unsigned workers, RenderStats* stats = nullptr);

// The CPU backend over the samples [b, e) of the render (within it), whatever the filter (a batch is no partial
// film: Mitchell's two films are added like one); host/render/render_cpu.cpp.
Image render_cpu_batch(const SceneData& scene, const RenderParams& rp, Mode mode, const RenderOptions& opt, uint64_t b,
                       uint64_t e, RenderStats& st);
// The CPU's AOV pass over the samples [begin, end) into img's AOV sums (allocated here), as render_cpu runs it
// (aov_images then makes the AOV images).
void render_cpu_aovs(const SceneData& scene, const RenderParams& rp, const RenderOptions& opt, uint64_t begin,
                     uint64_t end, Image& img, RenderStats& st);

// Adds `from`'s kernel rows to `to`'s, by name (new names at the end).
void add_kernel_rows(std::vector<KernelRow>& to, const std::vector<KernelRow>& from);

}  // namespace wp
