# Thin wrapper around CMake. Every target first installs missing Debian
# packages (scripts/install-deps.sh), then configures and builds.
#   make run    build (Release), run the built-in demo scenario, plot it
#   make test   build (Release) and run the whole test suite with ctest
#   make bench  build (Release) and run the benchmarks
#   make asan   build with ASan+UBSan and run the test suite
#   make clang  build everything with clang, warnings as errors, run the unit tests
# WERROR=ON turns compiler warnings into errors (CI: make test WERROR=ON).
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
WERROR ?= OFF
BUILD := build/release
ASAN_BUILD := build/asan
CLANG_BUILD := build/clang

.PHONY: all deps build run test bench asan clang clean

all: build

deps:
	@./scripts/install-deps.sh

build: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DGOODSIM_WERROR=$(WERROR)
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

clang: deps
	cmake -S . -B $(CLANG_BUILD) -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=clang++ -DGOODSIM_WERROR=ON
	cmake --build $(CLANG_BUILD) -j $(JOBS)
	cd $(CLANG_BUILD) && ctest --output-on-failure -j $(JOBS) -L unit

clean:
	rm -rf build
