module github.com/asynkron/protoactor-go

// Trimmed: only the packages edged imports, so only their requirements.
go 1.21

require (
	github.com/Workiva/go-datastructures v1.1.3
	github.com/emirpasic/gods v1.18.1
	github.com/lithammer/shortuuid/v4 v4.0.0
	github.com/lmittmann/tint v1.0.3
	github.com/orcaman/concurrent-map v1.0.0
	github.com/prometheus/client_golang v1.17.0
	github.com/twmb/murmur3 v1.1.8
	go.opentelemetry.io/otel v1.21.0
	go.opentelemetry.io/otel/exporters/prometheus v0.44.0
	go.opentelemetry.io/otel/metric v1.21.0
	go.opentelemetry.io/otel/sdk/metric v1.21.0
	google.golang.org/protobuf v1.33.0
)
