#pragma once
#include <cuda_runtime.h>
#include <stdexcept>
#include <string>
// Every CUDA call goes through this: a failure names the call, file and line.
#define WP_CUDA(call)                                                                              \
    do {                                                                                           \
        cudaError_t err_ = (call);                                                                 \
        if (err_ != cudaSuccess)                                                                   \
            throw std::runtime_error(std::string("CUDA error: ") + cudaGetErrorString(err_) +      \
                                     " in " #call " at " __FILE__ ":" + std::to_string(__LINE__)); \
    } while (0)
