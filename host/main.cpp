// wavepath command line.
#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include "host/image_io.h"
#include "host/render_cpu.h"
#include "host/scene_json.h"
#ifdef WP_HAVE_GPU
#include "host/render_gpu.h"
#endif

using namespace wp;

int main(int argc, char** argv) {
    CLI::App app{"wavepath: a wavefront GPU path tracer"};
    app.require_subcommand(1);
    auto* render = app.add_subcommand("render", "render JSON scenes to images");
    std::vector<std::string> scenes;
    std::string out;
    uint32_t spp = 0, width = 0, height = 0, max_depth = 0, seed = 0;
    bool seed_set = false;
    std::string backend = "auto";
    render->add_option("scenes", scenes, "scene files (JSON)")->required();
    render->add_option("-o,--output", out, "output image (.exr, .png, .pfm); default: scene name + .exr");
    render->add_option("--spp", spp, "samples per pixel");
    render->add_option("--width", width, "image width");
    render->add_option("--height", height, "image height");
    render->add_option("--max-depth", max_depth, "longest path, in segments");
    auto* so = render->add_option("--seed", seed, "random seed");
    render->add_option("--backend", backend, "gpu, cpu or auto")->check(CLI::IsMember({"auto", "gpu", "cpu"}));
    CLI11_PARSE(app, argc, argv);
    seed_set = so->count() > 0;

    bool use_gpu = false;
#ifdef WP_HAVE_GPU
    std::string dev;
    bool have_gpu = gpu_available(&dev);
    if (backend == "gpu" && !have_gpu) {
        std::fprintf(stderr, "wavepath: --backend gpu asked for, but no CUDA GPU is present\n");
        return 1;
    }
    use_gpu = backend == "gpu" || (backend == "auto" && have_gpu);
    if (backend == "auto") std::printf("backend: %s\n", use_gpu ? ("gpu (" + dev + ")").c_str() : "cpu (no CUDA GPU found)");
#else
    if (backend == "gpu") {
        std::fprintf(stderr, "wavepath: built without CUDA; use --backend cpu\n");
        return 1;
    }
    if (backend == "auto") std::printf("backend: cpu (built without CUDA)\n");
#endif
    if (scenes.size() > 1 && !out.empty()) {
        std::fprintf(stderr, "wavepath: -o names one file; with several scenes leave it out\n");
        return 1;
    }
    for (const std::string& path : scenes) {
        try {
            LoadedScene ls = load_scene_json(path);
            RenderParams& rp = ls.params;
            if (spp) rp.spp = spp;
            if (width) rp.width = width;
            if (height) rp.height = height;
            if (width || height) ls.data.camera.aspect = float(rp.width) / float(rp.height);
            if (max_depth) rp.max_depth = max_depth;
            if (seed_set) rp.seed = seed;
            std::string target = out;
            if (target.empty()) {
                size_t d = path.find_last_of('.');
                target = (d == std::string::npos ? path : path.substr(0, d)) + ".exr";
            }
            auto t0 = std::chrono::steady_clock::now();
            Image img;
            std::string where = "cpu";
#ifdef WP_HAVE_GPU
            if (use_gpu) {
                GpuRenderStats st;
                img = render_gpu_megakernel(ls.data, rp, &st);
                where = "gpu " + st.device;
            }
#endif
            if (!use_gpu) img = render_cpu_megakernel(ls.data, rp);
            double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            write_image(target, img);
            double samples = double(rp.num_pixels()) * rp.spp;
            std::printf("%s: %ux%u, %u spp -> %s in %.3f s, %.2f Msamples/s, backend %s\n", path.c_str(), rp.width,
                        rp.height, rp.spp, target.c_str(), s, samples / s / 1e6, where.c_str());
            if (img.nonfinite)
                std::printf("warning: %llu non-finite samples dropped, first at pixel (%u, %u)\n", img.nonfinite,
                            img.first_nonfinite_pixel % rp.width, img.first_nonfinite_pixel / rp.width);
        } catch (const std::exception& e) {
            std::fprintf(stderr, "error: %s\n", e.what());
            return 1;
        }
    }
    return 0;
}
