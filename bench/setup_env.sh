#!/usr/bin/env bash
# The benchmark environment, apart from lrank's own .venv: the peers are installed only here.
# Creates bench/.venv313 (Python 3.13) with scikit-lr 0.3.0, scikit-learn, threadpoolctl and a
# release build of lrank, and bench/.venv37 (Python 3.7) with scikit-lr 0.2.0 (its W-LRT and
# F-LRT bagging, peers in `python -m bench.speed_sklr --groups bagging`).
# Idempotent: re-running reuses the venvs and reinstalls lrank from this checkout.
#
#   bash bench/setup_env.sh            # peers + lrank
#   SKIP_LRANK=1 bash bench/setup_env.sh
#   PY313=/path/to/python3.13 PY37=/path/to/python3.7 bash bench/setup_env.sh
set -euo pipefail

BENCH_DIR="$(cd "$(dirname "$0")" && pwd)"
REPO_DIR="$(cd "$BENCH_DIR/.." && pwd)"
VENV="$BENCH_DIR/.venv313"
PY313="${PY313:-}"

if [[ -z "$PY313" ]]; then
    for cand in /root/.pyenv/versions/3.13.0/bin/python3.13 \
                "$(command -v pyenv >/dev/null 2>&1 && pyenv root 2>/dev/null)/versions/3.13.0/bin/python3.13" \
                "$(command -v python3.13 || true)"; do
        if [[ -n "$cand" && -x "$cand" ]]; then PY313="$cand"; break; fi
    done
fi
if [[ -z "$PY313" ]]; then
    echo "setup_env.sh: no Python 3.13 found (set PY313=/path/to/python3.13)" >&2
    exit 1
fi

if [[ ! -x "$VENV/bin/python" ]]; then
    echo "creating $VENV with $PY313" >&2
    "$PY313" -m venv "$VENV"
fi
PIP=("$VENV/bin/python" -m pip --disable-pip-version-check)

"${PIP[@]}" install -q --upgrade pip
"${PIP[@]}" install -q "scikit-lr==0.3.0" numpy polars threadpoolctl scikit-learn

if [[ "${SKIP_LRANK:-0}" == "1" ]]; then
    echo "SKIP_LRANK=1: not installing lrank" >&2
elif [[ -f "$REPO_DIR/pyproject.toml" ]]; then
    # Build the wheel once through the pyproject build backend (maturin, i.e. what
    # `pip install "$REPO_DIR"` does), then install it: forced for lrank itself, so
    # a rebuilt extension replaces the old one even when the version is unchanged,
    # and normally for its runtime dependencies.
    WHEEL_DIR="$(mktemp -d)"
    trap 'rm -rf "$WHEEL_DIR"' EXIT
    "${PIP[@]}" wheel -q --no-deps -w "$WHEEL_DIR" "$REPO_DIR"
    WHEEL=("$WHEEL_DIR"/lrank-*.whl)
    "${PIP[@]}" install -q --force-reinstall --no-deps "${WHEEL[0]}"
    "${PIP[@]}" install -q "${WHEEL[0]}"
else
    echo "setup_env.sh: $REPO_DIR/pyproject.toml not found; lrank not installed (peer-only runs still work)" >&2
fi

# scikit-lr 0.2.0 (equal-width/-frequency splitters, bagging) installs only on Python 3.7.
PY37="${PY37:-/root/.pyenv/versions/3.7.16/bin/python3.7}"
if [[ -x "$PY37" ]]; then
    [[ -x "$BENCH_DIR/.venv37/bin/python" ]] || "$PY37" -m venv "$BENCH_DIR/.venv37"
    "$BENCH_DIR/.venv37/bin/python" -m pip install -q --disable-pip-version-check "scikit-lr==0.2.0"
    echo "bench/.venv37: scikit-lr $("$BENCH_DIR/.venv37/bin/python" -c 'import sklr; print(sklr.__version__)')"
else
    echo "setup_env.sh: no Python 3.7 (set PY37=...); bench.speed_sklr will skip the scikit-lr 0.2.0 peers" >&2
fi

"$VENV/bin/python" - <<'PY'
import importlib.metadata as md
for dist in ("scikit-lr", "scikit-learn", "numpy", "lrank"):
    try:
        print(f"{dist}=={md.version(dist)}")
    except md.PackageNotFoundError:
        print(f"{dist}: not installed")
PY
