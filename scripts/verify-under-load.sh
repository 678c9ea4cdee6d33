#!/usr/bin/env bash
# Runs the README's test command (mvn -B verify) on a fresh clone of this checkout's HEAD, N times
# in a row, with a CPU-bound process occupying one core beside it the whole time (issue 30: the
# suite must pass on a loaded machine). Prints each run's result and wall time, and a summary
# line; exits non-zero if any run failed. The busy process is ended when the script ends, and
# stops by itself after 4 hours in any case.
#   scripts/verify-under-load.sh        three runs
#   scripts/verify-under-load.sh 1      one run
set -euo pipefail
runs=${1:-3}
top=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /tmp/pg2lite-under-load.XXXXXX)
git clone -q "$top" "$work/clone"
cd "$work/clone"
echo "fresh clone of $(git rev-parse --short HEAD) in $work/clone; $(nproc) cores"

timeout 4h sh -c 'while :; do :; done' &
busy=$!
trap 'kill $busy 2>/dev/null || true' EXIT

failed=0
summary=""
for i in $(seq 1 "$runs"); do
  git clean -qfdx
  start=$(date +%s)
  if mvn -B verify > "$work/run-$i.log" 2>&1; then result=PASS; else result=FAIL; failed=$((failed + 1)); fi
  took=$(( $(date +%s) - start ))
  line="run $i: $result in $((took / 60)) min $((took % 60)) s ($(grep -c 'Tests run:.*Fail' "$work/run-$i.log" || true) test classes; log $work/run-$i.log)"
  echo "$line"
  grep -E 'Tests run:.*(Failures: [1-9]|Errors: [1-9])' "$work/run-$i.log" | head -5 || true
  summary="$summary$line"$'\n'
done
echo "---"
printf '%s' "$summary"
echo "$((runs - failed)) passed, $failed failed"
[ "$failed" -eq 0 ]
