package configs

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// Load reads the daemon file at path and every device file (*.yaml, *.yml)
// in its devices_dir, in name order, applies defaults and validates them.
// Relative paths in the daemon file (data_dir, devices_dir, TLS files) are
// resolved against the daemon file's directory. The error, if any, is Errors
// holding every problem in every file.
func Load(path string) (*Daemon, error) {
	return load(osFiles{}, path)
}

// LoadFS is Load reading from fsys, such as the embedded demo. DataDir is
// then a path inside fsys, which is useless for state: set it before running.
func LoadFS(fsys fs.FS, path string) (*Daemon, error) {
	return load(fsFiles{fsys}, path)
}

// LoadDevice reads, completes and validates one device file on its own.
func LoadDevice(path string) (*Device, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, unreadable(path, err)
	}
	return ParseDevice(path, data)
}

// ParseDevice is LoadDevice on a file's contents; path only names the file in
// errors.
func ParseDevice(path string, data []byte) (*Device, error) {
	var errs Errors
	dev := decodeDevice(path, data, &errs)
	dev.validate(&errs)
	if err := errs.err(); err != nil {
		return nil, err
	}
	return dev, nil
}

func load(f files, file string) (*Daemon, error) {
	data, err := f.read(file)
	if err != nil {
		return nil, unreadable(file, err)
	}
	var errs Errors
	d := &Daemon{Path: file, pos: newPositions()}
	r := newReport(file, d.pos, &errs)
	root, parsed := parseYAML(r, data)
	if line, ok := deviceFileLine(root); ok {
		r.atLine(line, "device", "this is a device file; --config takes the daemon file, whose devices_dir holds device files like this one")
		return nil, errs
	}
	if root != nil {
		daemonSchema(d)(r, "", root)
	}
	applyDefaults(d)
	for _, p := range []*string{&d.DataDir, &d.DevicesDir, &d.Broker.TLS.CA, &d.Broker.TLS.Cert, &d.Broker.TLS.Key,
		&d.Upstream.TLS.CA, &d.Upstream.TLS.Cert, &d.Upstream.TLS.Key, &d.Broker.PasswordFile, &d.Upstream.PasswordFile,
		&d.Upstream.NATS.TokenFile, &d.Upstream.NATS.NKeySeedFile, &d.Upstream.NATS.CredsFile,
		&d.Fleet.KV.PasswordFile, &d.Fleet.KV.TokenFile, &d.Fleet.KV.NKeySeedFile, &d.Fleet.KV.CredsFile,
		&d.Fleet.KV.TLS.CA, &d.Fleet.KV.TLS.Cert, &d.Fleet.KV.TLS.Key} {
		if *p != "" {
			*p = f.resolve(file, *p)
		}
	}
	readPasswords(f, r, d)

	// Without a readable daemon file devices_dir is a guess; reporting its
	// devices would only add noise.
	if parsed {
		d.Devices = loadDevices(f, d.DevicesDir, d.Fleet.KV.Enabled(), r, &errs)
	}
	d.validate(&errs)
	if err := errs.err(); err != nil {
		return nil, err
	}
	return d, nil
}

// deviceFileLine says whether a parsed daemon file is in fact a device file (it
// has a top-level device key), the usual mix-up, and the line of that key.
func deviceFileLine(root *yaml.Node) (int, bool) {
	if root == nil || root.Kind != yaml.MappingNode {
		return 0, false
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		if k := root.Content[i]; k.Value == "device" {
			return k.Line, true
		}
	}
	return 0, false
}

// loadDevices decodes every device file in dir, in name order. The dir may be
// empty when a fleet bucket supplies device files (emptyOK).
func loadDevices(f files, dir string, emptyOK bool, r *report, errs *Errors) []*Device {
	names, err := f.list(dir)
	switch {
	case err != nil:
		r.at("devices_dir", "cannot list the device files in %s: %v", dir, cause(err))
	case len(names) == 0 && !emptyOK:
		r.at("devices_dir", "%s holds no device files (*.yaml, *.yml)", dir)
	}
	var devs []*Device
	for _, name := range names {
		file := f.join(dir, name)
		data, err := f.read(file)
		if err != nil {
			*errs = append(*errs, unreadable(file, err)...)
			continue
		}
		devs = append(devs, decodeDevice(file, data, errs))
	}
	return devs
}

// decodeDevice decodes a device file and applies its defaults; problems go
// to errs and the device is returned as far as it could be read.
func decodeDevice(file string, data []byte, errs *Errors) *Device {
	dev := &Device{Path: file, pos: newPositions()}
	r := newReport(file, dev.pos, errs)
	root, parsed := parseYAML(r, data)
	if root != nil {
		deviceSchema(dev)(r, "", root)
	}
	dev.unparsed = !parsed
	dev.Line = dev.pos["device"]
	applyDeviceDefaults(dev)
	return dev
}

func unreadable(file string, err error) Errors {
	return Errors{{File: file, Reason: "cannot read the file: " + cause(err).Error()}}
}

// cause drops the path a fs.PathError repeats, since errors already name it.
func cause(err error) error {
	if pe, ok := errors.AsType[*fs.PathError](err); ok {
		return pe.Err
	}
	return err
}

// files abstracts where config files come from: the OS or an fs.FS.
type files interface {
	read(name string) ([]byte, error)
	list(dir string) ([]string, error) // *.yaml and *.yml names, sorted
	join(dir, name string) string
	resolve(base, p string) string // p relative to base's directory
}

type osFiles struct{}

func (osFiles) read(name string) ([]byte, error) { return os.ReadFile(name) }
func (osFiles) list(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	return yamlNames(entries), err
}
func (osFiles) join(dir, name string) string { return filepath.Join(dir, name) }
func (osFiles) resolve(base, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(filepath.Dir(base), p)
}

type fsFiles struct{ fsys fs.FS }

func (f fsFiles) read(name string) ([]byte, error) { return fs.ReadFile(f.fsys, name) }
func (f fsFiles) list(dir string) ([]string, error) {
	entries, err := fs.ReadDir(f.fsys, dir)
	return yamlNames(entries), err
}
func (fsFiles) join(dir, name string) string { return path.Join(dir, name) }
func (fsFiles) resolve(base, p string) string {
	return path.Join(path.Dir(base), p)
}

func yamlNames(entries []fs.DirEntry) []string {
	var names []string
	for _, e := range entries {
		if !e.IsDir() && (strings.HasSuffix(e.Name(), ".yaml") || strings.HasSuffix(e.Name(), ".yml")) {
			names = append(names, e.Name())
		}
	}
	slices.Sort(names)
	return names
}
