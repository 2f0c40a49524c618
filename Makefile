# staticformer: the two commands of the README, plus helpers.
#   make demo   build and run the example encoder on this host
#   make test   configure, build and run every test (bit-exact, parity, compile-fail, ...)
# Both install the Debian packages they need when run as root, else print the apt line.

JOBS ?= $(shell nproc 2>/dev/null || echo 2)
# Host builds; the ports build in build/cross/<target> (CMakePresets.json).
BUILD ?= build
CMAKE_FLAGS ?= -DCMAKE_BUILD_TYPE=Release

DEMO_PACKAGES = cmake make g++ libxsimd-dev
CROSS_PACKAGES = g++-aarch64-linux-gnu g++-arm-linux-gnueabihf g++-riscv64-linux-gnu qemu-user \
	gcc-arm-none-eabi libstdc++-arm-none-eabi-newlib qemu-system-arm
# libclang-rt-14-dev: clang's sanitizer and libFuzzer runtimes (not pulled in without recommends).
TEST_PACKAGES = $(DEMO_PACKAGES) libgtest-dev libbenchmark-dev libeigen3-dev clang libclang-rt-14-dev valgrind python3 python3-torch python3-pip \
	python3-torchvision python3-numpy $(CROSS_PACKAGES)
# The other compilers of the bit-exact matrix (make compilers; g++ 12 and clang 14, the
# defaults above, build every variant of make test): host tests, and clang 16 builds the
# Cortex-M55 firmware.
COMPILER_PACKAGES = g++-11 clang-13 clang-15 clang-16

.PHONY: demo test cross-test host-test compilers fuzz fuzz-test bench footprint count-armv7-int8 deps-demo deps-test goldens demo-model digits \
	digits-accuracy clean

demo: deps-demo
	cmake -S . -B $(BUILD)/demo $(CMAKE_FLAGS) -DSTATICFORMER_BUILD_TESTS=OFF
	cmake --build $(BUILD)/demo --target demo -j $(JOBS)
	$(BUILD)/demo/examples/demo

# Each phase prints its start time (where the suite's minutes go, in CI's log). After the host
# suites, the ports and the short fuzz run go side by side (tools/cross_test.sh).
test: host-test
	@bash tools/cross_test.sh "$(JOBS)" "$(BUILD)" "$(CROSS_FLAGS)" --fuzz 20 $(CROSS_TARGETS)
	@echo "=== make test done $$(date +%T)"

# libFuzzer on blob loading and forward(), f32 / f16 / int8, under ASan + UBSan (fuzz/README.md):
# a short run in make test, FUZZ_SECONDS per target (default 10 minutes) in make fuzz.
FUZZ_SECONDS ?= 600
fuzz-test: deps-test
	@echo "=== fuzz-test $$(date +%T)"
	bash fuzz/run.sh 20 $(BUILD)/fuzz
fuzz: deps-test
	bash fuzz/run.sh $(FUZZ_SECONDS) $(BUILD)/fuzz

# Tests asked for explicitly: without GoogleTest the configure fails instead of skipping them.
host-test: deps-test
	@echo "=== host-test build $$(date +%T)"
	cmake -S . -B $(BUILD)/test $(CMAKE_FLAGS) -DSTATICFORMER_BUILD_TESTS=ON
	cmake --build $(BUILD)/test -j $(JOBS)
	@echo "=== host-test run $$(date +%T)"
	cd $(BUILD)/test && ctest --output-on-failure -j $(JOBS) -LE compilers

# The compiler matrix's other compilers (docs/targets-and-ports.md, "Supported compilers"): the
# encoder and int8 bit-exact suites built by g++ 11 and clang 13 / 15 / 16 on this host, and the
# Cortex-M4 and Cortex-M55 firmware built by clang 14 and 16. Behind its own target: it adds about
# 9 minutes.
compilers: deps-test
	@sh tools/ensure_deps.sh $(COMPILER_PACKAGES)
	cmake -S . -B $(BUILD)/test $(CMAKE_FLAGS) -DSTATICFORMER_BUILD_TESTS=ON
	cd $(BUILD)/test && ctest --output-on-failure -j $(JOBS) -L compilers
	@for t in clang-cortex-m4 clang-cortex-m55; do \
	    cmake --preset $$t >/dev/null && cmake --build --preset $$t -j $(JOBS) && ctest --preset $$t -j $(JOBS) || exit 1; \
	done

# Every port (CMakePresets.json): cross-build the tests and run them under QEMU against the
# same committed reference outputs as the host; the digits models; the Cortex-M port tests
# (tools/cross_test.sh: the Linux targets and the Cortex-M cores as two chains at once).
# CROSS_FLAGS=-DSTATICFORMER_ALL_VARIANTS=ON adds the ARMv7 and RISC-V contraction-off builds.
# The firmware built by clang (clang-cortex-m4, clang-cortex-m55): make compilers.
CROSS_TARGETS = aarch64-linux armv7-linux riscv64-linux cortex-m3 cortex-m4 cortex-m7 cortex-m55
CROSS_FLAGS ?=
cross-test: deps-test
	@bash tools/cross_test.sh "$(JOBS)" "$(BUILD)" "$(CROSS_FLAGS)" $(CROSS_TARGETS)

# Benchmarks: regenerates bench/RESULTS.md and bench/results.png (run it on an idle machine).
# BENCH_ARGS passes options to bench/make_results.py, e.g. BENCH_ARGS="--min-time 0.3".
bench: deps-test
	@sh tools/ensure_deps.sh python3-matplotlib
	cmake -S . -B $(BUILD)/test $(CMAKE_FLAGS)
	cmake --build $(BUILD)/test --target bench_avx2 bench_avx512 bench_int8_avx2 bench_int8_avx512vnni \
	    bench_int8_avxvnni -j $(JOBS)
	/usr/bin/python3 bench/make_results.py $(BUILD)/test $(BENCH_ARGS)

# Code, weights, static RAM, worst-case stack and no-heap proof for every target x precision x
# reference configuration, and Cortex-M instructions per inference by kernel (ports/footprint).
footprint: deps-test
	sh tools/footprint.sh

# ARMv7-A int8: instructions of the reference and armv7_neon kernels under qemu-arm (tiny
# encoder's linear shapes and whole encoder; bench/ARMV7_INT8.md). COUNT_OPT=-O3 or -Os for another level.
COUNT_OPT ?= -O2
count-armv7-int8: deps-test
	sh tools/armv7_int8_count.sh $(COUNT_OPT) $(BUILD)/armv7-int8-count

deps-demo:
	@sh tools/ensure_deps.sh $(DEMO_PACKAGES)

deps-test:
	@sh tools/ensure_deps.sh $(TEST_PACKAGES)

# Regenerate the committed PyTorch goldens and the demo model (needs python3-torch).
goldens: deps-test
	/usr/bin/python3 tools/make_goldens.py --out tests/golden
	cmake -S . -B $(BUILD)/test $(CMAKE_FLAGS)
	cmake --build $(BUILD)/test --target reference_outputs -j $(JOBS)
	$(BUILD)/test/tests/reference_outputs tests/golden/reference

demo-model: deps-test
	/usr/bin/python3 tools/make_demo_model.py

# Retrain the digits models (data/digits/, about 3 minutes on 2 cores) and print the accuracy
# table of the README (host, Cortex-M4 and Cortex-M55 under QEMU).
digits: deps-test
	@sh tools/ensure_deps.sh python3-sklearn
	/usr/bin/python3 tools/train_digits.py --out data/digits
digits-accuracy: deps-test
	/usr/bin/python3 tools/digits_accuracy.py --build $(BUILD)/digits

clean:
	rm -rf $(BUILD)
