#!/usr/bin/env bash
# Installs the Debian packages tilegrad's build needs. Idempotent: packages already present are skipped.
set -euo pipefail
pkgs=(cmake ninja-build g++ libboost-dev librange-v3-dev googletest libgtest-dev libgmock-dev
      libcli11-dev libfmt-dev hipcc libamdhip64-dev rocm-device-libs clang-15 lld-15 zstd python3
      python3-torch libtorch-dev python3-pytest)  # the PyTorch front end (python/) and its tests
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then echo "install-deps: all ${#pkgs[@]} packages present"; exit 0; fi
echo "install-deps: installing ${missing[*]}"
SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
