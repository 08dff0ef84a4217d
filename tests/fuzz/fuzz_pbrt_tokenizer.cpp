// libFuzzer target for the pbrt-v4 tokenizer (host/scene/pbrt_tokenizer.h) and the parser behind it: the input
// is a .pbrt file's content. The tokens must satisfy the tokenizer's contract (positions inside the text and
// increasing, no empty words, strings without raw line breaks, numbers finite); then the whole loader runs on the
// text in memory (load_pbrt_string), relative paths resolved in an empty temporary folder. The only expected
// failure is SceneError (a clear message); anything else — a crash, a sanitizer report, another exception, a
// broken invariant (abort), a hang — is a bug. Build: -DWAVEPATH_FUZZ=ON with clang (scripts/ci_sanitize.sh).
#include <unistd.h>
#include <cstdint>
#include <cstdlib>
#include <string>
#include "host/scene/pbrt_tokenizer.h"
#include "host/scene/scene_json.h"
#include "host/scene/scene_pbrt.h"

using namespace wp;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const std::string dir = [] {
        char tmpl[] = "/tmp/wp-fuzz-pbrt-XXXXXX";
        const char* d = mkdtemp(tmpl);
        return std::string(d ? d : "/tmp");
    }();
    const std::string text(reinterpret_cast<const char*>(data), size);
    try {
        std::vector<PbrtToken> tokens = pbrt_tokenize(text, "input.pbrt");
        int line = 1, col = 0, lines = 1;
        for (char c : text) lines += c == '\n';
        for (const PbrtToken& t : tokens) {
            if (t.line < line || (t.line == line && t.col <= col) || t.line > lines || t.col < 1) std::abort();
            line = t.line;
            col = t.col;
            if (t.kind == PbrtToken::Word && t.text.empty()) std::abort();
            if (t.kind == PbrtToken::String && t.text.find_first_of("\n\r") != std::string::npos) {
                // only an escaped \n or \r can put a line break into a string
                if (text.find('\\') == std::string::npos) std::abort();
            }
            double v;
            if (t.kind == PbrtToken::Word && pbrt_number(t.text, v) && !(v - v == 0.0)) std::abort();
        }
    } catch (const SceneError&) {
        return 0;  // the parser would stop at the same error
    }
    try {
        load_pbrt_string(text, dir + "/input.pbrt");
    } catch (const SceneError&) {}
    return 0;
}
