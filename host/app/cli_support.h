// What the command line checks and names before any work starts: its exit codes, the outputs of a call (every
// path checked for a known extension and a folder it can write in, by creating and removing a probe file), the
// output patterns of a batch (`-o 'out/{name}.exr'`, `--output-dir`), and the version text.
#pragma once
#include <stdexcept>
#include <string>
#include <vector>
#include "host/render/render.h"
#include "host/scene/scene_json.h"

namespace wp {

// The exit codes of `wavepath` (docs/CLI.md, "Exit codes"); 128 + signal when interrupted (130 SIGINT, 143 SIGTERM).
enum ExitCode : int {
    kExitOk = 0,
    kExitInput = 1,   // a scene or input file is missing, unreadable or invalid
    kExitUsage = 2,   // the command line is wrong, or an output cannot be written
    kExitRender = 3,  // the render failed: no GPU when one was asked for, a GPU error, out of memory
};

// A usage error found after the command line is read (a --crop outside the scene's image): exit 2.
struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// The image formats `render -o` writes, by extension: {".exr", ".png", ".pfm"}.
const std::vector<std::string>& image_extensions();

// The lower-case extension of a path's file name with its dot (".exr"), "" when it has none.
std::string extension_of(const std::string& path);

// "" when `path` can be written now: its extension is one of `exts`, it is not a folder, its folder exists and is a
// folder, and a probe file can be created and removed in it (an existing file must be writable). Otherwise the
// problem, naming the path: "output '/nope/x.exr': folder '/nope' does not exist". `what` names the output
// ("output", "--json", "--plot").
std::string output_problem(const std::string& path, const std::vector<std::string>& exts, const std::string& what);

// A scene's name for its outputs: the file name without folders and extension ("scenes/dragon.json" -> "dragon").
std::string scene_name(const std::string& scene_path);

// The output of one scene: `pattern` (from -o; "" is "{name}.exr") with {name} replaced by scene_name and {dir} by
// the name of the scene's folder, under `output_dir` when one is given and the pattern is relative. Defaults land in
// the current folder, never beside the scene.
std::string output_for(const std::string& pattern, const std::string& output_dir, const std::string& scene_path);

// The image a scene file names for itself, for the default output: pbrt-v4's `Film ... "string filename" "x.exr"`
// (before WorldBegin, in the file itself) and Tungsten's `renderer.hdr_output_file`, else `renderer.output_file`.
// Returns the name as written ("" when the scene names none, or the file cannot be read); `directive` gets what
// named it ("Film \"filename\"", "renderer.hdr_output_file"). Tungsten files over 64 MiB are not searched.
std::string scene_output_name(const std::string& scene_path, std::string* directive = nullptr);

// "out/a.exr" with `tag` before the extension: "out/a.wavefront.exr" (--mode both writes one image per schedule).
std::string with_tag(const std::string& path, const std::string& tag);
// "out/a.exr" with its extension replaced: "out/a.compare.json".
std::string with_extension(const std::string& path, const std::string& ext);

// `--devices SPEC` against the `count` CUDA devices visible: "all" (every one) or a comma-separated list of indices
// (a repeated index: several workers on one GPU) into `out`. "" when it is good; otherwise the problem, naming the
// option and the count: "--devices: device 2 does not exist: 2 CUDA GPUs are visible (0 to 1)".
std::string parse_devices(const std::string& spec, int count, std::vector<int>& out);

// The schedule options of the list (host/render/render.h, WP_RENDER_OPTIONS) as a table: the command line's
// options (host/app/main.cpp), the warning for those that do nothing where they are given (ignored_options), the
// bench JSON's keys and values (option_applies, value) and docs/CLI.md's table (schedule_options_markdown).
struct ScheduleOption {
    const char* member;  // RenderOptions' member: the bench JSON's key ("drain_below")
    const char* kind;    // VALUE, SWITCH or OFF
    const char* flag;    // as listed: "--refill", "--push-compaction,!--select-compaction"
    unsigned scope;      // OptionScope bits
    uint64_t lo, hi;
    std::string def, help;
    uint64_t (*value)(const RenderOptions&);  // the member's value (a switch: 0 or 1)
};
const std::vector<ScheduleOption>& schedule_options();
// "--push-compaction", "--select-compaction": the flag's spellings, as typed.
std::vector<std::string> option_spellings(const ScheduleOption& o);
// Whether `o` does something in a render of this backend and schedule (the bench JSON writes its value where it
// does, else 0).
bool option_applies(const ScheduleOption& o, bool gpu, bool wavefront);
// docs/CLI.md's table of the schedule options (`wavepath options --markdown`; tests/check_options_doc.sh compares):
// option, where it does something, default, range, help.
std::string schedule_options_markdown();

// What a call runs, for the options that do nothing there: the backend, the schedules, bench's ray-cast pass.
struct OptionUse {
    bool gpu = false;
    bool wavefront = false, megakernel = false;       // the schedules that run
    bool raycast = false;                             // bench: the ray-cast-only pass (it has wavefront queues)
    bool reference = false, auto_reference = false;   // bench: --reference given, and it is "auto"
    bool spp_list = false;                            // bench: --spp-list given
    std::string wavefront_hint = "--mode wavefront";  // the option that runs the wavefront ("--modes ..." in bench)
};
// An option given that does nothing where it is given, and why.
struct IgnoredOption {
    std::string option, why;
};
// Of the options `given` (as typed: "--capacity", "--select-compaction", ...), those that do nothing in `use`, in
// the order given.
std::vector<IgnoredOption> ignored_options(const std::vector<std::string>& given, const OptionUse& use);
// The warning for them, counted, the reasons grouped: "warning: 3 options do nothing in this render (cpu
// megakernel) and are ignored: --capacity, --sort-materials, --drain\n  --capacity, ...: wavefront only; the cpu
// runs the megakernel here (--mode wavefront runs the wavefront)\n"; "" for none. `what`: "this render (cpu megakernel)".
std::string ignored_options_text(const std::vector<IgnoredOption>& ignored, const std::string& what);

// The host's memory: total and available (/proc/meminfo's MemTotal and MemAvailable, else sysconf's physical and
// available pages). With WP_HOST_MEMORY_LIMIT=BYTES (a K, M or G suffix: powers of 1024) set, that limit is the
// total and the limit less this process's resident memory is available (limited = true): for tests, and to keep a
// render within a share of a machine.
// Under ulimit -v (RLIMIT_AS), total and available are cut to the limit and the address space it leaves (an
// allocation past it fails whatever the host has free), and address_limit is the limit (0: none).
struct HostMemory {
    uint64_t total = 0, available = 0;
    bool limited = false;
    uint64_t address_limit = 0;
};
HostMemory host_memory();

// The scene loads' options from the environment, read once by the command layer: the tree's experiment knobs
// (WP_BVH_SPLITS, WP_BVH_BINS, WP_BVH_MAX_LEAF, WP_BVH_SPLIT_ALPHA, WP_BVH_SPLIT_GROWTH, WP_BVH_OPTIMIZE,
// WP_BVH_SPLIT_MIN_REFS, WP_BVH_SPLIT_BETA, WP_BVH_SPLIT_GAMMA, WP_BVH_SPLIT_BINS, WP_BVH_THREADS;
// SceneBuildOptions says what each sets) and the build's memory check against
// host_memory() (WP_HOST_MEMORY_LIMIT honoured).
SceneBuildOptions build_options_from_env();
// The WP_BVH_* variables set (host/scene/scene_build.h, WP_BVH_KNOBS) checked: "" when each is a number of its
// range, else the first that is not, naming the variable and the value ("WP_BVH_BINS: 'abc' is not a whole number (2 to
// 256)"; the command line's usage error, exit 2).
std::string bvh_knobs_problem();
// The knobs o sets, as the environment gave them: "WP_BVH_BINS=8, WP_BVH_MAX_LEAF=2" ("" for none).
std::string bvh_knobs_text(const SceneBuildOptions& o);
// docs/CLI.md's table of the knobs (`wavepath options --env-markdown`; tests/check_options_doc.sh compares).
std::string bvh_knobs_markdown();
LoadOptions load_options_from_env();
// (process_resident_bytes, process_peak_bytes: host/scene/scene_build.h, where the tree's build measures itself)
// "1.5 GiB", "320.0 MiB", "12.0 KiB"
std::string bytes_text(uint64_t bytes);

// `wavepath --version`: the version, the git commit, the CUDA architectures of the build and the GPU found now.
std::string version_text();
// "wavepath 0.2.0 (abc1234)": the version and commit, as the EXR metadata records them.
std::string version_short();

}  // namespace wp
