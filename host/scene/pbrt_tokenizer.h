// The tokenizer of the pbrt-v4 scene format (host/scene/scene_pbrt.cpp parses its tokens). Kept apart so that a
// libFuzzer target (tests/fuzz/fuzz_pbrt_tokenizer.cpp) can run it on arbitrary bytes.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace wp {

// One token, with the 1-based line and column (in bytes) of its first character.
struct PbrtToken {
    enum Kind : uint8_t {
        Word,      // a directive, a number or an unquoted bool: a run of characters up to a space, quote or bracket
        String,    // a quoted string; `text` holds it with its escapes resolved, without the quotes
        LBracket,  // [
        RBracket,  // ]
    };
    Kind kind;
    std::string text;
    int line, col;
};

// The tokens of `text` (a file's content). '#' starts a comment to the end of the line. Throws SceneError
// "FILE:LINE:COL: unterminated string" (from the opening quote) when a quoted string meets a newline or the end
// of the file before its closing quote, and "FILE:LINE:COL: ..." for an unknown escape sequence.
std::vector<PbrtToken> pbrt_tokenize(const std::string& text, const std::string& file);

// A Word token as a number: the whole token must read as a finite number ("1", "-2.5e3", ".5"). False otherwise.
bool pbrt_number(const std::string& word, double& out);

}  // namespace wp
