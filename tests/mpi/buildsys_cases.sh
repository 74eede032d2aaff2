#!/bin/bash
# Building a user's program against Skiff the ways other MPIs are used:
#   buildsys_cases.sh CASE SRC_DIR BUILD_DIR CMAKE
# wrapper-flags: the MPICH and Open MPI query options of mpicc/mpicxx;
# pkgconfig: pkg-config --cflags --libs from build/lib/pkgconfig, programs run;
# pkgconfig-install: the same from a `cmake --install` prefix (relocatable);
# cmake-findmpi, cmake-pkgconfig: a CMake project (tests/mpi/cmake_project)
# configured, built and run.  Exit 77 (skipped) when a tool is missing.
set -u
CASE=$1 SRC=$2 BUILD=$3 CMAKE=$4
R=$BUILD/bin/skiffrun
T=$(mktemp -d /tmp/skiff-buildsys.XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/../common/cases_lib.sh" || exit 1
need() { command -v "$1" >/dev/null || { echo "SKIP: $1 not found"; exit 77; }; }

# runs_with N PROG: the MPI program PROG (user_prog.c) works on N ranks.
runs_with() {
    run "$R" -n "$1" "$2"
    expect_rc 0
    expect_out "^user_prog: $1 ranks, sum $(($1 * ($1 - 1) / 2)), library Skiff MPI"
}
# pc_build PKG_CONFIG_PATH: build user_prog and skf_hello with pkg-config's flags and run them.
pc_build() {
    local cc=${CC:-cc}
    # shellcheck disable=SC2046 # flags are words
    $cc "$SRC/tests/mpi/cmake_project/user_prog.c" -o "$T/user_prog" \
        $(PKG_CONFIG_PATH=$1 pkg-config --cflags --libs mpi) || fail "build with pkg-config mpi"
    for n in 1 3; do runs_with "$n" "$T/user_prog"; done
    # shellcheck disable=SC2046
    $cc "$SRC/examples/skf_hello.c" -o "$T/skf_hello" \
        $(PKG_CONFIG_PATH=$1 pkg-config --cflags --libs skiff) || fail "build with pkg-config skiff"
    run "$R" -n 2 "$T/skf_hello"
    expect_rc 0
    expect_out 'rank 1 of 2 got "hello from rank 0"'
    for m in skiff-mpi mpi-c mpi-cxx; do
        [ "$(PKG_CONFIG_PATH=$1 pkg-config --libs $m)" = "$(PKG_CONFIG_PATH=$1 pkg-config --libs mpi)" ] ||
            fail "pkg-config $m differs from mpi"
    done
}
# cmake_user ARGS...: configure, build and run tests/mpi/cmake_project.  A sanitizer
# build's libmpi needs the runtime linked first (USER_LDFLAGS, set by CMake then):
# FindMPI keeps libraries and paths from -showme:link, not -fsanitize.
cmake_user() {
    "$CMAKE" -S "$SRC/tests/mpi/cmake_project" -B "$T/proj" "$@" \
        -DCMAKE_EXE_LINKER_FLAGS="${USER_LDFLAGS:-}" >"$T/out" 2>"$T/err" ||
        fail "configure failed"
    grep -q "skiff-user: .*: $SRC/include" "$T/out" || fail "the project did not find Skiff's mpi.h"
    "$CMAKE" --build "$T/proj" >"$T/out" 2>"$T/err" || fail "build failed"
    for n in 1 3 5; do runs_with "$n" "$T/proj/user_prog"; done
}

case "$CASE" in
wrapper-flags)
    for w in mpicc mpicxx; do
        W=$BUILD/bin/$w
        [ "$("$W" -showme:compile)" = "-I$SRC/include" ] || fail "$w -showme:compile: $("$W" -showme:compile)"
        "$W" -showme:link | grep -Eq -- "^-L$BUILD/lib -Wl,-rpath,$BUILD/lib -lmpi" ||
            fail "$w -showme:link: $("$W" -showme:link)"
        "$W" -showme:incdirs | grep -qx "$SRC/include" || fail "$w -showme:incdirs"
        "$W" -showme:libdirs | grep -qx "$BUILD/lib" || fail "$w -showme:libdirs"
        [ "$("$W" -showme:libs)" = mpi ] || fail "$w -showme:libs"
        "$W" -showme:version | grep -q "^$w: Skiff [0-9]" || fail "$w -showme:version"
        cmd=$("$W" -showme:command)
        [ "$("$W" -showme -c x.c)" = "$cmd -I$SRC/include -c x.c" ] || fail "$w -showme -c x.c"
        [ "$("$W" -show -c x.c)" = "$cmd -I$SRC/include -c x.c" ] || fail "$w -show -c x.c"
        [ "$("$W" -compile_info)" = "$("$W" -compile-info)" ] || fail "$w -compile_info"
        [ "$("$W" -link_info)" = "$("$W" -link-info)" ] || fail "$w -link_info"
        "$W" -link_info | grep -q -- "^$cmd -I$SRC/include -L$BUILD/lib" || fail "$w -link_info"
        run "$W" -showme:nonsense
        expect_rc 1
        expect_err "unknown option '-showme:nonsense'"
    done
    # What -showme:compile/-showme:link print is enough to build and run.
    W=$BUILD/bin/mpicc
    # shellcheck disable=SC2046
    "$("$W" -showme:command)" $("$W" -showme:compile) "$SRC/tests/mpi/cmake_project/user_prog.c" \
        -o "$T/user_prog" $("$W" -showme:link) || fail "build from -showme:compile/-showme:link"
    runs_with 2 "$T/user_prog"
    ;;
pkgconfig)
    need pkg-config
    pc_build "$BUILD/lib/pkgconfig"
    ;;
pkgconfig-install) # installed elsewhere, the files find their prefix themselves
    need pkg-config
    "$CMAKE" --install "$BUILD" --prefix "$T/inst" >"$T/out" 2>"$T/err" || fail "cmake --install"
    pc=$(find "$T/inst" -name mpi.pc -path '*/pkgconfig/*')
    [ -n "$pc" ] || fail "no mpi.pc installed"
    PKG_CONFIG_PATH=$(dirname "$pc") pkg-config --cflags mpi | grep -q -- "-I$T/inst/" ||
        fail "installed mpi.pc does not point into the prefix: $(PKG_CONFIG_PATH=$(dirname "$pc") pkg-config --cflags mpi)"
    mv "$T/inst" "$T/moved" # relocatable: paths are relative to the .pc file
    pc_build "$(dirname "${pc/$T\/inst/$T/moved}")"
    ;;
cmake-findmpi)
    cmake_user -DMPI_C_COMPILER="$BUILD/bin/mpicc"
    ;;
cmake-pkgconfig)
    need pkg-config
    PKG_CONFIG_PATH=$BUILD/lib/pkgconfig cmake_user -DUSE_PKGCONFIG=ON
    ;;
*)
    fail "unknown case"
    ;;
esac
exit 0
