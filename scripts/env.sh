# Sourced by scripts/run and scripts/test: the environment sportz needs at run time.
# shellcheck shell=bash
_sportz_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
_ort_version="${SPORTZ_ORT_VERSION:-1.32.0}"
if [ -z "${ORT_DYLIB_PATH:-}" ]; then
  for _f in "$_sportz_root/.cache/onnxruntime/$_ort_version"/libonnxruntime.so*; do
    [ -e "$_f" ] && export ORT_DYLIB_PATH="$_f"
  done
fi
# wgpu/GTK complain without a private runtime dir
if [ -z "${XDG_RUNTIME_DIR:-}" ] || [ ! -w "${XDG_RUNTIME_DIR:-/nonexistent}" ]; then
  export XDG_RUNTIME_DIR="/tmp/sportz-xdg-$(id -u)"
  mkdir -p "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"
fi
unset _f _ort_version _sportz_root
