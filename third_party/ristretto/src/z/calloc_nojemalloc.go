// Copyright 2020 The LevelDB-Go and Pebble Authors. All rights reserved. Use
// of this source code is governed by a BSD-style license that can be found in
// the LICENSE file.

//go:build !jemalloc || !cgo
// +build !jemalloc !cgo

package z

import (
	"fmt"
)

// Provides versions of Calloc, CallocNoRef, etc when jemalloc is not available
// (eg: build without jemalloc tag).

// Calloc allocates a slice of size n. A large one is mapped outside the Go heap
// where the platform allows it (see callocMapped) and goes back to the system at
// Free.
func Calloc(n int, tag string) []byte {
	if n >= mappedMin {
		if b := callocMapped(n); b != nil {
			return b
		}
	}
	return make([]byte, n)
}

// CallocNoRef will not give you memory back without jemalloc.
func CallocNoRef(n int, tag string) []byte {
	// We do the add here just to stay compatible with a corresponding Free call.
	return nil
}

// Free returns a slice that Calloc mapped to the system; it does nothing to one
// on the Go heap.
func Free(b []byte) { freeMapped(b) }

func Leaks() string { return "Leaks: Using Go memory" }
func StatsPrint() {
	fmt.Println("Using Go memory")
}

// ReadMemStats doesn't do anything since all the memory is being managed
// by the Go runtime.
func ReadMemStats(_ *MemStats) {}
