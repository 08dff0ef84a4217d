#include "host/image/image_stats.h"
#include <cmath>
#include <cstring>
#include <stdexcept>
#include "host/image/image_load.h"

namespace wp {
namespace {
void check_same_size(const Image& a, const Image& b) {
    if (a.width != b.width || a.height != b.height || a.rgb.size() != b.rgb.size())
        throw std::invalid_argument("images of different sizes");
}
// Tile means (per channel) of one image: tiles in row-major order, edge tiles partial.
std::vector<double> tile_means(const Image& im, uint32_t tile, std::vector<double>* var = nullptr) {
    uint32_t tx = (im.width + tile - 1) / tile, ty = (im.height + tile - 1) / tile;
    std::vector<double> m(size_t(tx) * ty * 3, 0.0), m2(m.size(), 0.0), cnt(size_t(tx) * ty, 0.0);
    for (uint32_t y = 0; y < im.height; ++y)
        for (uint32_t x = 0; x < im.width; ++x) {
            size_t t = size_t(y / tile) * tx + x / tile;
            cnt[t] += 1;
            for (int c = 0; c < 3; ++c) {
                double v = im.rgb[3 * (size_t(y) * im.width + x) + c];
                m[3 * t + c] += v;
                m2[3 * t + c] += v * v;
            }
        }
    for (size_t t = 0; t < cnt.size(); ++t)
        for (int c = 0; c < 3; ++c) {
            double mean = m[3 * t + c] / cnt[t];
            if (var)
                var->push_back(
                    cnt[t] > 1 ? std::max(0.0, (m2[3 * t + c] - cnt[t] * mean * mean) / (cnt[t] - 1)) / cnt[t] : 0.0);
            m[3 * t + c] = mean;
        }
    return m;
}
}  // namespace

ImageDiff compare_images(const Image& a, const Image& b, uint32_t tile) {
    check_same_size(a, b);
    ImageDiff d;
    size_t np = size_t(a.width) * a.height;
    size_t same = 0;
    double se = 0;
    for (size_t i = 0; i < np; ++i) {
        bool eq = true;
        for (int c = 0; c < 3; ++c) {
            float x = a.rgb[3 * i + c], y = b.rgb[3 * i + c];
            d.mean_a[c] += x / double(np);
            d.mean_b[c] += y / double(np);
            double e = double(x) - double(y);
            se += e * e;
            d.max_abs = std::max(d.max_abs, std::fabs(e));
            eq = eq && std::memcmp(&x, &y, sizeof(float)) == 0;
        }
        same += eq ? 1 : 0;
    }
    d.rmse = np ? std::sqrt(se / double(3 * np)) : 0.0;
    d.identical = np ? double(same) / double(np) : 1.0;
    std::vector<double> va, vb;
    std::vector<double> ma = tile_means(a, tile, &va), mb = tile_means(b, tile, &vb);
    for (size_t k = 0; k < ma.size(); ++k) {
        double den = va[k] + vb[k];
        double z = den > 0 ? (ma[k] - mb[k]) / std::sqrt(den) : (ma[k] == mb[k] ? 0.0 : INFINITY);
        d.z2_mean += z * z;
        d.z_max = std::max(d.z_max, std::fabs(z));
    }
    d.tiles = ma.size() / 3;
    if (!ma.empty()) d.z2_mean /= double(ma.size());
    return d;
}

Agreement agreement(const std::vector<Image>& a, const std::vector<Image>& b, uint32_t tile) {
    if (a.size() < 2 || b.size() < 2) throw std::invalid_argument("agreement needs at least two renders per set");
    for (const Image& i : a) check_same_size(i, a[0]);
    for (const Image& i : b) check_same_size(i, a[0]);
    auto stats = [&](const std::vector<Image>& set, std::vector<double>& mean, std::vector<double>& var) {
        std::vector<std::vector<double>> tm;
        for (const Image& im : set) tm.push_back(tile_means(im, tile));
        size_t k = tm[0].size(), n = set.size();
        mean.assign(k, 0.0);
        var.assign(k, 0.0);
        for (size_t j = 0; j < k; ++j) {
            for (size_t r = 0; r < n; ++r) mean[j] += tm[r][j] / double(n);
            for (size_t r = 0; r < n; ++r) var[j] += (tm[r][j] - mean[j]) * (tm[r][j] - mean[j]) / double(n - 1);
            var[j] /= double(n);  // variance of the mean
        }
    };
    std::vector<double> ma, va, mb, vb;
    stats(a, ma, va);
    stats(b, mb, vb);
    Agreement g;
    g.tests = ma.size();
    for (size_t j = 0; j < ma.size(); ++j) {
        double den = va[j] + vb[j];
        double z = den > 0 ? (ma[j] - mb[j]) / std::sqrt(den) : (ma[j] == mb[j] ? 0.0 : INFINITY);
        g.z2_mean += z * z / double(g.tests);
        if (std::fabs(z) > g.z_max) {
            g.z_max = std::fabs(z);
            g.worst = j;
        }
    }
    return g;
}

ReferenceError reference_error(const Image& img, const Image& ref) {
    check_same_size(img, ref);
    ReferenceError e;
    size_t n = 0;
    for (size_t i = 0; i < img.rgb.size(); ++i) {
        const double x = img.rgb[i], r = ref.rgb[i];
        if (!std::isfinite(x) || !std::isfinite(r)) {
            ++e.skipped;
            continue;
        }
        const double d2 = (x - r) * (x - r);
        e.mse += d2;
        e.relmse += d2 / (r * r + 1e-2);
        ++n;
    }
    if (n) {
        e.mse /= double(n);
        e.relmse /= double(n);
    }
    return e;
}

Image read_reference_image(const std::string& path) {
    const LoadedImage li = load_image(path, true);
    Image im;
    im.width = li.width;
    im.height = li.height;
    im.rgb.resize(size_t(li.width) * li.height * 3);
    for (size_t i = 0; i < li.texels.size(); ++i) {
        im.rgb[3 * i] = li.texels[i].x;
        im.rgb[3 * i + 1] = li.texels[i].y;
        im.rgb[3 * i + 2] = li.texels[i].z;
    }
    return im;
}

}  // namespace wp
