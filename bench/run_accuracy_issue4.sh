#!/usr/bin/env bash
# The papers' protocol (5 x 10-fold CV, p = 0, 0.3, 0.6, 16 KEBI sets) for the learners of
# issue 4, plus LRT again (its split search changed). Results in bench/results/accuracy_*.json;
# tables with `python bench/report_accuracy.py bench/results/accuracy_X.json ...`.
#
#   bash bench/run_accuracy_issue4.sh [learner ...]     # default: all, cheapest first
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-.venv/bin/python}"
run() { local name=$1; shift; echo "== $name" >&2; "$PY" bench/accuracy.py "$@" --out "bench/results/accuracy_$name.json"; }
want() { [[ $# -eq 0 ]] || [[ " ${SELECTED} " == *" $1 "* ]]; }
SELECTED="${*:-IBPL RPC LRT LWDT LWRF OVO Bagging-WLRT Bagging-FLRT Bagging-LRT}"
for name in $SELECTED; do
  case "$name" in
    IBPL) run IBPL -W IBPL ;;
    RPC) run RPC -W RPC ;;
    LRT) run LRT -W LRT ;;
    LWDT) run LWDT -W LWDT ;;
    LWRF) run LWRF -W LWRF ;;
    OVO) run OVO -W OVO ;;
    Bagging-LRT) run Bagging-LRT -W Bagging --options "-W LRT -I 50" --published Bagging-LRT ;;
    Bagging-WLRT) run Bagging-WLRT -W Bagging --options "-W WLRT -I 50" --published Bagging-WLRT ;;
    Bagging-FLRT) run Bagging-FLRT -W Bagging --options "-W FLRT -I 50" --published Bagging-FLRT ;;
    *) echo "unknown learner $name" >&2; exit 2 ;;
  esac
done
