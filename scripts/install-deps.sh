#!/usr/bin/env bash
# Installs the Debian packages goodsim needs, only when some are missing.
# Idempotent and quick when everything is present. Extra package names given as
# arguments are installed too (`make fuzz` adds clang and libFuzzer's runtime).
set -euo pipefail

PACKAGES=(
  cmake make g++ clang
  libopenmpi-dev openmpi-bin
  libboost-graph-dev nlohmann-json3-dev libcli11-dev libfmt-dev catch2 libeigen3-dev
  zlib1g-dev
  libbenchmark-dev
  python3 python3-matplotlib python3-pandas
  pybind11-dev python3-dev python3-pytest
  chromium-headless-shell
  "$@"
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "goodsim: installing missing packages: ${missing[*]}" >&2
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
    echo "goodsim: need root (or sudo) to install: ${missing[*]}" >&2
    exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
