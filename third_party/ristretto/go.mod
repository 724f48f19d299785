module github.com/dgraph-io/ristretto/v2

go 1.23.0

require (
	github.com/cespare/xxhash/v2 v2.3.0
	github.com/dustin/go-humanize v1.0.1
	golang.org/x/sys v0.31.0
)
