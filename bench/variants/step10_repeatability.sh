#!/usr/bin/env bash
# How many distinct results 1,000 back-to-back calls give: step 10 (fixed order) and the atomicAdd
# variant (order of arrival), float32 and float64, n = 2^24, in one CSV on stdout (step 10's lesson).
# usage: bench/variants/step10_repeatability.sh [BUILD_BIN_DIR]
set -uo pipefail
bin=${1:-build/bin}
exec python3 "$(dirname "${BASH_SOURCE[0]}")/../collect_rows.py" \
  "$bin/step10_repeatability --n 2^24 --type float32" "$bin/step10_repeatability --n 2^24 --type float64"
