# Thin wrapper around CMake. Every target first installs missing Debian
# packages (scripts/install-deps.sh), then configures and builds.
#   make run    build the goodsim binary only (Release), run the built-in demo, plot it
#   make test   build everything (Release) and run the whole test suite with ctest
#   make bench  build (Release) and run the benchmarks (BENCH_FILTER=hold: one of them);
#               prints each figure beside its target, writes $(BUILD)/bench/results.json,
#               and succeeds whatever the figures (a slow machine is not a failure)
#   make bench-check  the same, but exit 1 when a figure missed its target
#   make validation  build (Release), run the validation suite (scenarios/validation/),
#               print its table and rewrite docs/validation.md; exit 1 on a failed case
#   make asan   build everything with clang, AddressSanitizer + UBSan and warnings as
#               errors, and run the test suite (the Python module is built but not
#               loaded: an instrumented extension cannot load into /usr/bin/python3)
#   make clang  a clang Release build of everything, warnings as errors, unit tests
#   make fuzz   build the libFuzzer targets with clang and run each for FUZZ_SECONDS
#               on the seed corpus of tests/fuzz/corpus (findings: build/fuzz/findings)
#   make soak   the random-scenario property test over SOAK_SCENARIOS scenarios
# WERROR=ON turns compiler warnings into errors (CI: make test WERROR=ON).
# UNITY=ON (the default) compiles sources in unity batches, the fastest from-scratch
# build; UNITY=OFF recompiles only the changed file on a rebuild.
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
WERROR ?= OFF
UNITY ?= ON
BUILD := build/release
ASAN_BUILD := build/asan
CLANG_BUILD := build/clang
FUZZ_BUILD := build/fuzz
FUZZ_SECONDS ?= 60
FUZZ_TARGETS := fuzz_scenario_loader fuzz_trace_parser fuzz_command_line
SOAK_SCENARIOS ?= 10000
CONFIGURE = cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DGOODSIM_WERROR=$(WERROR) \
  -DGOODSIM_UNITY=$(UNITY)

.PHONY: all deps build build-goodsim run test bench bench-check validation calibrate-paper asan-build asan clang fuzz soak clean

all: build

deps:
	@./scripts/install-deps.sh

build: deps
	$(CONFIGURE)
	cmake --build $(BUILD) -j $(JOBS)

# Only what the demo needs: the binary and the libraries under it.
build-goodsim: deps
	$(CONFIGURE)
	cmake --build $(BUILD) -j $(JOBS) --target goodsim

# Debian's interpreter, which has python3-matplotlib and python3-pandas.
PYTHON := /usr/bin/python3

run: build-goodsim
	./$(BUILD)/cli/goodsim run --out out/demo
	@echo "plots:"
	@$(PYTHON) analysis/plot_run.py out/demo

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

BENCH_ARGS = $(if $(BENCH_FILTER),--filter $(BENCH_FILTER)) --json $(BUILD)/bench/results.json

bench: build
	./$(BUILD)/bench/goodsim_bench $(BENCH_ARGS)

bench-check: build
	./$(BUILD)/bench/goodsim_bench $(BENCH_ARGS) --check

validation: build
	$(PYTHON) scripts/validation.py $(BUILD)/cli/goodsim --jobs $(JOBS)

# The Decoupled DiLoCo paper's Table 1: the recovery structure and knobs from its eight
# calibration cells (scenarios/validation/paper-table1.csv); docs/validation.md.
calibrate-paper: build
	GOODSIM=$(BUILD)/cli/goodsim JOBS=$(JOBS) scripts/calibrate_paper.sh

# One build serves the sanitizers and the second compiler: clang, ASan + UBSan,
# warnings as errors. -O1 -g1: the optimisation ASan recommends, with the line
# tables its reports need in goodsim's code. The test files are instrumented the
# same way but compile without line tables (-g0: 12% less compile time); their
# frames in a report show the test's function, and Catch2 names the file and line.
asan-build: deps
	cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
	  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" -DGOODSIM_SANITIZE=ON \
	  -DGOODSIM_TEST_OPT="-O1;-g0" -DGOODSIM_WERROR=ON -DGOODSIM_UNITY=$(UNITY)
	cmake --build $(ASAN_BUILD) -j $(JOBS)

asan: asan-build
	cd $(ASAN_BUILD) && LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp \
	  ctest --output-on-failure -j $(JOBS) -LE long

clang: deps
	cmake -S . -B $(CLANG_BUILD) -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=clang++ -DGOODSIM_WERROR=ON \
	  -DGOODSIM_UNITY=$(UNITY)
	cmake --build $(CLANG_BUILD) -j $(JOBS)
	cd $(CLANG_BUILD) && ctest --output-on-failure -j $(JOBS) -L unit

# Each target runs on a scratch copy of its seed corpus, so the tree is never modified.
# libFuzzer stops at the first finding (exit code != 0) and leaves it in findings/.
fuzz:
	./scripts/install-deps.sh clang libclang-rt-14-dev
	cmake -S . -B $(FUZZ_BUILD) -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DGOODSIM_FUZZ=ON -DGOODSIM_BUILD_TESTS=OFF -DGOODSIM_BUILD_BENCH=OFF
	cmake --build $(FUZZ_BUILD) -j $(JOBS) --target $(FUZZ_TARGETS)
	@set -e; for t in $(FUZZ_TARGETS); do \
	  corpus=tests/fuzz/corpus/$${t#fuzz_}; work=$(FUZZ_BUILD)/corpus/$$t; \
	  mkdir -p $$work $(FUZZ_BUILD)/findings; cp -r $$corpus/. $$work/; \
	  echo "fuzz: $$t for $(FUZZ_SECONDS) s"; \
	  ./$(FUZZ_BUILD)/tests/fuzz/$$t $$work -max_total_time=$(FUZZ_SECONDS) -timeout=1 \
	    -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
	    -artifact_prefix=$(FUZZ_BUILD)/findings/$$t- ; \
	done

soak: build
	GOODSIM_SOAK_SCENARIOS=$(SOAK_SCENARIOS) ./$(BUILD)/tests/goodsim_tests "[soak]"

clean:
	rm -rf build
