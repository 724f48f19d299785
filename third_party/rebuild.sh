#!/usr/bin/env bash
# Rebuilds every copy under third_party/ (run by `make third-party`): the upstream
# release edged's go.mod requires, taken from the module cache, trimmed to what edged
# builds, then the copy's patches/*.patch in order. The result replaces
# third_party/<name>/src, so on a clean checkout nothing changes; see README.md here.
#
# Usage: third_party/rebuild.sh [name...]   (default: every copy)
#
# THIRD_PARTY_SKIP leaves patches out, to measure what they buy: for example
# THIRD_PARTY_SKIP="badger/0010 ristretto/0002" make third-party; a plain
# make third-party puts them back.
set -euo pipefail
cd "$(dirname "$0")/.."

# name, module, then what is kept of the module: files as they are, and package
# directories, of which only the non-test .go and .s files, the .proto and .fbs
# sources of their generated code and their licences. Tests, docs, examples, tools and
# CI configuration are left out; each copy's go.mod is upstream's.
copies=(
  "badger github.com/dgraph-io/badger/v4 go.mod . fb options pb skl table trie y"
  "paho.mqtt.golang github.com/eclipse/paho.mqtt.golang go.mod NOTICE.md epl-v20 edl-v10 . packets"
  "protoactor-go github.com/asynkron/protoactor-go go.mod LICENSE actor ctxext eventstream extensions internal/queue/goring internal/queue/mpsc metrics"
  "ristretto github.com/dgraph-io/ristretto/v2 go.mod . z z/simd"
  "nats-server github.com/nats-io/nats-server/v2 go.mod LICENSE conf internal/ldap logger server server/archive server/ats server/avl server/certidp server/certstore server/elastic server/gsl server/pse server/stree server/sysmem server/thw server/tpm"
)

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fail() { echo "third-party: $*" >&2; exit 1; }

# rebuild name module kept... writes third_party/<name>/src.
rebuild() {
  local name=$1 module=$2
  shift 2
  local here=third_party/$name
  local version
  version=$(go list -m -f '{{.Version}}' "$module")
  grep -qx "Version: $version" "$here/README.md" ||
    fail "$here/README.md does not say 'Version: $version', the version go.mod requires"
  local from
  from=$(cd "$tmp" && go mod download -json "$module@$version" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')
  [ -d "$from" ] || fail "go mod download $module@$version gave no directory"

  local out=$tmp/$name keep
  mkdir -p "$out"
  for keep in "$@"; do
    if [ -d "$from/$keep" ]; then
      mkdir -p "$out/$keep"
      find "$from/$keep" -maxdepth 1 -type f \( \( -name '*.go' ! -name '*_test.go' \) \
        -o -name '*.s' -o -name '*.proto' -o -name '*.fbs' -o -name 'LICENSE*' \) \
        -exec cp {} "$out/$keep/" \;
    else
      cp "$from/$keep" "$out/$keep" || fail "$module@$version has no $keep"
    fi
  done
  chmod -R u+w "$out"

  local patch applied=0
  for patch in "$here"/patches/*.patch; do
    [ -e "$patch" ] || continue
    case " ${THIRD_PARTY_SKIP:-} " in
    *" $name/$(basename "$patch" | cut -c1-4) "*)
      echo "third-party: skipping $patch"
      continue
      ;;
    esac
    # git apply as a patch program: the ceiling keeps it from finding a repository
    # around $tmp, inside which it would skip the files without a word.
    (cd "$out" && GIT_CEILING_DIRECTORIES=$tmp git apply -p1 "$OLDPWD/$patch") ||
      fail "$patch does not apply to $module@$version"
    applied=$((applied + 1))
  done

  rm -rf "$here/src"
  mv "$out" "$here/src"
  echo "third-party: $name $version, $applied patches"
}

want=("$@")
for c in "${copies[@]}"; do
  read -r -a args <<<"$c"
  if [ ${#want[@]} -eq 0 ] || printf '%s\n' "${want[@]}" | grep -qx "${args[0]}"; then
    rebuild "${args[@]}"
  fi
done
