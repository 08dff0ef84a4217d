#include "host/scene/spectrum_file.h"
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

namespace wp {

bool read_spectrum_file(const std::string& path, std::vector<double>& pairs, std::string& error) {
    pairs.clear();
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
                return bad(line, "malformed number '" + (word.size() > 40 ? word.substr(0, 40) + "..." : word) +
                                     "' (a spectrum file holds numbers: wavelength in nm, value)");
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
