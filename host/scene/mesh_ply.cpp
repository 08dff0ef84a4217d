// PLY reader: header parser, ASCII and binary little-endian bodies, conversion to the ObjMesh triangle soup.
//
// Hostile input is expected: every count is checked against the bytes left in the file before anything is
// allocated or looped over, every read is bounds-checked, integers are assembled from bytes (no type punning,
// no unaligned loads) and parsed without signed overflow.
#include "host/scene/mesh_ply.h"
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>

namespace wp {
namespace {

// Largest meshes accepted: vertex indices are kept in 32 bits; the triangle cap bounds the output (~110 bytes
// per triangle) for files whose polygons fan out into many triangles.
constexpr uint64_t kMaxVertices = (1ull << 31) - 1;
constexpr uint64_t kMaxTriangles = 1ull << 28;

enum class PType : uint8_t { I8, U8, I16, U16, I32, U32, F32, F64 };

bool parse_type(const std::string& s, PType& t) {
    static const struct {
        const char* a;
        const char* b;
        PType t;
    } table[] = {{"char", "int8", PType::I8},      {"uchar", "uint8", PType::U8},    {"short", "int16", PType::I16},
                 {"ushort", "uint16", PType::U16}, {"int", "int32", PType::I32},     {"uint", "uint32", PType::U32},
                 {"float", "float32", PType::F32}, {"double", "float64", PType::F64}};
    for (const auto& e : table)
        if (s == e.a || s == e.b) {
            t = e.t;
            return true;
        }
    return false;
}
size_t type_size(PType t) {
    switch (t) {
        case PType::I8:
        case PType::U8: return 1;
        case PType::I16:
        case PType::U16: return 2;
        case PType::I32:
        case PType::U32:
        case PType::F32: return 4;
        case PType::F64: return 8;
    }
    return 1;
}
bool is_int(PType t) { return t != PType::F32 && t != PType::F64; }
void int_range(PType t, int64_t& lo, int64_t& hi) {
    switch (t) {
        case PType::I8:
            lo = -128;
            hi = 127;
            break;
        case PType::U8:
            lo = 0;
            hi = 255;
            break;
        case PType::I16:
            lo = -32768;
            hi = 32767;
            break;
        case PType::U16:
            lo = 0;
            hi = 65535;
            break;
        case PType::I32:
            lo = -2147483648ll;
            hi = 2147483647ll;
            break;
        case PType::U32:
            lo = 0;
            hi = 4294967295ll;
            break;
        default: lo = hi = 0; break;
    }
}

// What a property is used for.
enum Dest : uint8_t { SKIP, PX, PY, PZ, NX, NY, NZ, TU, TV, INDICES };

struct Property {
    std::string name;
    PType type = PType::F32;
    bool list = false;
    PType count_type = PType::U8;
    Dest dest = SKIP;
};
struct Element {
    std::string name;
    uint64_t count = 0;
    std::vector<Property> props;
    size_t header_line = 0;
};

// Saturating arithmetic for the size bounds.
uint64_t sat_add(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }
uint64_t sat_mul(uint64_t a, uint64_t b) { return b != 0 && a > UINT64_MAX / b ? UINT64_MAX : a * b; }

std::string num(uint64_t v) { return std::to_string(v); }

struct Reader {
    const std::string& path;
    const char* data;  // whole file, followed by a '\0'
    size_t size;
    size_t body = 0;  // first byte after the header
    bool ascii = false;
    std::vector<Element> elems;

    [[noreturn]] void fail(const std::string& what) const { throw MeshError(path + ": " + what); }

    // ---- header ----
    void parse_header() {
        size_t at = 0, line_no = 0;
        bool have_format = false, ended = false;
        auto next_line = [&](std::string& line) -> bool {
            if (at >= size) return false;
            const void* nl = std::memchr(data + at, '\n', size - at);
            if (!nl) return false;  // a header line must end; the body follows end_header's newline
            size_t e = size_t(static_cast<const char*>(nl) - data);
            line.assign(data + at, e - at);
            if (!line.empty() && line.back() == '\r') line.pop_back();
            at = e + 1;
            ++line_no;
            return true;
        };
        auto split = [](const std::string& s) {
            std::vector<std::string> w;
            size_t i = 0;
            while (i < s.size()) {
                while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
                size_t j = i;
                while (j < s.size() && s[j] != ' ' && s[j] != '\t') ++j;
                if (j > i) w.emplace_back(s, i, j - i);
                i = j;
            }
            return w;
        };
        std::string line;
        if (size < 3 || std::memcmp(data, "ply", 3) != 0 || !next_line(line) || line != "ply")
            fail("not a PLY file (no 'ply' magic line)");
        while (next_line(line)) {
            std::vector<std::string> w = split(line);
            std::string where = "header line " + num(line_no) + ": ";
            if (w.empty()) continue;
            const std::string& k = w[0];
            if (k == "comment" || k == "obj_info") continue;
            if (k == "end_header") {
                if (w.size() != 1) fail(where + "text after end_header");
                ended = true;
                break;
            }
            if (k == "format") {
                if (have_format) fail(where + "second format line");
                if (w.size() != 3) fail(where + "expected 'format ascii|binary_little_endian 1.0'");
                if (w[1] == "binary_big_endian")
                    fail(where + "unsupported format binary_big_endian (only ascii and binary_little_endian)");
                if (w[1] == "ascii")
                    ascii = true;
                else if (w[1] != "binary_little_endian")
                    fail(where + "unsupported format '" + w[1] + "'");
                if (w[2] != "1.0" && w[2] != "1") fail(where + "unsupported version '" + w[2] + "' (expected 1.0)");
                have_format = true;
            } else if (k == "element") {
                if (w.size() != 3) fail(where + "expected 'element NAME COUNT'");
                Element e;
                e.name = w[1];
                e.header_line = line_no;
                const std::string& c = w[2];
                bool ok = !c.empty() && c.size() <= 19;
                for (char ch : c) ok = ok && ch >= '0' && ch <= '9';
                if (!ok) fail(where + "bad count '" + c + "' for element '" + e.name + "'");
                e.count = std::stoull(c);
                for (const Element& o : elems)
                    if (o.name == e.name && (e.name == "vertex" || e.name == "face"))
                        fail(where + "second element '" + e.name + "'");
                elems.push_back(e);
            } else if (k == "property") {
                if (elems.empty()) fail(where + "property before any element");
                Property p;
                if (w.size() >= 2 && w[1] == "list") {
                    if (w.size() != 5) fail(where + "expected 'property list COUNTTYPE ITEMTYPE NAME'");
                    if (!parse_type(w[2], p.count_type)) fail(where + "unknown property type '" + w[2] + "'");
                    if (!is_int(p.count_type)) fail(where + "list count type '" + w[2] + "' is not an integer type");
                    if (!parse_type(w[3], p.type)) fail(where + "unknown property type '" + w[3] + "'");
                    p.list = true;
                    p.name = w[4];
                } else {
                    if (w.size() != 3) fail(where + "expected 'property TYPE NAME'");
                    if (!parse_type(w[1], p.type)) fail(where + "unknown property type '" + w[1] + "'");
                    p.name = w[2];
                }
                for (const Property& o : elems.back().props)
                    if (o.name == p.name)
                        fail(where + "second property '" + p.name + "' in element '" + elems.back().name + "'");
                elems.back().props.push_back(p);
            } else {
                fail(where + "unknown header keyword '" + k + "'");
            }
        }
        if (!ended) fail("truncated header (no end_header line)");
        if (!have_format) fail("no format line in the header");
        body = at;
        body_line = line_no + 1;
    }

    // Assigns destinations to the vertex and face properties; checks what is required.
    void bind(Element*& vert, Element*& face) {
        vert = face = nullptr;
        for (Element& e : elems) {
            if (e.name == "vertex") vert = &e;
            if (e.name == "face") face = &e;
        }
        if (!vert) fail("no vertex element");
        if (!face || face->count == 0) fail("no faces");
        auto find = [](Element& e, const char* n) -> Property* {
            for (Property& p : e.props)
                if (p.name == n) return &p;
            return nullptr;
        };
        auto scalar = [&](Element& e, Property* p) {
            if (p && p->list) fail("element '" + e.name + "' property '" + p->name + "' is a list, expected a scalar");
            return p;
        };
        const char* xyz[3] = {"x", "y", "z"};
        for (int k = 0; k < 3; ++k) {
            Property* p = scalar(*vert, find(*vert, xyz[k]));
            if (!p) fail("vertex element has no '" + std::string(xyz[k]) + "' property");
            p->dest = Dest(PX + k);
        }
        Property* n[3] = {find(*vert, "nx"), find(*vert, "ny"), find(*vert, "nz")};
        if (n[0] && n[1] && n[2])
            for (int k = 0; k < 3; ++k) scalar(*vert, n[k])->dest = Dest(NX + k);
        const char* uvn[4][2] = {{"u", "v"}, {"s", "t"}, {"texture_u", "texture_v"}, {"texture_s", "texture_t"}};
        for (auto& c : uvn) {
            Property* u = find(*vert, c[0]);
            Property* v = find(*vert, c[1]);
            if (u && v) {
                scalar(*vert, u)->dest = TU;
                scalar(*vert, v)->dest = TV;
                break;
            }
        }
        Property* ix = find(*face, "vertex_indices");
        if (!ix) ix = find(*face, "vertex_index");
        if (!ix) fail("face element has no 'vertex_indices' (or 'vertex_index') list");
        if (!ix->list) fail("face property '" + ix->name + "' is not a list");
        if (!is_int(ix->type)) fail("face property '" + ix->name + "' has a non-integer item type");
        ix->dest = INDICES;
        if (vert->count > kMaxVertices)
            fail("too many vertices (" + num(vert->count) + ", at most " + num(kMaxVertices) + ")");
    }

    // Every element needs at least this many bytes per instance; the counts must fit in what is left.
    void check_counts() const {
        uint64_t left = size - body, need = 0;
        for (const Element& e : elems) {
            uint64_t per = 0;
            for (const Property& p : e.props)  // ASCII: one character and one separator per token, at least
                per += ascii ? 2 : (p.list ? type_size(p.count_type) : type_size(p.type));
            uint64_t n = sat_mul(e.count, per);
            if (ascii && n > 0) n -= 1;  // the last token may end the file
            if (n > left)
                fail("truncated or bad count: element '" + e.name + "' (header line " + num(e.header_line) +
                     ") claims " + num(e.count) + " items, needing at least " + num(n) + " bytes; the file has " +
                     num(left) + " after the header");
            need = sat_add(need, n);
        }
        if (need > left)
            fail("truncated or bad counts: the elements need at least " + num(need) + " bytes; the file has " +
                 num(left) + " after the header");
    }

    // ---- body: one cursor for both encodings ----
    size_t cur = 0;
    size_t body_line = 1;  // ASCII: line of the cursor in the file

    std::string where_ascii() const { return " (line " + num(body_line) + ")"; }

    // ASCII: the next whitespace-separated token, or false at the end of the file.
    bool token(const char*& b, const char*& e) {
        while (cur < size) {
            char c = data[cur];
            if (c == '\n') ++body_line;
            if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v')
                ++cur;
            else
                break;
        }
        if (cur >= size) return false;
        b = data + cur;
        while (cur < size) {
            char c = data[cur];
            if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v' || c == '\0') break;
            ++cur;
        }
        if (b == data + cur) fail("NUL byte in ASCII data" + where_ascii());
        e = data + cur;
        return true;
    }

    // Reads one value; ctx(arg) names the item for messages ("vertex 3, property 'x'"), built only on failure.
    int64_t read_int(PType t, const std::string& (*ctx)(const void*), const void* arg) {
        if (ascii) {
            const char *b, *e;
            if (!token(b, e)) fail(ctx(arg) + ": truncated: unexpected end of file");
            const char* s = b;
            bool neg = false;
            if (*s == '+' || *s == '-') neg = *s++ == '-';
            if (s == e) fail(ctx(arg) + ": '" + std::string(b, e) + "' is not an integer" + where_ascii());
            uint64_t v = 0;
            for (; s < e; ++s) {
                if (*s < '0' || *s > '9')
                    fail(ctx(arg) + ": '" + std::string(b, e) + "' is not an integer" + where_ascii());
                if (v > (1ull << 40))
                    fail(ctx(arg) + ": integer '" + std::string(b, e) + "' out of range" + where_ascii());
                v = v * 10 + uint64_t(*s - '0');
            }
            int64_t lo, hi;
            int_range(t, lo, hi);
            int64_t r = neg ? -int64_t(v) : int64_t(v);  // v < 2^41: no overflow
            if (r < lo || r > hi)
                fail(ctx(arg) + ": " + std::string(b, e) + " out of range for its type" + where_ascii());
            return r;
        }
        size_t n = type_size(t);
        if (size - cur < n) fail(ctx(arg) + ": truncated (the file ends at byte " + num(size) + ")");
        const unsigned char* p = reinterpret_cast<const unsigned char*>(data + cur);
        cur += n;
        switch (t) {
            case PType::I8: return int8_t(p[0]);
            case PType::U8: return p[0];
            case PType::I16: return int16_t(uint16_t(p[0] | (p[1] << 8)));
            case PType::U16: return uint16_t(p[0] | (p[1] << 8));
            case PType::I32:
                return int32_t(uint32_t(p[0]) | (uint32_t(p[1]) << 8) | (uint32_t(p[2]) << 16) |
                               (uint32_t(p[3]) << 24));
            case PType::U32:
                return uint32_t(p[0]) | (uint32_t(p[1]) << 8) | (uint32_t(p[2]) << 16) | (uint32_t(p[3]) << 24);
            default: break;
        }
        fail(ctx(arg) + ": internal: integer read of a float type");
    }

    double read_num(PType t, const std::string& (*ctx)(const void*), const void* arg) {
        if (is_int(t)) return double(read_int(t, ctx, arg));
        if (ascii) {
            const char *b, *e;
            if (!token(b, e)) fail(ctx(arg) + ": truncated: unexpected end of file");
            const char* s = b;
            if (*s == '+' && s + 1 < e) ++s;
            double v = 0;
            auto r = std::from_chars(s, e, v);
            if (r.ec == std::errc::result_out_of_range) {  // overflow or underflow: keep the sign / zero
                // a very negative exponent underflows to zero, anything else overflows
                const char* ex = s;
                while (ex < e && *ex != 'e' && *ex != 'E') ++ex;
                double mag = ex + 1 < e && ex[1] == '-' ? 0.0 : HUGE_VAL;
                return *s == '-' ? -mag : mag;
            }
            if (r.ec != std::errc() || r.ptr != e)
                fail(ctx(arg) + ": '" + std::string(b, e) + "' is not a number" + where_ascii());
            return v;
        }
        size_t n = type_size(t);
        if (size - cur < n) fail(ctx(arg) + ": truncated (the file ends at byte " + num(size) + ")");
        const unsigned char* p = reinterpret_cast<const unsigned char*>(data + cur);
        cur += n;
        if (t == PType::F32) {
            uint32_t u = uint32_t(p[0]) | (uint32_t(p[1]) << 8) | (uint32_t(p[2]) << 16) | (uint32_t(p[3]) << 24);
            float f;
            std::memcpy(&f, &u, 4);
            return f;
        }
        uint64_t u = 0;
        for (int k = 7; k >= 0; --k) u = (u << 8) | p[k];
        double d;
        std::memcpy(&d, &u, 8);
        return d;
    }

    // Skips `n` items of type t (a list's items, after its count was checked).
    void skip(PType t, uint64_t n, const std::string& (*ctx)(const void*), const void* arg) {
        if (ascii) {
            const char *b, *e;
            for (uint64_t i = 0; i < n; ++i)
                if (!token(b, e)) fail(ctx(arg) + ": truncated: unexpected end of file");
            return;
        }
        uint64_t bytes = sat_mul(n, type_size(t));
        if (bytes > size - cur) fail(ctx(arg) + ": truncated (the file ends at byte " + num(size) + ")");
        cur += size_t(bytes);
    }
};

// Message context for one item: built only when an error is raised.
struct Ctx {
    const Element* e;
    uint64_t i;
    const Property* p;
    mutable std::string s;
};
const std::string& ctx_text(const void* a) {
    const Ctx* c = static_cast<const Ctx*>(a);
    c->s = c->e->name + " " + std::to_string(c->i) + ", property '" + c->p->name + "'";
    return c->s;
}

// double to float without the undefined behaviour of an out-of-range conversion
float to_float(double d) {
    if (std::isnan(d)) return std::numeric_limits<float>::quiet_NaN();
    if (d > double(std::numeric_limits<float>::max())) return std::numeric_limits<float>::infinity();
    if (d < -double(std::numeric_limits<float>::max())) return -std::numeric_limits<float>::infinity();
    return float(d);
}
std::string fmt(double d) {
    char b[32];
    std::snprintf(b, sizeof b, "%.9g", d);
    return b;
}
bool finite_vec(vec3 v) { return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z); }

std::vector<char> read_file(const std::string& path) {
    if (is_folder(path)) throw MeshError(path + ": is a folder, not a mesh file");
    std::ifstream f(path, std::ios::binary);
    if (!f) throw MeshError(path + ": cannot open '" + path + "'");
    f.seekg(0, std::ios::end);
    std::streamoff n = f.tellg();
    if (n < 0) throw MeshError(path + ": cannot read");
    f.seekg(0, std::ios::beg);
    std::vector<char> buf(size_t(n) + 1);
    if (n > 0 && !f.read(buf.data(), n)) throw MeshError(path + ": cannot read");
    buf[size_t(n)] = '\0';
    return buf;
}

// What the body holds: the vertices as read (positions, and normals and uv where the header has them) and the
// triangles (corner vertex indices, corners already in output order), with the faces of fewer than 3 vertices.
struct PlyBody {
    std::vector<vec3> vpos, vnrm;
    std::vector<vec2> vuv;
    std::vector<uint32_t> tri;
    uint64_t short_faces = 0, first_short = 0;
};

// The body read element by element: the vertex and face elements kept, the others checked and skipped.
void read_body(Reader& r, const Element* vert, const Element* face, bool mirror, bool has_n, bool has_t,
               PlyBody& body) {
    auto fail = [&](const std::string& what) { r.fail(what); };
    const size_t nv = size_t(vert->count);
    std::vector<vec3>& vpos = body.vpos;
    std::vector<vec3>& vnrm = body.vnrm;
    std::vector<vec2>& vuv = body.vuv;
    std::vector<uint32_t>& tri = body.tri;
    uint64_t& short_faces = body.short_faces;
    uint64_t& first_short = body.first_short;
    vpos.resize(nv), vnrm.resize(has_n ? nv : 0);
    vuv.resize(has_t ? nv : 0);
    tri.reserve(size_t(std::min<uint64_t>(face->count, 1u << 22)) * 3);  // grows beyond: counts are not trusted
    std::vector<uint32_t> poly;

    r.cur = r.body;
    for (const Element& e : r.elems) {
        if (e.props.empty()) continue;  // no data at all, whatever the count
        const bool is_v = &e == vert, is_f = &e == face;
        Ctx ctx{&e, 0, nullptr, {}};
        for (uint64_t i = 0; i < e.count; ++i) {
            ctx.i = i;
            double val[10] = {};
            for (const Property& p : e.props) {
                ctx.p = &p;
                if (p.list) {
                    int64_t n = r.read_int(p.count_type, ctx_text, &ctx);
                    if (n < 0) fail(ctx_text(&ctx) + ": negative list count " + std::to_string(n));
                    uint64_t un = uint64_t(n);
                    // the items must fit in what is left of the file before any of them is stored
                    uint64_t need = r.ascii ? sat_mul(un, 2) - (un ? 1 : 0) : sat_mul(un, type_size(p.type));
                    if (need > r.size - r.cur)
                        fail(ctx_text(&ctx) + ": list of " + std::to_string(n) +
                             " items runs past the end of the file (truncated or a bad count)");
                    if (!(is_f && p.dest == INDICES)) {
                        r.skip(p.type, un, ctx_text, &ctx);
                        continue;
                    }
                    poly.clear();
                    for (uint64_t k = 0; k < un; ++k) {
                        int64_t ix = r.read_int(p.type, ctx_text, &ctx);
                        if (ix < 0 || uint64_t(ix) >= nv)
                            fail("face " + std::to_string(i) + ": vertex index " + std::to_string(ix) +
                                 " out of range (" + std::to_string(nv) + " vertices)");
                        poly.push_back(uint32_t(ix));
                    }
                    if (un < 3) {
                        if (short_faces++ == 0) first_short = i;
                        continue;
                    }
                    if (tri.size() / 3 + (un - 2) > kMaxTriangles)
                        fail("face " + std::to_string(i) + ": more than " + std::to_string(kMaxTriangles) +
                             " triangles");
                    for (uint64_t k = 1; k + 1 < un; ++k) {  // fan
                        tri.push_back(poly[0]);
                        tri.push_back(poly[mirror ? k + 1 : k]);
                        tri.push_back(poly[mirror ? k : k + 1]);
                    }
                } else if (is_v && p.dest != SKIP) {
                    val[p.dest] = r.read_num(p.type, ctx_text, &ctx);
                } else if (r.ascii) {
                    r.read_num(p.type, ctx_text, &ctx);  // validates the token
                } else {
                    r.skip(p.type, 1, ctx_text, &ctx);
                }
            }
            if (is_v) {
                vec3 q(to_float(val[PX]), to_float(val[PY]), to_float(val[PZ]));
                if (!finite_vec(q))
                    fail("vertex " + std::to_string(i) + ": position (" + fmt(val[PX]) + ", " + fmt(val[PY]) + ", " +
                         fmt(val[PZ]) + ") is not finite (as 32-bit floats)");
                vpos[i] = q;
                if (has_n) vnrm[i] = vec3(to_float(val[NX]), to_float(val[NY]), to_float(val[NZ]));
                if (has_t) vuv[i] = vec2(to_float(val[TU]), to_float(val[TV]));
            }
        }
    }
}

// The triangles placed: every vertex transformed by M (normals by N) once and checked where used; a triangle keeps
// its normals and uv only where all three corners' are usable.
void place_triangles(const Reader& r, const PlyBody& body, size_t nv, const mat4& M, const mat3& N, bool has_n,
                     bool has_t, ObjMesh& mesh) {
    auto fail = [&](const std::string& what) { r.fail(what); };
    const std::vector<vec3>& vpos = body.vpos;
    const std::vector<vec3>& vnrm = body.vnrm;
    const std::vector<vec2>& vuv = body.vuv;
    const std::vector<uint32_t>& tri = body.tri;
    const size_t T = tri.size() / 3;
    // vertices transformed once; checked where used
    std::vector<vec3> wpos(nv);
    std::vector<uint8_t> wok(nv);
    for (size_t i = 0; i < nv; ++i) {
        wpos[i] = vec3(M * vec4(vpos[i], 1.0f));
        wok[i] = finite_vec(wpos[i]);
    }
    std::vector<vec3> wn;
    std::vector<uint8_t> nok;
    if (has_n) {
        wn.resize(nv);
        nok.resize(nv);
        for (size_t i = 0; i < nv; ++i) {
            vec3 w = N * vnrm[i];
            float l = glm::length(w);
            nok[i] = l > 0.0f && std::isfinite(l);  // unusable normal: its triangles fall back to the face
            wn[i] = nok[i] ? w / l : vec3(0.0f);
        }
    }
    mesh.pos.resize(3 * T);
    mesh.normal.assign(3 * T, vec3(0.0f));
    mesh.uv.assign(3 * T, vec2(0.0f));
    mesh.has_normals.assign(T, 0);
    mesh.has_uv.assign(T, 0);
    mesh.material.assign(T, -1);
    for (size_t t = 0; t < T; ++t) {
        bool hn = has_n, ht = has_t;
        for (int k = 0; k < 3; ++k) {
            uint32_t v = tri[3 * t + k];
            if (!wok[v]) fail("vertex " + std::to_string(v) + " is not finite after the transform");
            mesh.pos[3 * t + k] = wpos[v];
            if (has_n) hn = hn && nok[v];
            if (has_t) ht = ht && std::isfinite(vuv[v].x) && std::isfinite(vuv[v].y);
        }
        if (hn)
            for (int k = 0; k < 3; ++k) mesh.normal[3 * t + k] = wn[tri[3 * t + k]];
        if (ht)
            for (int k = 0; k < 3; ++k) {
                vec2 q = vuv[tri[3 * t + k]];
                mesh.uv[3 * t + k] = vec2(q.x, 1.0f - q.y);  // PLY v runs up (as OBJ's); ours down (glTF)
            }
        mesh.has_normals[t] = hn;
        mesh.has_uv[t] = ht;
    }
}

}  // namespace

ObjMesh load_ply(const std::string& path, const mat4& M, bool smooth) {
    std::vector<char> buf = read_file(path);
    Reader r{path, buf.data(), buf.size() - 1, 0, false, {}};
    auto fail = [&](const std::string& what) { r.fail(what); };

    mat3 A(M);
    float det = glm::determinant(A);
    if (!(std::isfinite(det) && det != 0.0f)) fail("the transform is singular");
    mat3 N = glm::transpose(glm::inverse(A));
    bool mirror = det < 0.0f;

    r.parse_header();
    r.check_counts();
    Element *vert, *face;
    r.bind(vert, face);

    const size_t nv = size_t(vert->count);
    bool has_n = false, has_t = false;
    for (const Property& p : vert->props) {
        has_n = has_n || p.dest == NX;
        has_t = has_t || p.dest == TU;
    }
    PlyBody body;
    read_body(r, vert, face, mirror, has_n, has_t, body);
    const uint64_t short_faces = body.short_faces, first_short = body.first_short;
    const std::vector<uint32_t>& tri = body.tri;

    ObjMesh mesh;
    if (short_faces)
        mesh.warnings.push_back(path + ": " + std::to_string(short_faces) +
                                " face(s) with fewer than 3 vertices skipped (first: face " +
                                std::to_string(first_short) + ")");
    const size_t T = tri.size() / 3;
    if (T == 0) fail("no triangles (" + std::to_string(face->count) + " faces, none with 3 or more vertices)");

    place_triangles(r, body, nv, M, N, has_n, has_t, mesh);

    if (smooth) smooth_vertex_normals(mesh, tri, nv);
    return mesh;
}

}  // namespace wp
