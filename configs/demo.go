package configs

import (
	"embed"
	"io/fs"
)

// demoFiles holds configs/demo so that `edged` can run the demo without the
// repository.
//
//go:embed demo
var demoFiles embed.FS

// DemoFS is the demo config: edged.yaml and devices/*.yaml at its root.
func DemoFS() fs.FS {
	sub, err := fs.Sub(demoFiles, "demo")
	if err != nil {
		panic("configs: the embedded demo directory is missing: " + err.Error())
	}
	return sub
}

// Embedded loads the embedded demo config with its state under dataDir. The
// demo runs the in-process broker on 127.0.0.1:18830 and matches the feed of
// `edged simulate`: topics sensors/s-<i>/data.
func Embedded(dataDir string) (*Daemon, error) {
	d, err := LoadFS(DemoFS(), "edged.yaml")
	if err != nil {
		return nil, err
	}
	d.DataDir = dataDir
	return d, nil
}
