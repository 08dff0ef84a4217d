// `wavepath merge`: partial films of one scene and settings added into the image (or a film).
#include <cstdio>
#include <string>
#include <utility>
#include <vector>
#include "host/app/cli_support.h"
#include "host/app/render_command.h"
#include "host/scene/render_settings.h"

namespace wp {

// The output is checked first (exit 2); unreadable parts, other scenes or settings, overlaps and (without --partial)
// missing ranges exit 1.
int run_merge(const MergeCall& c) {
    if (std::string why = output_problem(c.out, render_extensions(), "output"); !why.empty()) {
        std::fprintf(stderr, "error: %s\n", why.c_str());
        return kExitUsage;
    }
    DenoiseDevice denoise_on = DenoiseDevice::Cpu;
    if (c.denoise) {  // checked before the parts are read: on the GPU where OIDN has a CUDA device (auto), or as asked
        if (extension_of(c.out) == ".wpfilm") {
            std::fprintf(stderr, "error: --denoise writes an image: not with a film output (%s)\n", c.out.c_str());
            return kExitUsage;
        }
        const DenoiseDevice asked = denoise_device_of(c.denoise_device);
        denoise_on = resolve_denoise_device(asked, gpu_available(), 0);
        if (std::string why = denoiser_problem(denoise_on, 0); !why.empty()) {
            std::fprintf(stderr, "error: --denoise on the %s: %s\n",
                         denoise_on == DenoiseDevice::Cuda ? "GPU (--denoise-device cuda)" : "CPU", why.c_str());
            return kExitUsage;
        }
        if (std::string why = output_problem(aov_path(c.out, "denoised"), render_extensions(), "output");
            !why.empty()) {
            std::fprintf(stderr, "error: %s\n", why.c_str());
            return kExitUsage;
        }
    }
    std::vector<PartialFilm> parts;
    try {
        for (const std::string& p : c.parts) parts.push_back(read_film(p));
        std::vector<std::pair<uint64_t, uint64_t>> missing;
        PartialFilm m = merge_films(parts, c.parts, missing);
        const uint64_t np = m.pixels(), all = np * m.spp;
        // the ranges the parts hold, in order (the complement of the missing ones)
        std::vector<std::pair<uint64_t, uint64_t>> held;
        uint64_t at = 0;
        for (const auto& [b, e] : missing) {
            if (b > at) held.emplace_back(at, b);
            at = e;
        }
        if (at < all) held.emplace_back(at, all);
        if (!missing.empty()) {
            std::string list;
            for (const auto& [b, e] : missing) list += (list.empty() ? "" : ", ") + range_text(b, e, np);
            if (!c.partial) {
                std::fprintf(stderr,
                             "error: the parts do not hold the whole render (%u spp of %s): missing %s; render them "
                             "with --samples, or --partial writes the image of the samples there are\n",
                             m.spp, m.scene.c_str(), list.c_str());
                return kExitInput;
            }
            std::fprintf(stderr, "warning: --partial: missing %s; each pixel is divided by the samples it has\n",
                         list.c_str());
            if (extension_of(c.out) == ".wpfilm") {
                if (held.size() != 1) {
                    std::fprintf(stderr,
                                 "error: a partial film holds one range of samples, these parts hold %zu: write an "
                                 "image, or render the gaps first\n",
                                 held.size());
                    return kExitInput;
                }
                m.begin = held[0].first;
                m.end = held[0].second;
            }
        }
        if (held.empty()) held.emplace_back(0, 0);
        Image img = film_image(m, held);
        ImageMetadata meta = {{"wavepath:scene", m.scene},
                              {"wavepath:spp", std::to_string(m.spp)},
                              {"wavepath:samples", std::to_string(img.samples)},
                              {"wavepath:mode", m.mode},
                              {"wavepath:backend", m.backend},
                              {"wavepath:merged_parts", std::to_string(parts.size())},
                              {"wavepath:version", version_short()},
                              {"wavepath:command", c.command}};
        for (const auto& kv : settings_metadata(crop_settings(m))) meta.push_back(kv);  // seed, filter, ...
        if (m.backend.find('+') != std::string::npos ||
            (m.backend.find("gpu") != std::string::npos && m.mode.find('+') != std::string::npos))
            std::fprintf(stderr,
                         "warning: the parts were rendered by %s %s: the same estimator, but bit for bit a single "
                         "render's image only from one backend (and on the GPU one schedule)\n",
                         m.backend.c_str(), m.mode.c_str());
        // the AOVs the parts hold, written as a render writes them: EXR channels, or files beside a PNG or PFM
        std::vector<std::string> aov_outs;
        if (extension_of(c.out) != ".wpfilm") aov_outs = aov_files(c.out, m.aovs);
        for (const std::string& f : aov_outs)
            if (std::string why = output_problem(f, render_extensions(), "output"); !why.empty()) {
                std::fprintf(stderr, "error: %s\n", why.c_str());
                return kExitUsage;
            }
        write_output(c.out, img, m, meta);
        std::string extra;
        if (c.denoise) {  // with the albedo and normal the parts hold (rendered with --aov albedo,normal)
            if (img.albedo.empty() || img.normal.empty())
                std::fprintf(stderr,
                             "warning: --denoise: the parts hold no albedo and normal AOVs (render them with --aov "
                             "albedo,normal): denoised from the colour alone\n");
            Image dn = denoise_image(img, denoise_on, 0);
            ImageMetadata dmeta = meta;
            dmeta.push_back({"wavepath:denoiser", std::string("oidn ") + denoise_device_name(denoise_on)});
            const std::string dp = aov_path(c.out, "denoised");
            write_image(dp, dn, dmeta);
            extra += ", " + dp;
        }
        if (extension_of(c.out) != ".wpfilm")
            for (const std::string& f : write_aov_files(c.out, img)) extra += ", " + f;
        std::printf("merged %zu %s of %s (%ux%u, %s of %u spp, rendered by %s %s) -> %s%s\n", parts.size(),
                    parts.size() == 1 ? "part" : "parts", m.scene.c_str(), m.width, m.height,
                    missing.empty() ? "all" : (std::to_string(img.samples) + " samples").c_str(), m.spp,
                    m.backend.c_str(), m.mode.c_str(), c.out.c_str(), extra.c_str());
        if (m.nonfinite)
            std::fprintf(stderr, "warning: %llu non-finite samples dropped, first at pixel (%u, %u)\n", m.nonfinite,
                         m.first_nonfinite_pixel % m.width, m.first_nonfinite_pixel / m.width);
        if (m.clamped)
            std::fprintf(stderr, "warning: %llu samples clamped at 1e6 (the film's largest sample value)\n", m.clamped);
    } catch (const FilmError& e) {
        std::fprintf(stderr, "error: %s\n", e.what());
        return kExitInput;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "error: %s\n", e.what());
        return kExitUsage;  // the output could not be written
    }
    return kExitOk;
}

}  // namespace wp
