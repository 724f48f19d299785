#!/bin/sh
# ekuiper-build.sh [DIR]: builds LF Edge eKuiper's kuiperd, the peer that
# `go run ./testing/bench -ekuiper DIR` runs beside edged, into DIR (default
# .cache/ekuiper) with its etc/, from the release on the Go module proxy, built as
# its Makefile builds it (no cgo, no build tags) with the bench's release flags.
set -eu
version=${EKUIPER_VERSION:-v2.4.0}
out=$(mkdir -p "${1:-.cache/ekuiper}" && cd "${1:-.cache/ekuiper}" && pwd)
mod=github.com/lf-edge/ekuiper/v2
src=$(go mod download -json "$mod@$version" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
[ -d "$src" ] || { echo "ekuiper-build.sh: no source for $mod@$version" >&2; exit 1; }
work=$(mktemp -d)
trap 'chmod -R u+w "$work"; rm -rf "$work"' EXIT
cp -R "$src/." "$work"
chmod -R u+w "$work"
cd "$work"
GOWORK=off GOFLAGS=-buildvcs=false CGO_ENABLED=0 go build -trimpath \
	-ldflags "-s -w -X $mod/cmd.Version=${version#v} -X $mod/cmd.LoadFileType=relative" \
	-o "$out/kuiperd" ./cmd/kuiperd
rm -rf "$out/etc"
cp -R etc "$out/etc"
echo "eKuiper $version: $out/kuiperd and $out/etc"
