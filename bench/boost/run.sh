#!/usr/bin/env bash
# run.sh compiles boostcmp.cpp against Boost.Bloom's headers and runs it.
#
# Usage: bash bench/boost/run.sh BOOST_INCLUDE_DIR [boostcmp flags...]
#   BOOST_INCLUDE_DIR: a directory holding boost/bloom.hpp and the headers
#   it needs (Boost 1.90 or later; see bench/boost/README.md).
#   boostcmp flags: -n 1e5,1e6,1e7  -large  -rounds 5  -bits 10
#                   -hash identity|boost
# It compiles with g++ -std=c++17 -O3 -march=native (so Boost's AVX2 code
# path is used where the CPU has AVX2; CXX overrides the compiler, MARCH
# the -march value, e.g. MARCH=x86-64-v3 for AVX2 without AVX-512), into a
# temporary directory, runs it and prints one markdown table. It downloads
# nothing.
set -euo pipefail
if [ $# -lt 1 ] || [ ! -f "$1/boost/bloom.hpp" ]; then
  sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
inc=$(cd "$1" && pwd)
shift
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"${CXX:-g++}" -std=c++17 -O3 "-march=${MARCH:-native}" -DNDEBUG -Wall -Wextra -isystem "$inc" \
  -o "$tmp/boostcmp" "$here/boostcmp.cpp"
"$tmp/boostcmp" "$@"
