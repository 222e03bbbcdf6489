# The two commands of README.md: `make test` and `make bench`.  Each installs
# missing build dependencies (apt-get, as root), configures and builds first.
BUILD ?= build
MESON_ARGS ?=
BENCH_ARGS ?=

.PHONY: all deps build test bench clean

all: build

deps:
	@sh scripts/install-deps.sh

$(BUILD)/build.ninja:
	meson setup $(BUILD) $(MESON_ARGS)

build: deps $(BUILD)/build.ninja
	ninja -C $(BUILD)

test: build
	sh tests/run.sh $(BUILD)

bench: build
	$(BUILD)/bench/uvfs-bench --lib $(BUILD)/libuvfs.so --baseline-lib $(BUILD)/libuvfs-baseline.so \
		--out bench-results $(BENCH_ARGS)

clean:
	rm -rf $(BUILD) build-asan bench-results
