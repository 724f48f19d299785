# The two commands a new user needs: `make run` (the demo) and `make test`.
GO ?= go

.PHONY: run test bench lint build fuzz

## run: the self-contained demo (embedded broker, simulated sensors, live results)
run: build
	@./bin/edged demo

## test: every test, with the race detector (end-to-end suites need mosquitto)
test: lint
	$(GO) test -race -count=1 -timeout 20m ./...

## bench: edged's benchmark table (replay, live MQTT, persistence) plus go benchmarks
bench:
	$(GO) run ./testing/bench

## lint: formatting and vet
lint:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...

## build: the edged binary in ./bin
build:
	$(GO) build -o bin/edged ./cmd/edged

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
