#!/usr/bin/env bash
# Create the benchmark virtualenv (.venv-bench): parley (editable) plus negmas 0.16.0 for comparison.
# NegMAS is AGPL-licensed, so it lives only here, never in parley's own environment. Idempotent, quiet.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${ROOT}/.venv-bench"
PYTHON="${PYTHON:-python3}"
NEGMAS_VERSION="0.16.0"
STAMP="${VENV}/.bench-installed-negmas-${NEGMAS_VERSION}"
LOG="${VENV}/setup.log"

if [[ -f "${STAMP}" && "${STAMP}" -nt "${ROOT}/pyproject.toml" ]]; then
    exit 0
fi

if [[ ! -x "${VENV}/bin/python" ]]; then
    "${PYTHON}" -m venv "${VENV}"
fi

install() {
    # pip's chatter (build warnings, notes about optional local indexes) goes to the log only.
    if ! "${VENV}/bin/python" -m pip install --quiet --disable-pip-version-check "$@" >>"${LOG}" 2>&1; then
        tail -n 15 "${LOG}" >&2
        echo "setup_bench_venv: pip could not install '$*' into ${VENV}" \
            "(is the package registry reachable?); full log: ${LOG}" >&2
        exit 1
    fi
}

: >"${LOG}"
install --upgrade pip
install -e "${ROOT}"
install "negmas==${NEGMAS_VERSION}"
touch "${STAMP}"
