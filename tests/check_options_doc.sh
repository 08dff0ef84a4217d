#!/usr/bin/env bash
# The docs against the binary that they document: every table of a list is the binary's, byte for byte, and every
# option is documented.
#   - docs/OPTIONS.md's settings table is `wavepath settings --markdown` (the list of kernels/render_params.h);
#   - docs/CLI.md's schedule options table is `wavepath options --markdown` (host/render/render.h's list) and its
#     environment table `wavepath options --env-markdown` (host/scene/scene_build.h's WP_BVH_* knobs);
#   - docs/CLI.md names every subcommand (`wavepath NAME`) and every option of each (`--name`, as `wavepath NAME
#     --help` lists them);
#   - scenes/README.md's render table has a row for each setting and no other;
#   - scenes/scene.schema.json's render block has the list's keys, with its ranges, defaults and names
#     (`wavepath settings --json`).
# A setting or option added, removed or changed without the docs fails here, with the diff and the command that
# rewrites the table.
#   tests/check_options_doc.sh path/to/wavepath SOURCE_DIR
set -u
WP=$1
SRC=$2
fail=0
# table FILE NAME COMMAND...: the lines between FILE's markers for NAME against the command's output
table() {
  local doc=$1 name=$2
  shift 2
  local begin="<!-- $name: \`wavepath $*\` writes it; tests/check_options_doc.sh compares -->"
  local end="<!-- end of the $name -->"
  [ -f "$doc" ] || { echo "FAIL: $doc is missing"; fail=1; return; }
  local want have
  want=$("$WP" "$@") || { echo "FAIL: wavepath $* exited $?"; fail=1; return; }
  have=$(awk -v b="$begin" -v e="$end" '$0 == e { on = 0 } on { print } $0 == b { on = 1; seen = 1 } END { exit !seen }' "$doc") \
    || { echo "FAIL: $doc has no line '$begin'"; fail=1; return; }
  if [ "$have" != "$want" ]; then
    echo "FAIL: $doc's $name differs from the binary's; < the docs, > the binary:"
    diff <(printf '%s\n' "$have") <(printf '%s\n' "$want")
    echo "rewrite it from: $WP $*"
    fail=1
    return
  fi
  echo "ok: $doc's $name is the binary's ($(printf '%s\n' "$want" | tail -n +3 | wc -l) rows)"
}
table "$SRC/docs/OPTIONS.md" "settings table" settings --markdown
table "$SRC/docs/CLI.md" "schedule options table" options --markdown
table "$SRC/docs/CLI.md" "environment table" options --env-markdown

# every subcommand and every option of each, as its --help lists them, named in docs/CLI.md
subs=$("$WP" --help | awk '/^Subcommands:/ { on = 1; next } on && NF { print $1 }')
[ -n "$subs" ] || { echo "FAIL: wavepath --help lists no subcommands"; fail=1; }
missing=""
for s in $subs; do
  grep -q "wavepath $s" "$SRC/docs/CLI.md" || missing="$missing 'wavepath $s'"
  for o in $("$WP" "$s" --help | grep -E '^  +-' | sed -E 's/  .*//; s/^ +//' | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u); do
    [ "$o" = --help ] && continue
    grep -q -- "\`$o" "$SRC/docs/CLI.md" || missing="$missing $s:$o"
  done
done
if [ -n "$missing" ]; then
  echo "FAIL: docs/CLI.md does not name:$missing"
  fail=1
else
  echo "ok: docs/CLI.md names every subcommand ($(echo $subs)) and every option of each"
fi

# scenes/README.md's render table and the schema's render block against the list
"$WP" settings --json > "${TMPDIR:-/tmp}/wp-settings-$$.json" || { echo "FAIL: wavepath settings --json"; exit 1; }
python3 - "$SRC" "${TMPDIR:-/tmp}/wp-settings-$$.json" <<'PY' || fail=1
import json, re, sys
src, listing = sys.argv[1], sys.argv[2]
settings = json.load(open(listing))
names = [s["name"] for s in settings]
bad = []
# scenes/README.md: the rows of the table under "### `render`"
text = open(src + "/scenes/README.md").read()
block = text.split("### `render`", 1)[1].split("\n### ", 1)[0]
rows = [l for l in block.splitlines() if l.startswith("| `")]
keys = [k for l in rows for k in re.findall(r"`([a-z_]+)`", l.split("|")[1])]
if sorted(keys) != sorted(names):
    bad.append("scenes/README.md's render table has %s, the list %s" % (sorted(keys), sorted(names)))
# scenes/scene.schema.json's render block
props = json.load(open(src + "/scenes/scene.schema.json"))["properties"]["render"]["properties"]
if sorted(props) != sorted(names):
    bad.append("scenes/scene.schema.json's render keys %s are not the list's %s" % (sorted(props), sorted(names)))
for s in settings:
    p, n, k = props.get(s["name"], {}), s["name"], s["kind"]
    want = {}
    if k == "whole":
        want = {"type": "integer", "minimum": s["minimum"], "maximum": s["maximum"], "default": s["default"]}
    elif k == "real":
        want = {"type": "number", "minimum": s["minimum"], "maximum": s["maximum"], "default": s["default"]}
    elif k == "flag":
        want = {"type": "boolean", "default": s["default"]}
    elif k == "choice":
        want = {"enum": s["values"], "default": s["default"]}
    elif k == "crop":
        want = {"type": "array", "minItems": 4, "maxItems": 4}
        if p.get("items", {}).get("maximum") != s["maximum"] or p.get("items", {}).get("minimum") != s["minimum"]:
            bad.append("schema render.%s: items' range is not %s to %s" % (n, s["minimum"], s["maximum"]))
    elif k == "filter":
        obj = [o for o in p.get("oneOf", []) if o.get("type") == "object"]
        if not obj or obj[0]["properties"]["radius"].get("maximum") != s["maximum"]:
            bad.append("schema render.%s: radius maximum is not %s" % (n, s["maximum"]))
    for key, v in want.items():
        if p.get(key) != v:
            bad.append("schema render.%s: %s is %r, the list's %r" % (n, key, p.get(key), v))
for b in bad:
    print("FAIL: " + b)
if not bad:
    print("ok: scenes/README.md's render table and the schema's render block are the list's %d settings" % len(names))
sys.exit(1 if bad else 0)
PY
rm -f "${TMPDIR:-/tmp}/wp-settings-$$.json"
exit $fail
