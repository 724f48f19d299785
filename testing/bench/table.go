package main

import (
	"fmt"
	"io"
	"log/slog"
	"strings"
)

// row is one line of the table; base is the row its "vs memory" ratio divides by.
type row struct {
	name string
	m    *measurement
	base *measurement
}

// printTable writes the markdown table docs/performance.md documents.
func printTable(w io.Writer, o *options, rows []row, loop *measurement) {
	fmt.Fprintln(w, header(o))
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| run | events/s | vs Go loop | vs memory | CPU s per M events | peak RSS MiB | note |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---|")
	for _, r := range rows {
		vsMemory := ""
		if r.base != nil {
			vsMemory = fmt.Sprintf("%.2f", r.m.rate()/r.base.rate())
		}
		note := r.m.Note
		fmt.Fprintf(w, "| %s | %s | %.2f | %s | %.2f | %.0f | %s |\n",
			r.name, thousands(r.m.rate()), r.m.rate()/loop.rate(), vsMemory, r.m.cpuPerMillion(), r.m.MaxRSS, note)
	}
}

func thousands(f float64) string {
	s := fmt.Sprintf("%.0f", f)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

func discardLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }
