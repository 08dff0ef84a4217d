// megakernel: one thread per path sample, the stage bodies called in a loop (grid-stride over samples).
#include "host/launch.h"
#include "host/render_gpu.h"
#include "kernels/stages.h"

namespace wp {

__global__ void megakernel(SceneView s, RenderParams rp, FilmView film, uint64_t begin, uint64_t end) {
    for (uint64_t i = begin + uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < end;
         i += uint64_t(gridDim.x) * blockDim.x)
        trace_path(s, rp, film, i);
}

bool gpu_available(std::string* name) {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
        cudaGetLastError();
        return false;
    }
    cudaDeviceProp p;
    if (cudaGetDeviceProperties(&p, 0) != cudaSuccess) return false;
    if (name) *name = p.name;
    return true;
}

namespace {
template <class T>
const T* upload(const std::vector<T>& v, std::vector<void*>& owned) {
    if (v.empty()) return nullptr;
    void* d = nullptr;
    WP_CUDA(cudaMalloc(&d, v.size() * sizeof(T)));
    owned.push_back(d);
    WP_CUDA(cudaMemcpy(d, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice));
    return static_cast<const T*>(d);
}
}  // namespace

Image render_gpu_megakernel(const SceneData& sd, const RenderParams& rp, GpuRenderStats* stats) {
    std::vector<void*> owned;
    struct Free {
        std::vector<void*>& o;
        ~Free() {
            for (void* p : o) cudaFree(p);
        }
    } free_all{owned};
    SceneView s = sd.view();
    s.nodes = upload(sd.nodes, owned);
    s.prims.geom = upload(sd.geom, owned);
    s.prims.info = upload(sd.info, owned);
    s.prims.attr = upload(sd.attr, owned);
    s.lambert = upload(sd.lambert, owned);
    s.conductor = upload(sd.conductor, owned);
    s.dielectric = upload(sd.dielectric, owned);
    s.principled = upload(sd.principled, owned);
    s.lights = upload(sd.lights, owned);
    s.light_cdf = upload(sd.light_cdf, owned);
    uint32_t np = rp.num_pixels();
    FilmView film;
    WP_CUDA(cudaMalloc(&film.sum, 3ull * np * sizeof(unsigned long long)));
    owned.push_back(film.sum);
    WP_CUDA(cudaMalloc(&film.bad_count, sizeof(unsigned long long)));
    owned.push_back(film.bad_count);
    WP_CUDA(cudaMalloc(&film.bad_first_pixel, sizeof(unsigned int)));
    owned.push_back(film.bad_first_pixel);
    WP_CUDA(cudaMemset(film.sum, 0, 3ull * np * sizeof(unsigned long long)));
    WP_CUDA(cudaMemset(film.bad_count, 0, sizeof(unsigned long long)));
    WP_CUDA(cudaMemset(film.bad_first_pixel, 0xff, sizeof(unsigned int)));

    cudaStream_t stream;
    WP_CUDA(cudaStreamCreate(&stream));
    Launcher L(stream);
    cudaEvent_t t0, t1;
    WP_CUDA(cudaEventCreate(&t0));
    WP_CUDA(cudaEventCreate(&t1));
    WP_CUDA(cudaEventRecord(t0, stream));
    uint64_t total = uint64_t(np) * rp.spp;
    const uint64_t batch = uint64_t(np);  // one sample per pixel per launch
    int sms = 0;
    WP_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    for (uint64_t b = 0; b < total; b += batch) {
        uint64_t e = std::min(total, b + batch);
        uint64_t n = e - b;
        unsigned blocks = unsigned(std::min<uint64_t>((n + 127) / 128, uint64_t(sms) * 64));
        L.launch("megakernel", dim3(blocks), dim3(128), megakernel, s, rp, film, b, e);
    }
    WP_CUDA(cudaEventRecord(t1, stream));
    WP_CUDA(cudaStreamSynchronize(stream));
    L.collect();
    float ms = 0;
    WP_CUDA(cudaEventElapsedTime(&ms, t0, t1));
    std::vector<unsigned long long> sum(3ull * np);
    unsigned long long bad = 0;
    unsigned int first = 0;
    WP_CUDA(cudaMemcpy(sum.data(), film.sum, sum.size() * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
    WP_CUDA(cudaMemcpy(&bad, film.bad_count, sizeof(bad), cudaMemcpyDeviceToHost));
    WP_CUDA(cudaMemcpy(&first, film.bad_first_pixel, sizeof(first), cudaMemcpyDeviceToHost));
    cudaEventDestroy(t0);
    cudaEventDestroy(t1);
    cudaStreamDestroy(stream);
    Image img;
    img.width = rp.width;
    img.height = rp.height;
    img.rgb.resize(sum.size());
    for (size_t i = 0; i < sum.size(); ++i) img.rgb[i] = film_value(sum[i], rp.spp);
    img.nonfinite = bad;
    img.first_nonfinite_pixel = first;
    if (stats) {
        gpu_available(&stats->device);
        stats->render_ms = ms;
        for (auto& [k, v] : L.table()) stats->kernels[k] = {v.launches, v.total_ms};
    }
    return img;
}

}  // namespace wp
