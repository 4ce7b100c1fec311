#!/usr/bin/env bash
# Installs what the Vulkan backend of GPU timing and its test need (make
# test-gpu), when it is missing: the Vulkan loader and headers
# (libvulkan-dev) and Mesa's software Vulkan driver, lavapipe
# (mesa-vulkan-drivers), so the end-to-end check runs on any machine, with or
# without a GPU.
set -euo pipefail
need=()
[ -f /usr/include/vulkan/vulkan.h ] || need+=(libvulkan-dev)
ls /usr/share/vulkan/icd.d/lvp_icd.*.json >/dev/null 2>&1 || need+=(mesa-vulkan-drivers)
if [ ${#need[@]} -gt 0 ]; then
  echo "ludus: installing missing Debian packages: ${need[*]}"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq || echo "ludus: apt-get update failed; trying the package lists there are"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi
