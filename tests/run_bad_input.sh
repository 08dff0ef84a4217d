#!/usr/bin/env bash
# The command line over the bad-input corpus: each case, through `wavepath render` and through `wavepath bench`
# (both start a render the same way), must exit with code 1 (not a crash, not 0) and print an
# "error: <file>: ..." line (pbrt-v4 files, JSON syntax errors: "error: <file>:LINE:COL: ...") on stderr holding the case's problem
# text (cases.tsv). Then the render limits on a command-line override: --max-depth 5000 on a valid scene, a usage
# error (exit code 2) from both subcommands.
#   tests/run_bad_input.sh path/to/wavepath
set -u
WP=$1
dir="$(cd "$(dirname "$0")" && pwd)/bad_input"
fail=0 n=0
# expect_error CASE WANT_TEXT FILE COMMAND...: exit code 1 and "error: FILE: ...WANT_TEXT..." on stderr
# (a pbrt-v4 case's or a JSON syntax case's error names FILE:LINE:COL: the line and column of cases.tsv's second column, in WHERE)
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
  where=${line#*$'\t'}
  where=${where%%$'\t'*}
  case "$where" in [0-9]*) ;; *) where= ;; esac  # LINE:COL (pbrt-v4, JSON syntax); a JSON pointer is not printed
  rest=${line#*$'\t'}   # pointer, problem [, options]
  rest=${rest#*$'\t'}   # problem [, options]
  what=${rest%%$'\t'*}
  opts=()
  case "$rest" in *$'\t'*) read -r -a opts <<< "${rest#*$'\t'}" ;; esac
  case "$file" in ''|'#'*) continue ;; esac
  n=$((n + 1))
  expect_error "render $file" "$what" "$dir/$file" "$WP" render "$dir/$file" --backend cpu -o /tmp/wp-bad-input.pfm "${opts[@]}"
  expect_error "bench $file" "$what" "$dir/$file" "$WP" bench "$dir/$file" --backend cpu --repeat 1 --warmup 0 --no-raycast "${opts[@]}"
  # a warning case under --strict: without it, the scene loads with a warning (exit code 0)
  if [ ${#opts[@]} -gt 0 ]; then
    err=$("$WP" render "$dir/$file" --backend cpu -o /tmp/wp-bad-input.pfm 2>&1 >/dev/null); rc=$?
    case "$rc:$err" in
      0:*"warning: $dir/$file${where:+:$where}: "*"${what% (an error with --strict)}"*) ;;
      *) echo "FAIL render $file without ${opts[*]}: want exit code 0 and the warning '$what': rc $rc: $err"; fail=1 ;;
    esac
  fi
done < "$dir/cases.tsv"
where=
# expect_usage NAME WANT_TEXT COMMAND...: exit code 2 (a usage error) and WANT_TEXT on stderr
expect_usage() {
  local name=$1 what=$2
  shift 2
  local err rc
  err=$("$@" 2>&1 >/dev/null)
  rc=$?
  if [ $rc -ne 2 ]; then echo "FAIL $name: exit code $rc (want 2): $err"; fail=1; return; fi
  case "$err" in
    *"$what"*) ;;
    *) echo "FAIL $name: no '$what' in: $err"; fail=1 ;;
  esac
}
# an override out of the render limits is a usage error, caught by the command line before any scene is read
scene="$(cd "$(dirname "$0")/.." && pwd)/scenes/cornell-box.json"
limit="--max-depth: 5000 is out of range (1 to 1024)"
expect_usage "render --max-depth 5000" "$limit" "$WP" render "$scene" --backend cpu --max-depth 5000 -o /tmp/wp-bad-input.pfm
expect_usage "bench --max-depth 5000" "$limit" "$WP" bench "$scene" --backend cpu --max-depth 5000 --repeat 1 --warmup 0 --no-raycast
echo "$n cases (render and bench) and --max-depth 5000 (render and bench), $([ $fail -eq 0 ] && echo all failed cleanly || echo SOME DID NOT)"
exit $fail
