# Ludus Profiling: the two commands of the README, and a few more.
#   make demo   build, run the demo, write a trace and print a summary
#   make test   build and run every test (plain, ASan+UBSan, TSan) through ctest
BUILD ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=

.PHONY: all deps build demo test test-plain test-asan test-tsan test-viewers bench bench-callgrind clean

all: build

# Installs missing Debian packages (cmake, compilers, test framework) and says so.
deps:
	@./scripts/ensure-deps.sh

build: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

demo: build
	@$(BUILD)/examples/ludus-demo --trace $(BUILD)/ludus-demo.json

test: test-plain test-asan test-tsan

test-plain: build
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

test-asan: deps
	@cmake -S . -B $(BUILD)-asan -DCMAKE_BUILD_TYPE=Debug -DLUDUS_SANITIZE=address,undefined -DLUDUS_BUILD_BENCH=OFF >/dev/null
	@cmake --build $(BUILD)-asan -j $(JOBS)
	@cd $(BUILD)-asan && ctest --output-on-failure -j $(JOBS)

test-tsan: deps
	@cmake -S . -B $(BUILD)-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLUDUS_SANITIZE=thread -DLUDUS_BUILD_BENCH=OFF >/dev/null
	@cmake --build $(BUILD)-tsan -j $(JOBS)
	@cd $(BUILD)-tsan && ctest --output-on-failure -L concurrency -j $(JOBS)

# Loads the demo's trace into Chromium DevTools, speedscope and the DevTools
# trace engine (needs chromium and npm; scripts/ensure-viewer-deps.sh installs them).
test-viewers: build
	@./scripts/ensure-viewer-deps.sh
	@$(BUILD)/examples/ludus-demo --trace $(BUILD)/viewer-trace.json --frames 40 >/dev/null
	@node tests/viewers/check-viewers.mjs $(BUILD)/viewer-trace.json

bench: build
	@./bench/run.sh $(BUILD)

bench-callgrind: build
	@./bench/callgrind.sh $(BUILD)

clean:
	rm -rf $(BUILD) $(BUILD)-asan $(BUILD)-tsan
