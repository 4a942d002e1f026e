#!/usr/bin/env bash
# test_install.sh BUILD_DIR CONSUMER_DIR WORK_DIR CC VERSION SONAME
#
# Installs the build to WORK_DIR/prefix, checks the layout (SONAME symlink chain, headers,
# package files), then builds and runs the consumer in CONSUMER_DIR against the installed
# prefix: with find_package(oxidnn) linking oxidnn::shared, oxidnn::static and oxidnn::lib
# (BUILD_SHARED_LIBS=OFF), and with pkg-config (oxidnn, oxidnn-static) when pkg-config exists.
set -euo pipefail
build=$1 consumer=$2 work=$3 cc=$4 version=$5 soname=$6
cmake=${CMAKE_COMMAND:-cmake}

fail() { echo "install test: FAIL: $*" >&2; exit 1; }
step() { echo "== $*"; }

rm -rf "$work"
mkdir -p "$work"
prefix=$work/prefix
step "install to $prefix"
"$cmake" --install "$build" --prefix "$prefix" >"$work/install.log" || { cat "$work/install.log"; fail "cmake --install"; }

# layout
so=$(find "$prefix" -name "liboxidnn.so.$version" -type f | head -1)
[ -n "$so" ] || fail "liboxidnn.so.$version not installed"
libdir=$(dirname "$so")
[ "$(readlink "$libdir/$soname")" = "liboxidnn.so.$version" ] || fail "$soname is not a symlink to liboxidnn.so.$version"
[ "$(readlink "$libdir/liboxidnn.so")" = "$soname" ] || fail "liboxidnn.so is not a symlink to $soname"
[ -f "$libdir/liboxidnn.a" ] || fail "liboxidnn.a not installed"
if command -v readelf >/dev/null; then
    readelf -d "$so" | grep -qF "Library soname: [$soname]" || fail "installed library lacks SONAME $soname"
fi
for h in oxidnn.h dnnl.h dnnl_types.h dnnl_config.h dnnl_version.h dnnl_debug.h dnnl.hpp \
         oneapi/dnnl/dnnl.h oneapi/dnnl/dnnl_types.h oneapi/dnnl/dnnl_common.h \
         oneapi/dnnl/dnnl_common_types.h oneapi/dnnl/dnnl_config.h oneapi/dnnl/dnnl_version.h \
         oneapi/dnnl/dnnl_debug.h oneapi/dnnl/dnnl.hpp; do
    [ -f "$prefix/include/$h" ] || fail "include/$h not installed"
done
for f in cmake/oxidnn/oxidnnConfig.cmake cmake/oxidnn/oxidnnConfigVersion.cmake pkgconfig/oxidnn.pc pkgconfig/oxidnn-static.pc; do
    [ -f "$libdir/$f" ] || fail "$f not installed in $libdir"
done
echo "layout ok: $libdir/{liboxidnn.so -> $soname -> liboxidnn.so.$version, liboxidnn.a}"

# needs_shared EXE yes|no: whether EXE depends on liboxidnn.so.*
check_needed() {
    local exe=$1 want=$2 has=no
    if command -v readelf >/dev/null; then
        readelf -d "$exe" | grep -q "NEEDED.*\[liboxidnn\.so" && has=yes
        [ "$has" = "$want" ] || fail "$(basename "$exe"): NEEDED liboxidnn.so is '$has', expected '$want'"
    fi
}
run() { # EXE: must print "consumer: ok"
    local out
    out=$(LD_LIBRARY_PATH=$libdir "$1") || fail "$1 exited non-zero: $out"
    case "$out" in *"consumer: ok"*) echo "   $out" ;; *) fail "$1 printed: $out" ;; esac
}

# find_package
for mode in shared static lib-static; do
    step "find_package(oxidnn), link $mode"
    args=(-DOXIDNN_CONSUMER_LINK="${mode%-static}")
    [ "$mode" = lib-static ] && args+=(-DBUILD_SHARED_LIBS=OFF)
    "$cmake" -S "$consumer" -B "$work/cmake-$mode" -DCMAKE_PREFIX_PATH="$prefix" \
        -DCMAKE_C_COMPILER="$cc" "${args[@]}" >"$work/cmake-$mode.log" 2>&1 \
        || { cat "$work/cmake-$mode.log"; fail "configure ($mode)"; }
    "$cmake" --build "$work/cmake-$mode" >>"$work/cmake-$mode.log" 2>&1 \
        || { cat "$work/cmake-$mode.log"; fail "build ($mode)"; }
    exe=$work/cmake-$mode/consumer
    if [ "$mode" = shared ]; then check_needed "$exe" yes; else check_needed "$exe" no; fi
    run "$exe"
done

# pkg-config
if command -v pkg-config >/dev/null; then
    export PKG_CONFIG_PATH=$libdir/pkgconfig
    for pc in oxidnn oxidnn-static; do
        step "pkg-config $pc"
        # shellcheck disable=SC2046
        "$cc" -std=c99 -Wall -Wextra -Werror "$consumer/consumer.c" -o "$work/pc-$pc" \
            $(pkg-config --cflags --libs "$pc") || fail "cc with pkg-config $pc"
        if [ "$pc" = oxidnn ]; then check_needed "$work/pc-$pc" yes; else check_needed "$work/pc-$pc" no; fi
        run "$work/pc-$pc"
    done
else
    echo "note: pkg-config not found; pkg-config consumers skipped"
fi
echo "install test: OK"
