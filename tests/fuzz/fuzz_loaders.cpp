// libFuzzer target over the scene and mesh loaders. The first input byte picks the loader, the rest is the
// file's content, written to a temporary file with the loader's extension:
//   0 native / Tungsten JSON scene, 1 OBJ, 2 PLY, 3 glTF (.gltf), 4 glTF binary (.glb), 5 Tungsten .wo3,
//   6 pbrt-v4 (.pbrt, through the format dispatch; tests/fuzz/fuzz_pbrt_tokenizer.cpp fuzzes its tokenizer).
// Expected failures are SceneError and MeshError (a clear message); anything else — a crash, a sanitizer
// report, another exception, a hang — is a bug. Build: -DWAVEPATH_FUZZ=ON with clang (scripts/ci_sanitize.sh).
#include <unistd.h>
#include <cstdint>
#include <cstdio>
#include <string>
#include "host/scene/mesh_obj.h"
#include "host/scene/mesh_ply.h"
#include "host/scene/scene_gltf.h"
#include "host/scene/scene_json.h"
#include "host/scene/scene_tungsten.h"

using namespace wp;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < 1) return 0;
    static const char* ext[] = {".json", ".obj", ".ply", ".gltf", ".glb", ".wo3", ".pbrt"};
    int kind = data[0] % 7;
    static const std::string dir = [] {
        char tmpl[] = "/tmp/wp-fuzz-XXXXXX";
        const char* d = mkdtemp(tmpl);
        return std::string(d ? d : "/tmp");
    }();
    std::string path = dir + "/input" + ext[kind];
    FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) return 0;
    std::fwrite(data + 1, 1, size - 1, f);
    std::fclose(f);
    try {
        switch (kind) {
            case 0:
            case 6: load_scene_json(path); break;
            case 1: load_obj(path, mat4(1.0f), true); break;
            case 2: load_ply(path, mat4(1.0f), true); break;
            case 3:
            case 4: load_gltf_scene(path); break;
            case 5: load_wo3(path, mat4(1.0f)); break;
        }
    } catch (const SceneError&) {
    } catch (const MeshError&) {}
    return 0;
}
