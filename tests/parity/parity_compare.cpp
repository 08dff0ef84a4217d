// The parity suite's image check (docs/PARITY.md): a wavepath render against pbrt-v4's reference EXR.
//
//   wp_parity_compare NAME REF.exr TEST.exr [--mean-tol T] [--relmse-tol M] [--block B]
//
// Passes when both hold:
//   * the mean of each channel over all pixels: |mean(test) / mean(ref) - 1| <= T (default 0.02);
//     a channel whose reference mean is below 1e-4 is compared as an absolute difference below 1e-4 instead;
//   * relMSE <= M (default 0.01), where both images are first box-downsampled by B x B pixels (default 4; trailing
//     rows/columns that do not fill a block are dropped) and
//         relMSE = mean over the downsampled pixels p and channels c in {R,G,B} of (a - b)^2 / (b^2 + 0.01),
//     a = test, b = reference. The 0.01 keeps dark pixels from dominating: below b ~ 0.1 the error counts absolutely.
// Prints one table line: NAME, the mean ratios R G B, relMSE, PASS/FAIL. Exit code 0 pass, 1 fail, 2 error.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include "host/image/image_load.h"

namespace {

struct Img {
    int w = 0, h = 0;
    std::vector<double> rgb;  // w*h*3, row 0 at the top
};

Img load(const char* path) {
    wp::LoadedImage im = wp::load_image(path, false);
    Img r;
    r.w = int(im.width), r.h = int(im.height);
    r.rgb.resize(size_t(r.w) * r.h * 3);
    for (size_t i = 0; i < size_t(r.w) * r.h; ++i) {
        r.rgb[3 * i + 0] = im.texels[i].x;
        r.rgb[3 * i + 1] = im.texels[i].y;
        r.rgb[3 * i + 2] = im.texels[i].z;
    }
    return r;
}

Img downsample(const Img& a, int B) {
    Img r;
    r.w = a.w / B, r.h = a.h / B;
    r.rgb.assign(size_t(r.w) * r.h * 3, 0.0);
    for (int y = 0; y < r.h * B; ++y)
        for (int x = 0; x < r.w * B; ++x)
            for (int c = 0; c < 3; ++c)
                r.rgb[(size_t(y / B) * r.w + x / B) * 3 + c] += a.rgb[(size_t(y) * a.w + x) * 3 + c] / (B * B);
    return r;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 4) {
        std::fprintf(stderr, "usage: %s NAME REF.exr TEST.exr [--mean-tol T] [--relmse-tol M] [--block B]\n", argv[0]);
        return 2;
    }
    double mean_tol = 0.02, relmse_tol = 0.01;
    int block = 4;
    for (int i = 4; i + 1 < argc; i += 2) {
        std::string o = argv[i];
        if (o == "--mean-tol")
            mean_tol = std::atof(argv[i + 1]);
        else if (o == "--relmse-tol")
            relmse_tol = std::atof(argv[i + 1]);
        else if (o == "--block")
            block = std::atoi(argv[i + 1]);
        else {
            std::fprintf(stderr, "unknown option %s\n", o.c_str());
            return 2;
        }
    }
    Img ref, test;
    try {
        ref = load(argv[2]);
        test = load(argv[3]);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "error: %s\n", e.what());
        return 2;
    }
    if (ref.w != test.w || ref.h != test.h) {
        std::fprintf(stderr, "error: reference is %dx%d, test is %dx%d\n", ref.w, ref.h, test.w, test.h);
        return 2;
    }
    if (block < 1 || ref.w < block || ref.h < block) {
        std::fprintf(stderr, "error: image %dx%d smaller than the %d-pixel block\n", ref.w, ref.h, block);
        return 2;
    }
    size_t nonfinite = 0;
    for (double v : test.rgb)
        if (!std::isfinite(v)) ++nonfinite;
    double ratio[3];
    bool mean_ok = true;
    for (int c = 0; c < 3; ++c) {
        double sr = 0, st = 0;
        for (size_t i = 0; i < size_t(ref.w) * ref.h; ++i) sr += ref.rgb[3 * i + c], st += test.rgb[3 * i + c];
        sr /= double(ref.w) * ref.h, st /= double(ref.w) * ref.h;
        if (sr < 1e-4) {
            ratio[c] = std::fabs(st - sr) < 1e-4 ? 1.0 : (sr > 0 ? st / sr : INFINITY);
        } else {
            ratio[c] = st / sr;
        }
        if (!(std::fabs(ratio[c] - 1.0) <= mean_tol)) mean_ok = false;
    }
    Img dr = downsample(ref, block), dt = downsample(test, block);
    double relmse = 0;
    for (size_t i = 0; i < dr.rgb.size(); ++i) {
        double a = dt.rgb[i], b = dr.rgb[i];
        relmse += (a - b) * (a - b) / (b * b + 1e-2);
    }
    relmse /= double(dr.rgb.size());
    bool ok = mean_ok && relmse <= relmse_tol && nonfinite == 0;
    std::printf("%-34s  mean ratio R %.4f G %.4f B %.4f  relMSE(%dx%d) %.5f  %s", argv[1], ratio[0], ratio[1], ratio[2],
                block, block, relmse, ok ? "PASS" : "FAIL");
    if (!ok) {
        std::printf(" (");
        const char* sep = "";
        if (!mean_ok) std::printf("%smean beyond %.3g", sep, mean_tol), sep = ", ";
        if (!(relmse <= relmse_tol)) std::printf("%srelMSE above %.3g", sep, relmse_tol), sep = ", ";
        if (nonfinite) std::printf("%s%zu non-finite values", sep, nonfinite);
        std::printf(")");
    }
    std::printf("\n");
    return ok ? 0 : 1;
}
