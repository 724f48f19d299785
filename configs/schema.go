package configs

import "gopkg.in/yaml.v3"

// The schemas below are the file formats: each key a file may hold and the
// field it fills. Anything else in a file is an unknown-field error.

func daemonSchema(c *Daemon) binder {
	return mapping(
		field{"data_dir", str(&c.DataDir)},
		field{"durability", str(&c.Durability)},
		field{"commit_interval", duration(&c.CommitInterval)},
		field{"commit_on_result", boolean(&c.CommitOnResult)},
		field{"dedup_ttl", duration(&c.DedupTTL)},
		field{"devices_dir", str(&c.DevicesDir)},
		field{"log", mapping(
			field{"format", str(&c.Log.Format)},
			field{"level", str(&c.Log.Level)},
		)},
		field{"http", mapping(
			field{"listen", str(&c.HTTP.Listen)},
		)},
		field{"metrics", mapping(
			field{"per_topic", boolean(&c.Metrics.PerTopic)},
		)},
		field{"limits", mapping(
			field{"max_inflight", integer(&c.Limits.MaxInflight)},
			field{"max_payload", sizeInt(&c.Limits.MaxPayload)},
			field{"min_free_disk", size(&c.Limits.MinFreeDisk)},
			field{"max_key_bytes", sizeInt(&c.Limits.MaxKeyBytes)},
			field{"max_keys_per_window", integer(&c.Limits.MaxKeysPerWindow)},
			field{"stream_retention", duration(&c.Limits.StreamRetention)},
			field{"memory", size(&c.Limits.Memory)},
		)},
		field{"broker", mapping(
			field{"url", str(&c.Broker.URL)},
			field{"listen", str(&c.Broker.Listen)},
			field{"client_id", str(&c.Broker.ClientID)},
			field{"username", str(&c.Broker.Username)},
			field{"password", str(&c.Broker.Password)},
			field{"password_file", str(&c.Broker.PasswordFile)},
			field{"tls", tlsSchema(&c.Broker.TLS)},
			field{"keepalive", duration(&c.Broker.KeepAlive)},
		)},
		field{"upstream", mapping(append([]field{
			field{"url", str(&c.Upstream.URL)},
			field{"client_id", str(&c.Upstream.ClientID)},
			field{"username", str(&c.Upstream.Username)},
			field{"password", str(&c.Upstream.Password)},
			field{"password_file", str(&c.Upstream.PasswordFile)},
			field{"tls", tlsSchema(&c.Upstream.TLS)},
			field{"topic_prefix", str(&c.Upstream.TopicPrefix)},
			field{"batch", mapping(
				field{"max_records", integer(&c.Upstream.Batch.MaxRecords)},
				field{"max_delay", duration(&c.Upstream.Batch.MaxDelay)},
			)},
			field{"max_rate", number(&c.Upstream.MaxRate)},
			field{"outbox", mapping(
				field{"max_bytes", size(&c.Upstream.Outbox.MaxBytes)},
				field{"when_full", str(&c.Upstream.Outbox.WhenFull)},
			)},
		}, natsSchema(&c.Upstream.NATS)...)...)},
		field{"fleet", fleetSchema(&c.Fleet.KV)},
	)
}

func tlsSchema(t *TLS) binder {
	return mapping(
		field{"ca", str(&t.CA)},
		field{"cert", str(&t.Cert)},
		field{"key", str(&t.Key)},
		field{"insecure_skip_verify", boolean(&t.InsecureSkipVerify)},
	)
}

func deviceSchema(d *Device) binder {
	return mapping(
		field{"device", str(&d.ID)},
		field{"streams", list(func(_ int, n *yaml.Node) binder {
			s := &Stream{Key: Key{TopicSegment: -1}, Line: n.Line}
			d.Streams = append(d.Streams, s)
			return streamSchema(s)
		})},
		field{"windows", list(func(_ int, n *yaml.Node) binder {
			w := &Window{Line: n.Line}
			d.Windows = append(d.Windows, w)
			return windowSchema(w)
		})},
	)
}

func streamSchema(s *Stream) binder {
	return mapping(
		field{"name", str(&s.Name)},
		field{"topic", str(&s.Topic)},
		field{"format", str(&s.Format)},
		field{"qos", qos(&s.QoS)},
		field{"timestamp", mapping(
			field{"field", str(&s.Timestamp.Field)},
			field{"unit", str(&s.Timestamp.Unit)},
		)},
		field{"key", mapping(
			field{"field", str(&s.Key.Field)},
			field{"topic_segment", integer(&s.Key.TopicSegment)},
		)},
		field{"watermark", mapping(
			field{"strategy", str(&s.Watermark.Strategy)},
			field{"max_out_of_orderness", duration(&s.Watermark.MaxOutOfOrderness)},
			field{"field", str(&s.Watermark.Field)},
			field{"interval", duration(&s.Watermark.Interval)},
			field{"idle_timeout", duration(&s.Watermark.IdleTimeout)},
			field{"idle_mode", str(&s.Watermark.IdleMode)},
			field{"max_future_skew", duration(&s.Watermark.MaxFutureSkew)},
		)},
	)
}

func windowSchema(w *Window) binder {
	return mapping(
		field{"name", str(&w.Name)},
		field{"stream", str(&w.Stream)},
		field{"type", str(&w.Type)},
		field{"size", duration(&w.Size)},
		field{"slide", duration(&w.Slide)},
		field{"gap", duration(&w.Gap)},
		field{"offset", duration(&w.Offset)},
		field{"allowed_lateness", duration(&w.AllowedLateness)},
		field{"accumulation", str(&w.Accumulation)},
		field{"early", duration(&w.Early)},
		field{"passivate_after", duration(&w.PassivateAfter)},
		field{"aggregates", strs(&w.Aggregates)},
		field{"output", mapping(
			field{"topic", str(&w.Output.Topic)},
			field{"qos", qos(&w.Output.QoS)},
		)},
		field{"late", str(&w.Late)},
		field{"upstream_results", boolean(&w.UpstreamResults)},
	)
}
