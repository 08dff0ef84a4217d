#include "host/render_cpu.h"
#include <atomic>
#include <thread>
#include "kernels/stages.h"

namespace wp {

Image render_cpu_megakernel(const SceneData& scene, const RenderParams& rp, unsigned threads) {
    if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
    SceneView s = scene.view();
    uint32_t np = rp.num_pixels();
    std::vector<unsigned long long> sum(3ull * np, 0);
    unsigned long long bad = 0;
    unsigned int first = 0xffffffffu;
    FilmView film{sum.data(), &bad, &first};
    uint64_t total = uint64_t(np) * rp.spp;
    std::atomic<uint64_t> next{0};
    const uint64_t chunk = 256;
    auto worker = [&] {
        for (uint64_t b; (b = next.fetch_add(chunk)) < total;)
            for (uint64_t i = b; i < std::min(total, b + chunk); ++i) trace_path(s, rp, film, i);
    };
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t) pool.emplace_back(worker);
    for (auto& t : pool) t.join();
    Image img;
    img.width = rp.width;
    img.height = rp.height;
    img.rgb.resize(3ull * np);
    for (size_t i = 0; i < img.rgb.size(); ++i) img.rgb[i] = film_value(sum[i], rp.spp);
    img.nonfinite = bad;
    img.first_nonfinite_pixel = first;
    return img;
}

}  // namespace wp
