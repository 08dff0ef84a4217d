#include "host/scene/pbrt_tokenizer.h"
#include <cmath>
#include <cstdlib>
#include "host/scene/scene_json.h"

namespace wp {

namespace {
[[noreturn]] void fail(const std::string& file, int line, int col, const std::string& what) {
    throw SceneError(file + ":" + std::to_string(line) + ":" + std::to_string(col) + ": " + what);
}
bool space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }
}  // namespace

std::vector<PbrtToken> pbrt_tokenize(const std::string& text, const std::string& file) {
    std::vector<PbrtToken> out;
    const size_t n = text.size();
    size_t i = 0;
    int line = 1, col = 1;
    auto advance = [&](size_t k) {  // over k characters of one line
        i += k;
        col += int(k);
    };
    while (i < n) {
        char c = text[i];
        if (c == '\n') {
            ++i;
            ++line;
            col = 1;
            continue;
        }
        if (space(c)) {
            advance(1);
            continue;
        }
        if (c == '#') {
            while (i < n && text[i] != '\n') advance(1);
            continue;
        }
        if (c == '[' || c == ']') {
            out.push_back({c == '[' ? PbrtToken::LBracket : PbrtToken::RBracket, std::string(1, c), line, col});
            advance(1);
            continue;
        }
        if (c == '"') {
            PbrtToken t{PbrtToken::String, std::string(), line, col};
            advance(1);
            for (;;) {
                if (i >= n) fail(file, t.line, t.col, "unterminated string (the file ends before its closing quote)");
                char d = text[i];
                if (d == '\n' || d == '\r')
                    fail(file, t.line, t.col, "unterminated string (a new line before its closing quote)");
                if (d == '"') {
                    advance(1);
                    break;
                }
                if (d == '\\') {
                    if (i + 1 >= n)
                        fail(file, t.line, t.col, "unterminated string (the file ends before its closing quote)");
                    char e = text[i + 1];
                    switch (e) {
                        case 'b': t.text += '\b'; break;
                        case 'f': t.text += '\f'; break;
                        case 'n': t.text += '\n'; break;
                        case 'r': t.text += '\r'; break;
                        case 't': t.text += '\t'; break;
                        case '\\': t.text += '\\'; break;
                        case '\'': t.text += '\''; break;
                        case '"': t.text += '"'; break;
                        default:
                            if (e == '\n' || e == '\r')
                                fail(file, t.line, t.col, "unterminated string (a new line before its closing quote)");
                            fail(file, line, col, std::string("unknown escape sequence '\\") + e + "' in a string");
                    }
                    advance(2);
                    continue;
                }
                t.text += d;
                advance(1);
            }
            out.push_back(std::move(t));
            continue;
        }
        PbrtToken t{PbrtToken::Word, std::string(), line, col};
        size_t s = i;
        while (i < n && !space(text[i]) && text[i] != '"' && text[i] != '[' && text[i] != ']' && text[i] != '#')
            advance(1);
        t.text = text.substr(s, i - s);
        out.push_back(std::move(t));
    }
    return out;
}

bool pbrt_number(const std::string& word, double& out) {
    if (word.empty() || word.size() > 64) return false;
    const char* b = word.c_str();
    char c = b[0];
    if (!(c == '-' || c == '+' || c == '.' || (c >= '0' && c <= '9'))) return false;  // no "nan", "inf", " 1"
    char* e = nullptr;
    double v = std::strtod(b, &e);  // an underflow reads as 0 or a denormal, an overflow as inf (refused)
    if (e != b + word.size() || !std::isfinite(v)) return false;
    out = v;
    return true;
}

}  // namespace wp
