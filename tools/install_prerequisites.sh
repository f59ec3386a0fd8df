#!/usr/bin/env bash
# Installs what the course needs besides the CUDA toolkit, on Debian 12 or Ubuntu: CMake, Ninja, a C++
# compiler, Catch2 (the tests), Python 3 (the grader, the results pages), Open MPI (step 15's one rank
# per GPU) from the distribution; and cuobjdump with nvdisasm, which the grader's compiled-code check
# runs, where the toolkit lacks them: NVIDIA's PyPI wheels, into a folder of this user's cache, where
# tools/grade finds them (tools/compiled_code.py); and a newer CCCL's headers for compare's row cub_gpu_to_gpu,
# into third_party/ (below). Installs only what is missing: safe to run again.
# usage: tools/install_prerequisites.sh        (asks sudo for apt-get when not run as root)
set -euo pipefail

missing=()
command -v cmake >/dev/null 2>&1 || missing+=(cmake)
command -v ninja >/dev/null 2>&1 || missing+=(ninja-build)
command -v c++ >/dev/null 2>&1 || missing+=(g++)
dpkg -s catch2 >/dev/null 2>&1 || missing+=(catch2)
command -v python3 >/dev/null 2>&1 || missing+=(python3)
python3 -m pip --version >/dev/null 2>&1 || missing+=(python3-pip)  # for cuobjdump, below
dpkg -s libopenmpi-dev >/dev/null 2>&1 || missing+=(libopenmpi-dev)
if ((${#missing[@]} > 0)); then
  sudo_if_needed=""
  [ "$(id -u)" -eq 0 ] || sudo_if_needed=sudo
  echo "install_prerequisites: apt-get install ${missing[*]}"
  $sudo_if_needed apt-get update
  $sudo_if_needed apt-get install -y --no-install-recommends "${missing[@]}"
fi

# The presets need CMake 3.25 (Debian 12's); an older distribution's is refused here, not half-way.
cmake_version="$(cmake --version | sed -n 's/^cmake version \([0-9.]*\).*/\1/p')"
if [ "$(printf '%s\n3.25\n' "$cmake_version" | sort -V | head -n 1)" != 3.25 ]; then
  echo "install_prerequisites: CMake $cmake_version is older than 3.25, which the course needs:" \
       "install a newer one (https://cmake.org/download/)" >&2
  exit 1
fi

# cuobjdump and nvdisasm: from the toolkit where it has them (on PATH or beside nvcc), else from PyPI
# (Debian's archive and PyPI are reachable where NVIDIA's apt repository may not be). pip's --target
# installs into a plain folder: no virtual environment, nothing of the system's Python touched.
nvcc_bin="$(dirname "$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)")"
if command -v cuobjdump >/dev/null 2>&1; then
  echo "install_prerequisites: cuobjdump: $(command -v cuobjdump)"
elif [ -x "$nvcc_bin/cuobjdump" ]; then
  echo "install_prerequisites: cuobjdump: $nvcc_bin/cuobjdump (beside nvcc)"
else
  tools_dir="${XDG_CACHE_HOME:-$HOME/.cache}/reduction-cuda-tools"
  [ -x "$tools_dir/nvidia/cu13/bin/cuobjdump" ] ||
    PIP_ROOT_USER_ACTION=ignore PIP_DISABLE_PIP_VERSION_CHECK=1 python3 -m pip install --quiet --target "$tools_dir" \
      nvidia-cuda-cuobjdump==13.2.51 nvidia-cuda-nvdisasm==13.2.51
  "$tools_dir/nvidia/cu13/bin/cuobjdump" --version >/dev/null
  echo "install_prerequisites: cuobjdump: $tools_dir/nvidia/cu13/bin/cuobjdump (tools/grade looks there;" \
       "to run it yourself: export PATH=\"$tools_dir/nvidia/cu13/bin:\$PATH\")"
fi
# compare's row cub_gpu_to_gpu needs CUB's determinism::gpu_to_gpu, which CUDA 13.0's CCCL lacks: the headers of a
# newer CCCL (NVIDIA's PyPI wheel nvidia-cuda-cccl, its include/cccl folder) go to third_party/cccl/include, where
# CMake looks (REDUCTION_GPU_TO_GPU_CCCL). Inside the tree (git ignores third_party/), not in a cache: GPU machines
# without network receive a copy of the tree, and the headers must travel with it. Only in the course's tree (an
# assignment has no compare); copied in whole or not at all.
tree="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cccl_dir="$tree/third_party/cccl/include"
if [ -f "$tree/course/cub_gpu_to_gpu.cu" ]; then
  if ! grep -qs gpu_to_gpu "$cccl_dir/cub/device/device_reduce.cuh"; then
    wheel_dir="$(mktemp -d)"
    trap 'rm -rf "$wheel_dir"' EXIT
    PIP_ROOT_USER_ACTION=ignore PIP_DISABLE_PIP_VERSION_CHECK=1 python3 -m pip install --quiet --no-deps \
      --target "$wheel_dir" nvidia-cuda-cccl==13.3.5.0.6
    rm -rf "$cccl_dir.partial" "$cccl_dir"
    mkdir -p "$(dirname "$cccl_dir")"
    cp -R "$wheel_dir/nvidia/cu13/include/cccl" "$cccl_dir.partial"
    mv "$cccl_dir.partial" "$cccl_dir"
  fi
  echo "install_prerequisites: CCCL with determinism::gpu_to_gpu: $cccl_dir (compare's row cub_gpu_to_gpu)"
fi
if ! command -v nvcc >/dev/null 2>&1 && [ ! -x "$nvcc_bin/nvcc" ]; then
  echo "install_prerequisites: nvcc not found (on PATH or in /usr/local/cuda/bin): install the CUDA toolkit," \
       "12 or newer, too" >&2
  exit 1
fi
echo "install_prerequisites: done"
