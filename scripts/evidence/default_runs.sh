#!/usr/bin/env bash
# Each page's default Run through the CLI (the pages' queue and worker), timed, into one data dir.
# Usage: scripts/evidence/default_runs.sh DATA_DIR [cpu|cuda]   (issue 18: defaults under 20 s on the GPU)
set -u
dir=$1
device=${2:-cuda}
py=${PYTHON:-python3}
for name in fusion streams recompiles allocator; do
  start=$EPOCHREALTIME
  "$py" -m runtime_lab --data-dir "$dir" run "$name" --device "$device" --json "$dir/$name.json" \
    >/dev/null 2>"$dir/$name.err"
  rc=$?
  printf '%-10s rc=%s %6.1f s wall (worker start included)\n' "$name" "$rc" \
    "$("$py" -c "print($EPOCHREALTIME - $start)")"
done
"$py" -m runtime_lab --data-dir "$dir" history
