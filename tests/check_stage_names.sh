#!/usr/bin/env bash
# One name per kernel: every stage the launchers time (L.launch / L.region in kernels/*.cu) is in kStageNames
# (kernels/kernel_attr.h) and the other way round, and every name maps (profiling/stages.sh, which
# profiling/ncu_stage.sh uses) to kernels whose symbols are in the GPU library. Usage: check_stage_names.sh SRC LIB
set -euo pipefail
src=$1 lib=$2
. "$src/profiling/stages.sh"
names=$(sed -n '/kStageNames\[\] = {/,/};/p' "$src/kernels/kernel_attr.h" | grep -o '"[a-z_]*"' | tr -d '"' | sort -u)
# (the material families' rows, "shade_" and a family's name, are launched by name from kernels/features.h's list)
timed=$( (grep -ohE 'L\.(launch|region)\("[a-z_]+"' "$src"/kernels/*.cu | grep -o '"[a-z_]*"' | tr -d '"';
          sed -n '/define WP_SHADE_FAMILIES/,/^$/p' "$src/kernels/features.h" | grep -oE 'X\([A-Za-z]+, "[a-z_]+"' |
            grep -oE '"[a-z_]+"' | tr -d '"' | sed 's/^/shade_/') | sort -u)
[ -n "$names" ] && [ -n "$timed" ] || { echo "no names found"; exit 1; }
fail=0
if [ "$names" != "$timed" ]; then
  echo "kStageNames and the launchers' names differ:"; diff <(echo "$names") <(echo "$timed") || true; fail=1
fi
# kernel base names: the demangled symbol without namespace, template arguments and parameters
kernels=$(nm -C "$lib" 2>/dev/null | sed -n 's/^[0-9a-f]* [TtWw] //p' | sed -E 's/\(.*//; s/<.*//; s/.*:://; s/^void //' | sort -u)
for n in $names; do
  re=$(stage_kernel_regex "$n")
  if echo "$kernels" | grep -qxE "$re"; then echo "ok   $n -> $(echo "$kernels" | grep -xE "$re" | tr '\n' ' ')";
  else echo "FAIL $n: no kernel symbol matches ^($re)\$ in $lib"; fail=1; fi
  for f in "kernels/$n.cu"; do
    case "$n" in shade_*) f=kernels/shade.cu ;; compact_select) f=kernels/compact.cu ;; sort_materials) f=kernels/shade.cu ;; sort_shadow) f=kernels/sort_rays.cu ;; esac
    [ -f "$src/$f" ] || { echo "FAIL $n: no file $f"; fail=1; }
  done
done
exit $fail
