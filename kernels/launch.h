// The one launch helper: every kernel launch and every library call (CUB) that does GPU work goes through a
// Launcher, which opens an NVTX range of the stage's name, brackets the work with CUDA events, checks the
// launch, and folds the event times into a per-kernel table (in first-launch order).
// Plain C++ (cudaLaunchKernel, no <<<>>>), so host files compiled by g++ can drive the kernels.
#pragma once
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>
#include "kernels/cuda_check.h"

namespace wp {

struct KernelStat {
    std::string name;
    uint64_t launches = 0;
    double total_ms = 0.0;
};

class Launcher {
public:
    // timed = false: NVTX ranges and launch checks only, no events (measures what the timing itself costs)
    explicit Launcher(cudaStream_t s, bool timed = true) : stream_(s), timed_(timed) {}
    Launcher(const Launcher&) = delete;
    Launcher& operator=(const Launcher&) = delete;
    ~Launcher() {
        for (auto& p : pending_) {
            cudaEventDestroy(p.a);
            cudaEventDestroy(p.b);
        }
        for (cudaEvent_t e : free_) cudaEventDestroy(e);
    }
    cudaStream_t stream() const { return stream_; }

    // Launches kernel k<<<grid, block, 0, stream>>>(args...) as the row `name`.
    template <class... KArgs, class... Args>
    void launch(const char* name, dim3 grid, dim3 block, void (*k)(KArgs...), Args&&... args) {
        static_assert(sizeof...(KArgs) == sizeof...(Args), "argument count");
        std::tuple<std::decay_t<KArgs>...> t(std::forward<Args>(args)...);
        begin(name);
        if (grid.x > 0)
            launch_tuple(reinterpret_cast<const void*>(k), grid, block, t, std::index_sequence_for<KArgs...>{});
        end();
    }
    // Library work (e.g. a CUB call) as the row `name`: f() enqueues its work on stream().
    template <class F>
    void region(const char* name, F&& f) {
        begin(name);
        f();
        WP_CUDA(cudaGetLastError());
        end();
    }
    // Call after the stream is synchronised: folds event times into the table.
    void collect() {
        for (auto& p : pending_) {
            float ms = 0;
            WP_CUDA(cudaEventElapsedTime(&ms, p.a, p.b));
            KernelStat& s = row(p.name);
            s.launches++;
            s.total_ms += ms;
            free_.push_back(p.a);
            free_.push_back(p.b);
        }
        pending_.clear();
    }
    // Folds the launches that have finished, in order, stopping at the first still running (no waiting).
    void collect_ready() {
        size_t n = 0;
        for (; n < pending_.size(); ++n) {
            cudaError_t e = cudaEventQuery(pending_[n].b);
            if (e == cudaErrorNotReady) {
                cudaGetLastError();  // not an error: clear it
                break;
            }
            WP_CUDA(e);
            float ms = 0;
            WP_CUDA(cudaEventElapsedTime(&ms, pending_[n].a, pending_[n].b));
            KernelStat& st = row(pending_[n].name);
            st.launches++;
            st.total_ms += ms;
            free_.push_back(pending_[n].a);
            free_.push_back(pending_[n].b);
        }
        pending_.erase(pending_.begin(), pending_.begin() + long(n));
    }
    const std::vector<KernelStat>& table() const { return table_; }

private:
    struct Pending {
        const char* name;
        cudaEvent_t a, b;
    };
    cudaEvent_t event() {
        if (!free_.empty()) {
            cudaEvent_t e = free_.back();
            free_.pop_back();
            return e;
        }
        cudaEvent_t e;
        WP_CUDA(cudaEventCreate(&e));
        return e;
    }
    void begin(const char* name) {
        nvtxRangePushA(name);
        if (!timed_) return;
        open_ = Pending{name, event(), event()};
        record(open_.a);
    }
    void end() {
        nvtxRangePop();
        if (!timed_) return;
        record(open_.b);
        pending_.push_back(open_);
    }
    void record(cudaEvent_t e) { WP_CUDA(cudaEventRecord(e, stream_)); }
    template <class Tuple, size_t... I>
    void launch_tuple(const void* k, dim3 grid, dim3 block, Tuple& t, std::index_sequence<I...>) {
        void* argv[] = {static_cast<void*>(&std::get<I>(t))...};
        WP_CUDA(cudaLaunchKernel(k, grid, block, argv, 0, stream_));
        WP_CUDA(cudaGetLastError());
    }
    KernelStat& row(const char* name) {
        for (KernelStat& s : table_)
            if (s.name == name) return s;
        table_.push_back(KernelStat{name, 0, 0.0});
        return table_.back();
    }
    cudaStream_t stream_;
    bool timed_ = true;
    Pending open_{};
    std::vector<Pending> pending_;
    std::vector<cudaEvent_t> free_;
    std::vector<KernelStat> table_;
};

}  // namespace wp
