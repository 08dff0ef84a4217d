#include "host/image/input_file.h"
#include <sys/stat.h>
#include <cstdio>

namespace wp {
namespace {
std::string size_text(uint64_t b) {
    char s[32];
    std::snprintf(s, sizeof s, "%.1f MiB", double(b) / double(1ull << 20));
    return s;
}
const char* kind_of(mode_t m) {
    if (S_ISDIR(m)) return "a folder";
    if (S_ISCHR(m)) return "a character device";
    if (S_ISBLK(m)) return "a block device";
    if (S_ISFIFO(m)) return "a pipe";
    if (S_ISSOCK(m)) return "a socket";
    return "not a regular file";
}
}  // namespace

std::string input_file_problem(const std::string& path, const std::string& what, uint64_t max_bytes) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return "";
    if (!S_ISREG(st.st_mode)) return path + ": is " + kind_of(st.st_mode) + ", not " + what;
    if (max_bytes && uint64_t(st.st_size) > max_bytes)
        return path + ": is " + size_text(uint64_t(st.st_size)) + ", larger than " + what + " may be (at most " +
               size_text(max_bytes) + ")";
    return "";
}

std::string printable(const std::string& text, size_t max_chars) {
    std::string out;
    for (size_t i = 0; i < text.size() && i < max_chars; ++i) {
        const unsigned char c = static_cast<unsigned char>(text[i]);
        if ((c >= 0x20 && c != 0x7f) || c == '\n' || c == '\t') {
            out += char(c);
        } else {
            char e[8];
            std::snprintf(e, sizeof e, "\\x%02x", c);
            out += e;
        }
    }
    if (text.size() > max_chars) out += "...";
    return out;
}

}  // namespace wp
