#!/usr/bin/env bash
# run.sh builds and runs peercmp.go (sift's cuckoo filter against panmari,
# linvon and seiflotfy) in a temporary module, against local clones of the
# two peers the module proxy may refuse.
#
# Usage: bash bench/offline/run.sh PANMARI_DIR LINVON_DIR [-n 1000000] [-rounds 5]
#   PANMARI_DIR: a clone of github.com/panmari/cuckoofilter
#   LINVON_DIR:  a clone of github.com/linvon/cuckoo-filter
# seiflotfy/cuckoofilter comes from the module proxy at the version the bench
# module uses; sift is this checkout.
set -euo pipefail
if [ $# -lt 2 ]; then
  sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
sift=$(cd "$here/../.." && pwd)
panmari=$(cd "$1" && pwd)
linvon=$(cd "$2" && pwd)
shift 2
seiflotfy=$(cd "$here/.." && go list -m -f '{{.Version}}' github.com/seiflotfy/cuckoofilter)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$here/peercmp.go" "$tmp/main.go"
cat >"$tmp/go.mod" <<MOD
module peercmp

go 1.24.9

require (
	github.com/linvon/cuckoo-filter v0.0.0
	github.com/panmari/cuckoofilter v0.0.0
	github.com/seiflotfy/cuckoofilter $seiflotfy
	github.com/sift-go/sift v0.0.0
	golang.org/x/sys v0.41.0
)

replace (
	github.com/linvon/cuckoo-filter => $linvon
	github.com/panmari/cuckoofilter => $panmari
	github.com/sift-go/sift => $sift
)
MOD
cd "$tmp"
# main.go carries //go:build ignore (so the bench module skips it): build
# it by name.
GOFLAGS=-mod=mod go mod tidy >/dev/null 2>&1 || true
GOFLAGS=-mod=mod go run main.go "$@"
