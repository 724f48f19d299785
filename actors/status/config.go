package status

// ConfigStatus is the "config" block of /status: which config runs and how the
// last reload went.
type ConfigStatus struct {
	// Generation counts the configs applied: 1 is the one edged started with.
	Generation int64 `json:"generation"`
	AppliedAt  int64 `json:"applied_at"` // ms since the epoch
	Devices    int   `json:"devices"`
	// LastReload is the outcome of the latest reload: applied, refused or
	// needs_restart; "" before the first.
	LastReload   string   `json:"last_reload,omitempty"`
	LastReloadAt int64    `json:"last_reload_at,omitempty"`
	LastError    string   `json:"last_error,omitempty"` // of the latest reload not applied
	NeedsRestart []string `json:"needs_restart,omitempty"`
	LastTookMS   int64    `json:"last_took_ms,omitempty"` // the latest applied reload
	// LastHeldMS is how long, of that, the messages of the devices replaced waited.
	LastHeldMS int64 `json:"last_held_ms,omitempty"`

	// Fleet is, with fleet.kv, the bucket revision running.
	Fleet *FleetStatus `json:"fleet,omitempty"`
}

// FleetStatus is the fleet block of /status's config: which revision of the fleet
// bucket's device files runs, and the latest one ignored.
type FleetStatus struct {
	Bucket string `json:"bucket"`
	Host   string `json:"host"`
	// Revision is the bucket revision of the device files applied: the highest
	// revision among this gateway's keys and the shared ones; 0 before the first.
	Revision  uint64 `json:"revision"`
	AppliedAt int64  `json:"applied_at,omitempty"` // ms since the epoch
	// FromDisk: the device files run from the last good copy in data_dir; the
	// bucket has not been read since the start.
	FromDisk bool            `json:"from_disk,omitempty"`
	Rejected *FleetRejection `json:"rejected,omitempty"`
}

// FleetRejection is a revision of the bucket that was not applied; the config
// applied before it stays.
type FleetRejection struct {
	Revision uint64 `json:"revision"`
	Error    string `json:"error"` // key:line: field: reason, as for a local file
	At       int64  `json:"at"`
}
