# Thin wrapper over CMake: `make demo` and `make test` are the two commands of the README.
BUILD   ?= build
PREFIX  ?= /usr/local
JOBS    ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=

.PHONY: all configure demo test test-asan install clean distclean

all: configure
	cmake --build $(BUILD) -j $(JOBS)

configure:
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS) > /dev/null

demo: all
	./examples/demo.sh $(BUILD)

test: all
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# The same suite built with AddressSanitizer + UndefinedBehaviorSanitizer (CI runs it too).
test-asan:
	cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DSKIFF_SANITIZE=ON > /dev/null
	cmake --build build-asan -j $(JOBS)
	cd build-asan && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  ctest --output-on-failure -j $(JOBS)

install: all
	cmake --install $(BUILD) --prefix $(PREFIX)

clean:
	-cmake --build $(BUILD) --target clean

distclean:
	rm -rf build build-asan
