# The two commands of README.md: `make test` and `make bench`.  Each installs
# missing build dependencies (apt-get, as root), configures and builds first.
BUILD ?= build
MESON_ARGS ?=
BENCH_ARGS ?=
BENCH_FUSE ?= auto
BENCH_REPLAY ?= yes
BENCH_WORKLOAD ?= yes

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

# As root with a usable /dev/fuse, bench/run-bench.sh also mounts a uvfs-fuse
# for the target uvfs-fuse (threads, 1 worker) and unmounts it afterwards;
# BENCH_FUSE=no runs without it.  Then the replays of bench/traces/
# (uvfs-bench replay); BENCH_REPLAY=no skips them.  Then, as root with FUSE,
# the workload bench (bench/workload/workload.sh); BENCH_WORKLOAD=no skips it.
bench: build
	BENCH_FUSE=$(BENCH_FUSE) BENCH_REPLAY=$(BENCH_REPLAY) BENCH_WORKLOAD=$(BENCH_WORKLOAD) \
		sh bench/run-bench.sh $(BUILD) $(BENCH_ARGS)

clean:
	rm -rf $(BUILD) build-asan bench-results
