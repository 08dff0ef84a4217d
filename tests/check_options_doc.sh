#!/usr/bin/env bash
# docs/OPTIONS.md's settings table against the list it documents (kernels/render_params.h): the lines between the
# table's two markers must be `wavepath settings --markdown`, byte for byte; and the render block of
# scenes/scene.schema.json must have the list's keys. A setting added, removed or changed in
# the list without the docs fails here, with the diff and the command that rewrites the table.
#   tests/check_options_doc.sh path/to/wavepath SOURCE_DIR
set -u
WP=$1
DOC=$2/docs/OPTIONS.md
begin='<!-- settings table: `wavepath settings --markdown` writes it; tests/check_options_doc.sh compares -->'
end='<!-- end of the settings table -->'
[ -f "$DOC" ] || { echo "FAIL: $DOC is missing"; exit 1; }
want=$("$WP" settings --markdown) || { echo "FAIL: wavepath settings --markdown exited $?"; exit 1; }
have=$(awk -v b="$begin" -v e="$end" '$0 == e { on = 0 } on { print } $0 == b { on = 1; seen = 1 } END { exit !seen }' "$DOC") \
  || { echo "FAIL: $DOC has no line '$begin'"; exit 1; }
if [ "$have" != "$want" ]; then
  echo "FAIL: $DOC's settings table differs from the list (kernels/render_params.h); < the docs, > the list:"
  diff <(printf '%s\n' "$have") <(printf '%s\n' "$want")
  echo "rewrite it from: $WP settings --markdown"
  exit 1
fi
# scenes/scene.schema.json's render block: the same keys (the schema is written by hand, its ranges the list's)
names=$(printf '%s\n' "$want" | tail -n +3 | cut -d'`' -f2 | sort | tr '\n' ' ')
schema=$(python3 -c 'import json, sys; print(" ".join(sorted(json.load(open(sys.argv[1]))["properties"]["render"]["properties"])))' \
  "$2/scenes/scene.schema.json") || { echo "FAIL: cannot read scenes/scene.schema.json"; exit 1; }
[ "$names" = "$schema " ] || { echo "FAIL: scenes/scene.schema.json's render keys ($schema) are not the list's ($names)"; exit 1; }
echo "ok: $DOC's table is the list's $(printf '%s\n' "$want" | tail -n +3 | wc -l) settings, the schema's render block their keys"
