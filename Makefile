# Ludus Profiling: the two commands of the README, and a few more.
#   make        build the library, ludus-trace and the demo (and the tests when
#               their dependencies are there), warnings as errors; installs nothing
#   make demo   install cmake and a compiler when missing, build, run the demo,
#               write a trace and print a summary
#   make test   install the test dependencies when missing, build and run every
#               test (plain, ASan+UBSan, TSan) through ctest
BUILD ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=
# What this Makefile asks of CMake (a plain cmake configure asks for none:
# no tests, no benchmarks, warnings not errors). TESTS: AUTO, ON or OFF.
TESTS ?= AUTO
OUR_FLAGS = -DLUDUS_WERROR=ON -DLUDUS_BUILD_TESTS=$(TESTS) -DLUDUS_BUILD_BENCH=ON
# The backend: builtin (default) or tracy, with TRACY_DIR=<tracy>/public
# (make build LUDUS_BACKEND=tracy TRACY_DIR=~/tracy/public BUILD=build-tracy).
LUDUS_BACKEND ?= builtin
TRACY_DIR ?=
ifeq ($(LUDUS_BACKEND),tracy)
CMAKE_FLAGS += -DLUDUS_BACKEND=tracy -DLUDUS_TRACY_DIR=$(abspath $(TRACY_DIR))
endif

.PHONY: all deps deps-build build demo demo-rolling demo-diff test test-plain test-asan test-tsan test-viewers test-gpu test-tracy test-build-types test-ports test-windows test-msvc test-musl test-aarch64 bench-tracy fuzz bench bench-callgrind bench-diff bench-gates bench-shapes clean single-file

all: build

# Installs missing Debian packages (cmake, compilers, test framework) and says so.
deps:
	@./scripts/ensure-deps.sh

# Only what a build needs: cmake, a C compiler, make.
deps-build:
	@./scripts/ensure-deps.sh build

build:
	@command -v cmake >/dev/null || { echo "ludus: cmake is missing (make deps-build installs it)"; exit 1; }
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo $(OUR_FLAGS) $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

demo: deps-build
	@$(MAKE) --no-print-directory build
	@$(BUILD)/examples/ludus-demo --trace $(BUILD)/ludus-demo.json
	@echo
	@$(BUILD)/tools/ludus-trace/ludus-trace report $(BUILD)/ludus-demo.ludus --top 10 --html $(BUILD)/ludus-report.html
	@echo "HTML report (frame chart, flame graph, tables): $(BUILD)/ludus-report.html"

# The demo with the rolling window: a capture file per injected hitch, written
# from the library's background thread; `ludus-trace report` reads the last.
# --overlay: at the end, the overlay with the top scopes of a snapshot.
demo-rolling: build
	@rm -rf $(BUILD)/rolling && mkdir -p $(BUILD)/rolling
	@$(BUILD)/examples/ludus-demo --rolling $(BUILD)/rolling --overlay
	@$(BUILD)/tools/ludus-trace/ludus-trace report "$$(ls $(BUILD)/rolling/*.ludus | tail -1)" --top 5

# The demo against itself with one job made twice as slow: diff must name that
# job as slower work (not more work). Exit code 4 is the gate tripping, expected here.
demo-diff: build
	@$(BUILD)/examples/ludus-demo --trace $(BUILD)/diff-base.json >/dev/null
	@$(BUILD)/examples/ludus-demo --trace $(BUILD)/diff-slow.json --slow-job "Job: Animate" --slow-factor 2 >/dev/null
	@$(BUILD)/tools/ludus-trace/ludus-trace diff $(BUILD)/diff-base.ludus $(BUILD)/diff-slow.ludus \
	  --html $(BUILD)/ludus-diff.html --fail-if 'p90 > +5%' || [ $$? -eq 4 ]

test: test-plain test-asan test-tsan

test-plain: deps
	@$(MAKE) --no-print-directory build TESTS=ON
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# The compile checks (compiler invocations, formatting) do not depend on the
# tree: the plain tree runs them, the sanitizer trees skip them.
# Debug (its asserts) at -O1: a third less time than -O0 for the same checks.
test-asan: deps
	@cmake -S . -B $(BUILD)-asan -DCMAKE_BUILD_TYPE=Debug "-DCMAKE_C_FLAGS_DEBUG=-g -O1" -DLUDUS_SANITIZE=address,undefined,float-cast-overflow $(OUR_FLAGS) \
	  -DLUDUS_BUILD_TESTS=ON -DLUDUS_BUILD_BENCH=OFF >/dev/null
	@cmake --build $(BUILD)-asan -j $(JOBS)
	@cd $(BUILD)-asan && ctest --output-on-failure -j $(JOBS) -LE compile

test-tsan: deps
	@cmake -S . -B $(BUILD)-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLUDUS_SANITIZE=thread $(OUR_FLAGS) \
	  -DLUDUS_BUILD_TESTS=ON -DLUDUS_BUILD_BENCH=OFF >/dev/null
	@cmake --build $(BUILD)-tsan -j $(JOBS)
	@cd $(BUILD)-tsan && ctest --output-on-failure -L concurrency -j $(JOBS)

# Loads the demo's trace into Chromium DevTools, speedscope and the DevTools
# trace engine, then a synthetic trace of every tie a clock can make (its
# times given by tests/format/nesting_trace.c, the same in every run), and
# its HTML report (frame and counter charts) into Chromium (needs chromium and npm; scripts/ensure-viewer-deps.sh installs them);
# the HTML report and diff of the hostile-name capture with a trap for any script of a name; the flame graph
# of a 100,000-deep recursion; the frame chart of one 1 s frame among 5,000
# (readable, zoomable: tests/viewers/check-frame-chart.mjs; LUDUS_SHOTS=DIR
# keeps screenshots).
test-viewers: deps
	@$(MAKE) --no-print-directory build TESTS=ON
	@./scripts/ensure-viewer-deps.sh
	@$(BUILD)/examples/ludus-demo --trace $(BUILD)/viewer-trace.json --frames 40 >/dev/null
	@python3 tests/format/trace_json.py $(BUILD)/viewer-trace.json
	@node tests/viewers/check-viewers.mjs $(BUILD)/viewer-trace.json --require-timeline
	@$(BUILD)/tests/format/nesting_trace --ties $(BUILD)/viewer-ties.json
	@node tests/viewers/check-viewers.mjs $(BUILD)/viewer-ties.json
	@$(BUILD)/tests/format/devtools_names $(BUILD)/viewer-devtools-names.json
	@node tests/viewers/check-viewers.mjs $(BUILD)/viewer-devtools-names.json
	@$(BUILD)/tools/ludus-trace/ludus-trace report $(BUILD)/viewer-trace.ludus --html $(BUILD)/viewer-report.html >/dev/null
	@node tests/viewers/check-report-html.mjs $(BUILD)/viewer-report.html
	@$(BUILD)/examples/ludus-demo --trace $(BUILD)/viewer-more.json --frames 40 --extra-draws 80 >/dev/null
	@$(BUILD)/tools/ludus-trace/ludus-trace diff $(BUILD)/viewer-trace.ludus $(BUILD)/viewer-more.ludus \
	  --html $(BUILD)/viewer-diff.html >/dev/null
	@node tests/viewers/check-report-html.mjs $(BUILD)/viewer-diff.html
	@$(BUILD)/tests/format/hostile_names $(BUILD)/hostile-base && $(BUILD)/tests/format/hostile_names $(BUILD)/hostile-new new
	@$(BUILD)/tools/ludus-trace/ludus-trace report $(BUILD)/hostile-base.ludus --html $(BUILD)/hostile-report.html >/dev/null
	@$(BUILD)/tools/ludus-trace/ludus-trace diff $(BUILD)/hostile-base.ludus $(BUILD)/hostile-new.ludus \
	  --html $(BUILD)/hostile-diff.html >/dev/null
	@node tests/viewers/check-hostile-html.mjs $(BUILD)/hostile-report.html
	@node tests/viewers/check-hostile-html.mjs $(BUILD)/hostile-diff.html
	@$(BUILD)/bench/make_shapes deep $(BUILD)/deep-recursion.ludus 100000 >/dev/null
	@$(BUILD)/tools/ludus-trace/ludus-trace report $(BUILD)/deep-recursion.ludus --html $(BUILD)/deep-report.html >/dev/null
	@node tests/viewers/check-flame-depth.mjs $(BUILD)/deep-report.html
	@$(BUILD)/bench/make_shapes longframe $(BUILD)/longframe.ludus 5000 >/dev/null
	@$(BUILD)/tools/ludus-trace/ludus-trace report $(BUILD)/longframe.ludus --html $(BUILD)/longframe-report.html >/dev/null
	@node tests/viewers/check-frame-chart.mjs $(BUILD)/longframe-report.html
	@$(MAKE) --no-print-directory test-gpu
	@node tests/viewers/check-viewers.mjs $(BUILD)-vulkan/gpu-vulkan/vk.json
	@$(BUILD)-vulkan/tools/ludus-trace/ludus-trace report $(BUILD)-vulkan/gpu-vulkan/vk.ludus \
	  --html $(BUILD)-vulkan/gpu-report.html >/dev/null
	@node tests/viewers/check-report-html.mjs $(BUILD)-vulkan/gpu-report.html

# GPU timing's Vulkan backend end to end on Mesa's lavapipe, with or without
# a GPU (scripts/ensure-vulkan.sh installs it; VK_ICD_FILENAMES picks it):
# the example's capture checked, reported and diffed (tests/gpu/check_vulkan.sh).
test-gpu: deps
	@./scripts/ensure-vulkan.sh
	@cmake -S . -B $(BUILD)-vulkan -DLUDUS_VULKAN=ON $(OUR_FLAGS) -DLUDUS_BUILD_TESTS=ON -DLUDUS_BUILD_BENCH=OFF \
	  $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(BUILD)-vulkan -j $(JOBS) --target vulkan_compute ludus-trace
	@cd $(BUILD)-vulkan && VK_ICD_FILENAMES="$$(ls /usr/share/vulkan/icd.d/lvp_icd.*.json | head -n 1)" \
	  ctest --output-on-failure -L gpu

# The Tracy backend end to end: the demo built with -DLUDUS_BACKEND=tracy
# while Tracy's tracy-capture listens, its export (tracy-csvexport) against
# the same demo recorded by the built-in recorder (tests/tracy/check_tracy.sh;
# Tracy's sources and tools' script from ../shared/third_party, or
# LUDUS_TRACY_SRC; the tools are built once into $(BUILD)-tracy/tools).
test-tracy: build
	@./scripts/ensure-port-deps.sh tracy || [ "$${LUDUS_CI:-0}" != 1 ] # elsewhere check_tracy.sh says what is missing
	@./tests/tracy/check_tracy.sh $(CURDIR) $(BUILD) $(BUILD)-tracy

# Every build type (Debug, Release, RelWithDebInfo, MinSizeRel) with gcc and
# clang from a clean tree, warnings as errors, tests and benchmarks included;
# a configure that asks for nothing builds the library, ludus-trace and the
# demo only; the Tracy backend in Release (tests/package/check_build_types.sh,
# which test-tracy then runs; about 10 minutes on 2 cores).
test-build-types: deps
	@./tests/package/check_build_types.sh $(CURDIR) $(abspath $(BUILD))-types

# The Tracy backend's cost per scope against Tracy's ZoneScoped and
# TracyCZone, with tracy-capture attached and on demand (bench/tracy.sh).
bench-tracy: test-tracy
	@./bench/tracy.sh $(CURDIR) $(BUILD)-tracy

# A long fuzzing run of every fuzz target, FUZZ_SECONDS each (make test runs
# each over a fixed number of inputs); crashes land in $(BUILD)/fuzz-long/artifacts.
FUZZ_SECONDS ?= 600
fuzz: deps
	@$(MAKE) --no-print-directory build
	@sh tests/fuzz/run_fuzz.sh $(CURDIR) $(BUILD)/fuzz-long seconds $(FUZZ_SECONDS)

bench: deps
	@$(MAKE) --no-print-directory build
	@./bench/run.sh $(BUILD)

# The pathological shapes (deep nesting, many caller paths, many async
# zones): time and peak RSS of ludus-trace over each; OTHER=path/to/an/older/ludus-trace
# adds that build's figures on the same files (bench/shapes.sh, bench/RESULTS.md).
bench-shapes: build
	@./bench/shapes.sh $(BUILD) $(OTHER)

bench-callgrind: deps
	@$(MAKE) --no-print-directory build
	@./bench/callgrind.sh $(BUILD)

# Diff verdicts on a loaded machine: false-verdict and detection rates
# (bench/diff_accuracy.py; starts two CPU-bound processes itself; about 8 min on 2 cores).
bench-diff: build
	@python3 bench/diff_accuracy.py $(BUILD)/bench/diff_workload $(BUILD)/tools/ludus-trace/ludus-trace

# Every gate the docs show, on a job system whose work migrates between threads: false trips on
# A/A and detection of one slower site (bench/diff_gates.py; two CPU burners; about 20 min on 2 cores).
bench-gates: build
	@python3 bench/diff_gates.py $(BUILD)/bench/diff_jobs $(BUILD)/tools/ludus-trace/ludus-trace

# The ports (CI runs them after make test): the unit suite cross-built for
# AArch64 with Debian's gcc-aarch64-linux-gnu and run under qemu-user; the
# library, ludus-trace and the demo built with mingw-w64 and checked under
# Wine (tests/ports/check_windows.sh), and built in MSVC mode (clang,
# lld-link, Wine's MSVC-style runtime) and checked under Wine
# (tests/ports/check_msvc.sh); the library and the unit suite against musl
# (musl-gcc). scripts/ensure-port-deps.sh installs what they miss.
test-ports: test-aarch64 test-windows test-msvc test-musl

test-windows: deps-build
	@./scripts/ensure-port-deps.sh windows
	@sh tests/ports/check_windows.sh $(CURDIR) $(abspath $(BUILD))-windows

test-msvc: deps-build
	@./scripts/ensure-port-deps.sh msvc
	@sh tests/ports/check_msvc.sh $(CURDIR) $(abspath $(BUILD))-msvc

# musl (Debian's musl-tools), the nearest POSIX system here that is not
# glibc: the library, ludus-trace, the demo and the unit suite against
# tests/ports/shim (cmocka and json-c are built for glibc), run by ctest.
test-musl: deps-build
	@./scripts/ensure-port-deps.sh musl
	@cmake -S . -B $(BUILD)-musl -DCMAKE_C_COMPILER=musl-gcc -DCMAKE_BUILD_TYPE=RelWithDebInfo $(OUR_FLAGS) \
	  -DLUDUS_BUILD_TESTS=OFF -DLUDUS_BUILD_BENCH=OFF -DLUDUS_INSTALL=OFF -DLUDUS_BUILD_PORT_TESTS=ON \
	  -DCMAKE_DISABLE_FIND_PACKAGE_SQLite3=ON -DLUDUS_ZSTD=OFF >/dev/null
	@cmake --build $(BUILD)-musl -j $(JOBS)
	@cd $(BUILD)-musl && ctest --output-on-failure -j $(JOBS)

test-aarch64: deps-build
	@./scripts/ensure-port-deps.sh aarch64
	@cmake -S . -B $(BUILD)-aarch64 -DCMAKE_TOOLCHAIN_FILE=$(CURDIR)/cmake/toolchains/aarch64-linux-gnu.cmake \
	  -DCMAKE_BUILD_TYPE=RelWithDebInfo $(OUR_FLAGS) -DLUDUS_BUILD_TESTS=ON -DLUDUS_BUILD_BENCH=OFF -DLUDUS_ZSTD=OFF >/dev/null
	@cmake --build $(BUILD)-aarch64 -j $(JOBS)
	@cd $(BUILD)-aarch64 && ctest --output-on-failure -j $(JOBS)

# Writes single_file/ludus_profiling.h from the sources (a build product,
# not in the repository: a release publishes it; make test generates its
# own copy and builds from it).
single-file:
	@python3 scripts/amalgamate.py

clean:
	rm -rf $(BUILD) $(BUILD)-asan $(BUILD)-tsan $(BUILD)-aarch64 $(BUILD)-windows $(BUILD)-msvc $(BUILD)-musl $(BUILD)-tracy
