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

# The same suite built with AddressSanitizer + UndefinedBehaviorSanitizer (CI runs it too),
# except netns_multihost_ofi (1-2 min under ASan; the ofi_*_hosts cases cover its paths,
# `make test` runs it).
test-asan:
	cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DSKIFF_SANITIZE=ON > /dev/null
	cmake --build build-asan -j $(JOBS)
	cd build-asan && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  ctest --output-on-failure -j $(JOBS) -E '^netns_multihost_ofi$$'

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
