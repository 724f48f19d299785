package table

import (
	"bufio"
	"fmt"
	"os"

	"github.com/dgraph-io/badger/v4/y"
	"github.com/dgraph-io/ristretto/v2/z"
)

// A builder can write its table to the file block by block. Badger's builder
// holds every block of a table in its allocator until CreateTable copies them into a
// mapping of the new file: at each flush that is the memtable's size in anonymous
// memory plus as much again in file pages, at the moment the process's memory peaks
// (two memtables exist). Streamed, the builder holds the block it is filling and
// each block's base key for the index. Only a table that is neither compressed nor
// encrypted streams: its blocks are final when finished, in order; the others are
// finished by goroutines.

// streamBuffer is how much of a streamed table is written at once.
const streamBuffer = 64 << 10

// tableFile is the file a streaming builder writes to. It is created with the first
// finished block, so a builder that stays empty leaves no file.
type tableFile struct {
	name   string
	f      *os.File
	w      *bufio.Writer
	size   int
	err    error // the first failure; what follows is not written
	opened bool  // CreateTable handed the file to the table
}

// StreamTo makes b write its table to a new file named fname as it builds it, if
// the table is neither compressed nor encrypted; CreateTable(fname, b) completes and
// opens it. Close removes the file if CreateTable did not open it.
func (b *Builder) StreamTo(fname string) {
	if b.blockChan != nil {
		return
	}
	b.out = &tableFile{name: fname}
}

// streamBlock writes the block just finished and keeps its buffers for the next
// one: the index needs only its base key and size.
func (b *Builder) streamBlock() {
	bl := b.curBlock
	b.out.write(bl.data[:bl.end])
	b.spare = bblock{data: bl.data, entryOffsets: bl.entryOffsets[:0]}
	bl.data, bl.entryOffsets = nil, nil
}

// nextBlock is the block that follows a finished one.
func (b *Builder) nextBlock() *bblock {
	if b.spare.data != nil {
		next := &bblock{data: b.spare.data, entryOffsets: b.spare.entryOffsets}
		b.spare = bblock{}
		return next
	}
	return &bblock{data: b.alloc.Allocate(b.opts.BlockSize + padding)}
}

func (t *tableFile) write(p []byte) {
	if t.err != nil {
		return
	}
	if t.f == nil {
		f, err := os.OpenFile(t.name, os.O_CREATE|os.O_RDWR|os.O_EXCL, 0666)
		if err != nil {
			t.err = y.Wrapf(err, "while creating table: %s", t.name)
			return
		}
		t.f, t.w = f, bufio.NewWriterSize(f, streamBuffer)
	}
	n, err := t.w.Write(p)
	t.size += n
	if err != nil {
		t.err = y.Wrapf(err, "while writing table: %s", t.name)
	}
}

// createStreamed writes the index after the blocks, syncs the file and opens the
// table, as CreateTable does for a table built in memory.
func createStreamed(fname string, b *Builder) (*Table, error) {
	t := b.out
	if fname != t.name {
		return nil, fmt.Errorf("table built for %s cannot be created as %s", t.name, fname)
	}
	bd := b.Done()
	t.write(bd.index)
	t.write(y.U32ToBytes(uint32(len(bd.index))))
	t.write(bd.checksum)
	t.write(y.U32ToBytes(uint32(len(bd.checksum))))
	if t.err == nil {
		if err := t.w.Flush(); err != nil {
			t.err = y.Wrapf(err, "while writing table: %s", fname)
		}
	}
	if t.err == nil && t.size != bd.Size {
		t.err = fmt.Errorf("table %s: wrote %d bytes, its index accounts for %d", fname, t.size, bd.Size)
	}
	if t.err == nil {
		if err := t.f.Sync(); err != nil {
			t.err = y.Wrapf(err, "while syncing table: %s", fname)
		}
	}
	if t.err != nil {
		return nil, t.err
	}
	mf, err := z.OpenMmapFileUsing(t.f, 0, true)
	if err != nil {
		return nil, y.Wrapf(err, "while mapping table: %s", fname)
	}
	t.opened = true
	return OpenTable(mf, *b.opts)
}

// discard removes the file of a table that was not opened.
func (t *tableFile) discard() {
	if t.opened || t.f == nil {
		return
	}
	_ = t.f.Close()
	_ = os.Remove(t.name)
}
