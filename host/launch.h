// The one launch helper: NVTX range, CUDA events, launch check, per-kernel table.
#pragma once
#include <nvtx3/nvToolsExt.h>
#include <map>
#include <string>
#include <vector>
#include "host/cuda_check.h"

namespace wp {

struct KernelStat {
    uint64_t launches = 0;
    double total_ms = 0.0;
};

class Launcher {
public:
    explicit Launcher(cudaStream_t s) : stream_(s) {}
    ~Launcher() {
        for (auto& p : pending_) {
            cudaEventDestroy(p.a);
            cudaEventDestroy(p.b);
        }
    }
    template <class Kernel, class... Args>
    void launch(const char* name, dim3 grid, dim3 block, Kernel k, Args... args) {
        Pending p{name, nullptr, nullptr};
        WP_CUDA(cudaEventCreate(&p.a));
        WP_CUDA(cudaEventCreate(&p.b));
        nvtxRangePushA(name);
        WP_CUDA(cudaEventRecord(p.a, stream_));
        k<<<grid, block, 0, stream_>>>(args...);
        WP_CUDA(cudaGetLastError());
        WP_CUDA(cudaEventRecord(p.b, stream_));
        nvtxRangePop();
        pending_.push_back(p);
    }
    // Call after the stream is synchronised: folds event times into the table.
    void collect() {
        for (auto& p : pending_) {
            float ms = 0;
            WP_CUDA(cudaEventElapsedTime(&ms, p.a, p.b));
            auto& s = table_[p.name];
            s.launches++;
            s.total_ms += ms;
            cudaEventDestroy(p.a);
            cudaEventDestroy(p.b);
        }
        pending_.clear();
    }
    const std::map<std::string, KernelStat>& table() const { return table_; }

private:
    struct Pending {
        const char* name;
        cudaEvent_t a, b;
    };
    cudaStream_t stream_;
    std::vector<Pending> pending_;
    std::map<std::string, KernelStat> table_;
};

}  // namespace wp
