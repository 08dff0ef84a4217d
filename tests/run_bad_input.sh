#!/usr/bin/env bash
# The command line over the bad-input corpus: each case, through `wavepath render` and through `wavepath bench`
# (both start a render the same way), must exit with code 1 (not a crash, not 0) and print an
# "error: <file>: ..." line (pbrt-v4 files: "error: <file>:LINE:COL: ...") on stderr holding the case's problem text (cases.tsv). Then the render limits on a
# command-line override: --max-depth 5000 on a valid scene, the same message from both subcommands.
#   tests/run_bad_input.sh path/to/wavepath
set -u
WP=$1
dir="$(cd "$(dirname "$0")" && pwd)/bad_input"
fail=0 n=0
# expect_error CASE WANT_TEXT FILE COMMAND...: exit code 1 and "error: FILE: ...WANT_TEXT..." on stderr
# (a pbrt-v4 case's error names FILE:LINE:COL: the line and column of cases.tsv's second column, in WHERE)
expect_error() {
  local name=$1 what=$2 file=$3
  shift 3
  local err rc
  err=$("$@" 2>&1 >/dev/null)
  rc=$?
  if [ $rc -ne 1 ]; then echo "FAIL $name: exit code $rc (want 1): $err"; fail=1; return; fi
  case "$err" in
    *"error: $file${where:+:$where}: "*) ;;
    *) echo "FAIL $name: no 'error: <file>${where:+:$where}:' line: $err"; fail=1; return ;;
  esac
  case "$err" in
    *"$what"*) ;;
    *) echo "FAIL $name: no '$what' in: $err"; fail=1 ;;
  esac
}
while IFS= read -r line; do
  # split by hand: read with IFS=tab would merge the empty pointer column (tab is whitespace to IFS)
  file=${line%%$'\t'*}
  what=${line##*$'\t'}
  where=${line#*$'\t'}
  where=${where%%$'\t'*}
  case "$where" in [0-9]*) ;; *) where= ;; esac  # LINE:COL of a pbrt-v4 case; a JSON pointer is not printed
  case "$file" in ''|'#'*) continue ;; esac
  n=$((n + 1))
  expect_error "render $file" "$what" "$dir/$file" "$WP" render "$dir/$file" --backend cpu -o /tmp/wp-bad-input.pfm
  expect_error "bench $file" "$what" "$dir/$file" "$WP" bench "$dir/$file" --backend cpu --repeat 1 --warmup 0 --no-raycast
done < "$dir/cases.tsv"
where=
scene="$(cd "$(dirname "$0")/.." && pwd)/scenes/cornell-box.json"
limit="max_depth 5000 out of range (1 to 1024)"
expect_error "render --max-depth 5000" "$limit" "$scene" "$WP" render "$scene" --backend cpu --max-depth 5000 -o /tmp/wp-bad-input.pfm
expect_error "bench --max-depth 5000" "$limit" "$scene" "$WP" bench "$scene" --backend cpu --max-depth 5000 --repeat 1 --warmup 0 --no-raycast
echo "$n cases (render and bench) and --max-depth 5000 (render and bench), $([ $fail -eq 0 ] && echo all failed cleanly || echo SOME DID NOT)"
exit $fail
