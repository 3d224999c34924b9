#!/bin/sh
# What `npm run test:sip` places and hears calls with: Debian's sipp (package sip-tester; there
# is no package named sipp) and tcpdump for the capture at the phone's RTP port. Idempotent.
# The SIP bridge itself (livekit-sip) is the operator's: see docs/sip.md, "A real bridge".
set -eu

missing=""
command -v sipp >/dev/null 2>&1 || missing="$missing sip-tester"
command -v tcpdump >/dev/null 2>&1 || missing="$missing tcpdump"
if [ -z "$missing" ]; then
  echo "sipp: $(sipp -v 2>/dev/null | grep -o 'SIPp v[^ ]*' | head -n 1); tcpdump: $(tcpdump --version 2>&1 | head -n 1)"
  exit 0
fi

if [ "$(id -u)" -eq 0 ]; then as_root=""
elif command -v sudo >/dev/null 2>&1; then as_root="sudo"
else
  echo "ensure-sipp: need root (or sudo) to apt-get install$missing" >&2
  exit 1
fi
command -v apt-get >/dev/null 2>&1 || { echo "ensure-sipp: apt-get is unavailable; install$missing yourself" >&2; exit 1; }
echo "ensure-sipp: installing$missing..."
$as_root apt-get update -qq
# shellcheck disable=SC2086 # one word per package
DEBIAN_FRONTEND=noninteractive $as_root apt-get install -y -qq $missing >/dev/null
echo "sipp: $(sipp -v 2>/dev/null | grep -o 'SIPp v[^ ]*' | head -n 1)"
