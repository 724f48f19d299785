# The two commands a new user needs: `make run` (the demo) and `make test`.
GO ?= go

.PHONY: run test test-long bench ekuiper soak lint build fuzz dist pgo third-party

## run: the self-contained demo (embedded broker, simulated sensors, live results)
run: build
	@./bin/edged demo

## test: lint, then every test but the long ones, with the race detector (a few
## minutes; end-to-end suites need mosquitto)
# -pgo=off: the profile (cmd/edged/default.pgo) changes speed, not behaviour, and with it
# the tests of cmd/edged and testing/bench would compile every dependency a second time;
# the end-to-end suites build and run the optimized binary.
# The long tests (testing/longtest) are all named TestLong...: test skips them by
# name and test-long runs exactly those, so the two targets together run every test.
# Not -short: rapid's property tests would run a fifth of their cases.
# The end-to-end suites and actors, the longest packages, come first so that go test
# starts them first and runs the short packages beside them.
test: lint
	$(GO) test -race -count=1 -pgo=off -skip '^TestLong' -timeout 20m ./testing/e2e ./actors ./...

## test-long: the long tests only (TestLong...: the kill -9 drill, the broker killed
## under load, the key flood, the upstream backlog drain, the tag-churn soak and the
## 16-feed passivation property; end-to-end suites need mosquitto)
test-long:
	$(GO) test -race -count=1 -pgo=off -run '^TestLong' -timeout 30m ./testing/e2e ./...

## bench: edged's benchmark table (replay, live MQTT, persistence) plus go benchmarks
bench:
	$(GO) run ./testing/bench

## ekuiper: build LF Edge eKuiper 2.4.0 (the peer) into .cache/ekuiper; then
## `go run ./testing/bench -only low -ekuiper .cache/ekuiper` runs it beside edged
ekuiper:
	sh testing/bench/ekuiper-build.sh .cache/ekuiper

## soak: a simulated week of a site replayed day by day (one edged replay, one restart,
## a day) into one data dir, checked against the oracle; SOAKFLAGS sizes it (-h lists them)
soak:
	$(GO) run ./testing/soak $(SOAKFLAGS)

## pgo: regenerate cmd/edged/default.pgo, the CPU profile `go build` optimizes edged
## with: the bench's live trials at QoS 0 and 1 (needs mosquitto) and BenchmarkReplay
pgo:
	@d=$$(mktemp -d); \
	$(GO) run ./testing/bench -only cpu -cpuprofile $$d/live && \
	$(GO) test -run '^$$' -bench '^BenchmarkReplay$$' -benchtime 5x -cpuprofile $$d/replay.pprof -o $$d/actors.test ./actors/ && \
	$(GO) tool pprof -proto $$d/*.pprof > $$d/default.pgo && mv $$d/default.pgo cmd/edged/default.pgo; \
	s=$$?; rm -rf $$d; exit $$s

## lint: formatting and vet (third_party/ is upstream's code, formatted as upstream has it)
lint:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' ':!third_party' 2>/dev/null || find . -name '*.go' -not -path './third_party/*')); \
	if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...

## third-party: rebuild third_party/*/src, the forked dependencies, from the upstream
## releases in the module cache and their patches (see third_party/README.md)
third-party:
	./third_party/rebuild.sh

## build: the edged binary in ./bin
build:
	$(GO) build -o bin/edged ./cmd/edged

## dist: release binaries (linux amd64, arm64, armv7), .deb packages and SHA256SUMS in dist/
# A release version comes from a v* tag; without one it is 0.0.0~git<commit>. nfpm is
# pinned in tools/go.mod, a module of its own, so edged's go.mod lists only what edged
# links and tests.
VERSION ?= $(shell git describe --tags --match 'v[0-9]*' --dirty 2>/dev/null | sed 's/^v//' | grep . || echo 0.0.0~git$$(git rev-parse --short HEAD))
LDFLAGS := -s -w -X github.com/edged/edged/actors.Version=$(VERSION)
dist:
	rm -rf dist && mkdir -p dist
	CGO_ENABLED=0 GOOS=linux GOARCH=amd64 $(GO) build -trimpath -buildvcs=true -ldflags '$(LDFLAGS)' -o dist/edged-linux-amd64 ./cmd/edged
	CGO_ENABLED=0 GOOS=linux GOARCH=arm64 $(GO) build -trimpath -buildvcs=true -ldflags '$(LDFLAGS)' -o dist/edged-linux-arm64 ./cmd/edged
	CGO_ENABLED=0 GOOS=linux GOARCH=arm GOARM=7 $(GO) build -trimpath -buildvcs=true -ldflags '$(LDFLAGS)' -o dist/edged-linux-armv7 ./cmd/edged
	ARCH=amd64 DEBARCH=amd64 VERSION=$(VERSION) $(GO) tool -modfile=tools/go.mod nfpm package -f packaging/nfpm.yaml -p deb -t dist/
	ARCH=arm64 DEBARCH=arm64 VERSION=$(VERSION) $(GO) tool -modfile=tools/go.mod nfpm package -f packaging/nfpm.yaml -p deb -t dist/
	ARCH=armv7 DEBARCH=armhf VERSION=$(VERSION) $(GO) tool -modfile=tools/go.mod nfpm package -f packaging/nfpm.yaml -p deb -t dist/
	cd dist && sha256sum edged-linux-* *.deb > SHA256SUMS

## fuzz: a short fuzzing pass over every decoder (FUZZTIME each)
FUZZTIME ?= 15s
fuzz:
	$(GO) test ./mqtt -run '^$$' -fuzz '^FuzzExtract$$' -fuzztime $(FUZZTIME)
	$(GO) test ./mqtt -run '^$$' -fuzz '^FuzzScaleDecimal$$' -fuzztime $(FUZZTIME)
	$(GO) test ./mqtt -run '^$$' -fuzz '^FuzzEscapeLevel$$' -fuzztime $(FUZZTIME)
	$(GO) test ./windows -run '^$$' -fuzz '^FuzzDecodeAccumulator$$' -fuzztime $(FUZZTIME)
	$(GO) test ./windows -run '^$$' -fuzz '^FuzzRestore$$' -fuzztime $(FUZZTIME)
	$(GO) test ./persist -run '^$$' -fuzz '^FuzzDecodeGeneratorState$$' -fuzztime $(FUZZTIME)
	$(GO) test ./persist -run '^$$' -fuzz '^FuzzDecodeValve$$' -fuzztime $(FUZZTIME)
	$(GO) test ./persist -run '^$$' -fuzz '^FuzzKeyReader$$' -fuzztime $(FUZZTIME)
