package fleet

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/edged/edged/configs"
)

// copyName is the last good copy of the fleet's device files in data_dir:
// the gateway starts with it when the bucket cannot be reached.
const copyName = "fleet-devices.json"

// Copy is what the copy holds: the bucket it came from and the device files
// applied, by key.
type Copy struct {
	Bucket   string  `json:"bucket"`
	Prefix   string  `json:"prefix"`
	Host     string  `json:"host"`
	Revision uint64  `json:"revision"`
	Files    []Entry `json:"files"`
}

// Entry is one device file of the bucket: its key and the revision of it.
type Entry struct {
	Key      string `json:"key"`
	Revision uint64 `json:"revision"`
	Data     string `json:"data"`

	dev *configs.Device
}

// readCopy reads the copy in dir. A copy of another bucket, prefix or host,
// or one that no longer validates, is not used: the error says why. No copy is
// no error.
func readCopy(dir string, k configs.FleetKV) (*Copy, error) {
	path := filepath.Join(dir, copyName)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var c Copy
	if err := json.Unmarshal(data, &c); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if c.Bucket != k.Bucket || c.Prefix != k.Prefix || c.Host != k.Host {
		return nil, fmt.Errorf("%s holds the device files of bucket %s, prefix %s, host %s, not those of fleet.kv", path, c.Bucket, c.Prefix, c.Host)
	}
	for i := range c.Files {
		e := &c.Files[i]
		if e.dev, err = configs.ParseDevice(e.Key, []byte(e.Data)); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	return &c, nil
}

// WriteCopy replaces the copy in dir whole: written aside, synced, renamed.
func WriteCopy(dir string, c *Copy) error {
	data, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return err
	}
	path := filepath.Join(dir, copyName)
	tmp, err := os.CreateTemp(dir, copyName+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // after the rename, there is nothing to remove
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// DevicesKept is the fleet's device files as the gateway last applied them,
// for commands that must know every configured device (prune). Without a usable
// copy it is an error: the fleet's devices cannot be told apart from removed ones.
func DevicesKept(cfg *configs.Daemon) ([]*configs.Device, error) {
	c, err := readCopy(cfg.DataDir, cfg.Fleet.KV)
	if err != nil {
		return nil, fmt.Errorf("cannot tell which devices the fleet bucket configures: %w", err)
	}
	if c == nil {
		return nil, nil
	}
	var devs []*configs.Device
	for _, e := range c.Files {
		devs = append(devs, e.dev)
	}
	return devs, nil
}
