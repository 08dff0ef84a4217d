#!/usr/bin/env bash
# The command line over the bad-input corpus: each case must exit with code 1 (not a crash, not 0) and print
# one "error: <file>: ..." line on stderr.   tests/run_bad_input.sh path/to/wavepath
set -u
WP=$1
dir="$(cd "$(dirname "$0")" && pwd)/bad_input"
fail=0 n=0
while IFS=$'\t' read -r file ptr what; do
  case "$file" in ''|'#'*) continue ;; esac
  n=$((n + 1))
  err=$("$WP" render "$dir/$file" --backend cpu -o /tmp/wp-bad-input.pfm 2>&1 >/dev/null)
  rc=$?
  if [ $rc -ne 1 ]; then echo "FAIL $file: exit code $rc (want 1): $err"; fail=1; continue; fi
  case "$err" in
    *"error: $dir/$file: "*) ;;
    *) echo "FAIL $file: no 'error: <file>:' line: $err"; fail=1 ;;
  esac
done < "$dir/cases.tsv"
echo "$n cases, $([ $fail -eq 0 ] && echo all failed cleanly || echo SOME DID NOT)"
exit $fail
