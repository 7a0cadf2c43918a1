#!/usr/bin/env bash
# Runs CI (.ci/run) on N fresh clones of the current commit, one after the other, and lists every failure.
#   scripts/ci-repeat.sh [N=10] [OUT_DIR]
# Each run's log is OUT_DIR/run-<i>.log; OUT_DIR/summary.txt has one line per run (exit code, seconds) and, for a
# failed run, the failing test files and tests. A flaky test shows up as a failure in some runs and not in others.
set -u
runs=${1:-10}
out=${2:-$(mktemp -d "${TMPDIR:-/tmp}/ci-repeat-XXXXXX")}
mkdir -p "$out"
repo=$(git rev-parse --show-toplevel)
rev=$(git -C "$repo" rev-parse HEAD)
echo "CI on $runs fresh clones of $rev; logs and summary in $out" | tee "$out/summary.txt"
failed=0
for i in $(seq 1 "$runs"); do
  clone=$(mktemp -d "${TMPDIR:-/tmp}/ci-clone-XXXXXX")
  git clone -q "$repo" "$clone" && git -C "$clone" checkout -q "$rev"
  started=$(date +%s)
  (cd "$clone" && ./.ci/run) >"$out/run-$i.log" 2>&1
  code=$?
  echo "run $i: exit $code in $(( $(date +%s) - started )) s" | tee -a "$out/summary.txt"
  if [ "$code" -ne 0 ]; then
    failed=$((failed + 1))
    # vitest marks failed files and tests with FAIL and ×; strip its colours.
    sed 's/\x1b\[[0-9;]*m//g' "$out/run-$i.log" | grep -E '^(\[[^]]*\] )? *(FAIL|×) ' | sort -u | sed 's/^/    /' | tee -a "$out/summary.txt"
  fi
  rm -rf "$clone"
done
echo "$failed of $runs runs failed" | tee -a "$out/summary.txt"
[ "$failed" -eq 0 ]
