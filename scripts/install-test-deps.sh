#!/usr/bin/env bash
# What the test suite needs besides Python packages, on Debian or Ubuntu: python3-venv
# (the README's virtual environment, where Debian's Python lacks it), Chromium and a CJK
# font (browser tests), PostgreSQL and Redis (storage and several-process tests start
# throwaway instances of them: tests/services.py), and the browser game's npm packages
# (axe-core for the accessibility checks). Run as root or with sudo available.
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
need=()
# Debian's python3 makes a virtual environment (the README's `python3 -m venv`) only with
# python3-venv, which brings ensurepip
python3 -c "import ensurepip" >/dev/null 2>&1 || need+=(python3-venv)
command -v chromium >/dev/null 2>&1 || need+=(chromium)
fc-list 2>/dev/null | grep -qi "WenQuanYi Micro Hei" || need+=(fonts-wqy-microhei)
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || need+=(postgresql)
command -v redis-server >/dev/null 2>&1 || need+=(redis-server)
command -v npm >/dev/null 2>&1 || need+=(nodejs npm)
if [ ${#need[@]} -gt 0 ]; then
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi
(cd frontend && npm ci --no-audit --no-fund >/dev/null)
