#!/usr/bin/env bash
# The LR-RF accuracy reproduction recorded in BENCHMARKS.md: 5 x 10-fold CV on the 16 KEBI sets,
# training labels deleted with p in {0, 0.3, 0.6}, for each class mode.
# Usage: bash bench/run_accuracy_lrrf.sh [ranking pairwise top_label]   (from the repository root)
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-.venv/bin/python}"
modes=("$@")
[[ ${#modes[@]} -eq 0 ]] && modes=(ranking pairwise top_label)
for mode in "${modes[@]}"; do
    "$PY" bench/accuracy.py -W LRRF --options "-class-mode $mode" \
        --out "bench/results/accuracy_LRRF_${mode}.json" | tee "bench/results/accuracy_LRRF_${mode}.txt"
done
