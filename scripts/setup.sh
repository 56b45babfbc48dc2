#!/usr/bin/env bash
# Set up Runtime Lab in ./.venv. Usage: scripts/setup.sh [app|test]
#   app:  runtime packages only;  test: plus pytest, ruff, Playwright and Debian's chromium.
# A GPU workstation that already has a CUDA build of torch in some Python:
#   PYTHON=/path/to/that/python RUNTIME_LAB_SYSTEM_TORCH=1 make app
# makes the venv see that Python's packages, so its torch is used and never replaced.
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:-app}
python=${PYTHON:-python3}
# this script's RUNTIME_LAB_* values, checked by the lab's one table (runtime_lab/envvars.py):
# a bad one is one line and exit 2, before anything is installed
"$python" -m runtime_lab.envvars setup
venv_flags=()
[ "${RUNTIME_LAB_SYSTEM_TORCH:-0}" = 1 ] && venv_flags+=(--system-site-packages)
if [ ! -x .venv/bin/python ]; then
  "$python" -m venv "${venv_flags[@]}" .venv
fi
pip=(.venv/bin/python -m pip install -q --disable-pip-version-check)
if ! .venv/bin/python -c "import torch" 2>/dev/null; then
  # A pinned release: PyPI's is a CUDA build on Linux; this lab's machines hold the CPU build
  # of the same version on local disk, which pip picks up through its find-links.
  "${pip[@]}" "torch==${RUNTIME_LAB_TORCH_VERSION:-2.13.0}"
fi
if [ "$what" = test ]; then
  "${pip[@]}" -r requirements-dev.txt
  if ! command -v chromium >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
      (apt-get install -y -q chromium >/dev/null 2>&1 ||
        { apt-get update -q >/dev/null && apt-get install -y -q chromium >/dev/null; }) ||
        echo "setup: could not install chromium; browser tests will be skipped" >&2
    else
      echo "setup: no chromium and no root apt-get; browser tests will be skipped" >&2
    fi
  fi
else
  "${pip[@]}" -r requirements.txt
fi
.venv/bin/python -c "import torch, streamlit, altair; print(f'setup: torch {torch.__version__}, streamlit {streamlit.__version__}, altair {altair.__version__}, cuda {torch.cuda.is_available()}')"
