#!/bin/sh
# Install the Debian packages named on the command line that are missing.
# A name may carry the command it provides, PACKAGE:COMMAND; it is then
# missing only when the command is not on the PATH either (npm, for example,
# often comes with Node.js from elsewhere).
# As root: apt-get. With password-less sudo: sudo apt-get. Otherwise print the
# exact command and fail, so that nothing half-works.
set -u
if ! command -v dpkg-query >/dev/null 2>&1; then
  echo "setup: not a Debian system; make sure these are installed: $*" >&2
  exit 0
fi
missing=""
for arg in "$@"; do
  p=${arg%%:*}
  case "$arg" in
    *:*) command -v "${arg#*:}" >/dev/null 2>&1 && continue ;;
  esac
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)
  case "$status" in
    *"install ok installed"*) ;;
    *) missing="$missing $p" ;;
  esac
done
[ -z "$missing" ] && exit 0

cmd="apt-get install -y --no-install-recommends$missing"
if [ "$(id -u)" = 0 ]; then
  sudo=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  sudo="sudo"
else
  echo "setup: missing Debian packages:$missing" >&2
  echo "setup: run   sudo apt-get update && sudo $cmd" >&2
  exit 1
fi
echo "setup: installing$missing"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq >/dev/null || { echo "setup: apt-get update failed" >&2; exit 1; }
$sudo $cmd -qq >/dev/null || { echo "setup: '$sudo $cmd' failed" >&2; exit 1; }
echo "setup: done"
