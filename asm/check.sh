#!/bin/sh
# check.sh regenerates every avo-generated assembly file of sift into a
# temporary directory and fails if any differs from the committed one, so CI
# catches a generator edited without regenerating (or a hand-edited .s).
#
# Usage (from anywhere): sh asm/check.sh
#
# Each generator is a directory asm/<name>/ run as
#   go run ./<name> -out <name>_amd64.s -stubs <name>_stubs_amd64.go -pkg kernel
# whose outputs live in internal/kernel/; every asm/*/main.go is one (set
# GENERATORS="a b" to check only some). The "// Code generated" line is left
# out of the comparison: asm/cuckoo's avo Generate writes the output paths
# into it (kit.Generate does not), which differ for the temporary copy.
set -eu

asm=$(cd "$(dirname "$0")" && pwd)
if [ -z "${GENERATORS:-}" ]; then
	GENERATORS=$(cd "$asm" && for m in */main.go; do dirname "$m"; done | tr '\n' ' ' | sed 's/ $//')
fi
kernel="$asm/../internal/kernel"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

status=0
for g in $GENERATORS; do
	if [ ! -d "$asm/$g" ]; then
		echo "check.sh: no generator asm/$g" >&2
		status=1
		continue
	fi
	(cd "$asm" && go run "./$g" -out "$tmp/${g}_amd64.s" -stubs "$tmp/${g}_stubs_amd64.go" -pkg kernel)
	for f in "${g}_amd64.s" "${g}_stubs_amd64.go"; do
		if ! diff -u -I '^// Code generated .* DO NOT EDIT\.$' "$kernel/$f" "$tmp/$f"; then
			echo "check.sh: internal/kernel/$f is stale: run 'go generate ./internal/kernel'" >&2
			status=1
		fi
	done
done
[ $status -eq 0 ] && echo "check.sh: generated assembly is up to date ($GENERATORS)"
exit $status
