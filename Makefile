# Thin wrapper around CMake. Every target first installs missing Debian
# packages (scripts/install-deps.sh), then configures and builds.
#   make run    build (Release), run the built-in demo scenario, plot it
#   make test   build (Release) and run the whole test suite with ctest
#   make bench  build (Release) and run the benchmarks
#   make asan   build with ASan+UBSan and run the test suite
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
BUILD := build/release
ASAN_BUILD := build/asan

.PHONY: all deps build run test bench asan clean

all: build

deps:
	@./scripts/install-deps.sh

$(BUILD)/CMakeCache.txt: | deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release

build: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

# Debian's interpreter, which has python3-matplotlib and python3-pandas.
PYTHON := /usr/bin/python3

run: build
	./$(BUILD)/cli/goodsim run --out out/demo
	@echo "plots:"
	@$(PYTHON) analysis/plot_run.py out/demo

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

bench: build
	./$(BUILD)/bench/goodsim_bench

asan: deps
	cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGOODSIM_SANITIZE=ON -DGOODSIM_BUILD_BENCH=OFF
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	cd $(ASAN_BUILD) && ctest --output-on-failure -j $(JOBS)

clean:
	rm -rf build
