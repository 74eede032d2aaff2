# Thin wrapper over CMake: `make demo` and `make test` are the two commands of the README.
BUILD   ?= build
PREFIX  ?= /usr/local
JOBS    ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=

.PHONY: all configure demo test test-asan test-tsan install clean distclean

all: configure
	cmake --build $(BUILD) -j $(JOBS)

configure:
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS) > /dev/null

demo: all
	./examples/demo.sh $(BUILD)

test: all
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# The suite built with AddressSanitizer + UndefinedBehaviorSanitizer (CI runs it too),
# without the cases that add time but no code a memory checker has not already
# seen under ASan in a sibling case (docs/ci.md, "What test-asan leaves out"):
# 8-rank variants (2, 3 and 5 ranks run), the private-Slurm and netns cases
# (the launcher and tcp paths they drive run in the local *_hosts cases),
# the benchmark harness, ABI/build-system compile checks, the > 2 GiB
# large-count transfers, and ofi's oversubscribed and multi-host variants.
# `make test` runs them all; ASAN_SKIP= (empty) runs everything under ASan.
ASAN_SKIP ?= _np8|np8_|^slurm|^netns_|^bench\.|^mpi_abi\.|^mpi_buildsys\.|^mpi_large_count_|^ofi_.*(_np5|_hosts)
test-asan:
	cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DSKIFF_SANITIZE=ON > /dev/null
	cmake --build build-asan -j $(JOBS)
	cd build-asan && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  ctest --output-on-failure -j $(JOBS) $(if $(ASAN_SKIP),-E '$(ASAN_SKIP)')

# The MPI_THREAD_MULTIPLE tests built with ThreadSanitizer (docs/threads.md):
# only the library, the launcher and the threaded test programs, and only the
# cases up to 5 ranks x 8 threads (TSan slows them 5-15x).
TSAN_CASES ?= mpi_thread_multiple_(np2_t2|np2_t8|np3_t4|np5_t2|tcp_np2_t4)$$|mpi_alloc_mem_threads_np2$$
test-tsan:
	cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSKIFF_TSAN=ON > /dev/null
	cmake --build build-tsan -j $(JOBS) --target skiffrun thread_multiple alloc_mem
	cd build-tsan && TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$(CURDIR)/tests/tsan.supp" \
	  ctest --output-on-failure -j $(JOBS) -R '$(TSAN_CASES)'

install: all
	cmake --install $(BUILD) --prefix $(PREFIX)

clean:
	-cmake --build $(BUILD) --target clean

distclean:
	rm -rf build build-asan build-tsan
