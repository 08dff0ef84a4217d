#include "host/scene/spectrum_file.h"
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include "host/image/input_file.h"
#include "host/scene/render_limits.h"

namespace wp {

bool read_spectrum_file(const std::string& path, std::vector<double>& pairs, std::string& error) {
    pairs.clear();
    if (std::string why = input_file_problem(path, "a spectrum file", kMaxSpectrumFileBytes); !why.empty()) {
        error = why;
        return false;
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        error = path + ": cannot open the spectrum file (" + std::strerror(errno) + ")";
        return false;
    }
    auto bad = [&](int at, const std::string& what) {
        error = path + ":" + std::to_string(at) + ": " + what;
        pairs.clear();
        return false;
    };
    std::string text, word;
    int line = 0, last = 0;  // the line being read; the line of the last number
    while (std::getline(in, text)) {
        ++line;
        const size_t hash = text.find('#');
        std::istringstream words(hash == std::string::npos ? text : text.substr(0, hash));
        while (words >> word) {
            char* end = nullptr;
            errno = 0;
            const double v = std::strtod(word.c_str(), &end);
            if (end == word.c_str() || *end != '\0' || !std::isfinite(v) || errno == ERANGE)
                return bad(line, "malformed number '" + printable(word) +
                                     "' (a spectrum file holds numbers: wavelength in nm, value)");
            // (pbrt-v4 reads them as 32-bit floats, and refuses 1e300: "unable to parse float value")
            if (std::string why = float_range_problem("'" + printable(word) + "'", v); !why.empty())
                return bad(line, why);
            if (pairs.size() % 2 == 0 && !pairs.empty() && v <= pairs[pairs.size() - 2]) {
                std::ostringstream m;
                m << "wavelength " << v << " is not greater than the one before it (" << pairs[pairs.size() - 2]
                  << "): wavelengths must increase";
                return bad(line, m.str());
            }
            pairs.push_back(v);
            last = line;
        }
    }
    if (in.bad()) return bad(line, "read error");
    if (pairs.empty()) {
        error = path + ": no numbers in the spectrum file (expected (wavelength in nm, value) pairs)";
        return false;
    }
    if (pairs.size() % 2 != 0)
        return bad(last, "an odd count of numbers (" + std::to_string(pairs.size()) +
                             "): the last wavelength has no value (expected (wavelength in nm, value) pairs)");
    return true;
}

}  // namespace wp
