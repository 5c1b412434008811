#!/usr/bin/env bash
# gen-reference.sh -- record the facts of illumos's DAT 1.2 user headers,
# compiled for x86-64 Linux, into reference.facts.  Run by hand, with the
# path of an illumos-gate checkout's DAT include directory; CI and the
# test runner only read the stored facts (abi12-check.sh).  See README.
#
# usage: gen-reference.sh DIR [--out FILE] [--commit SHA] [--cc CC]
#   DIR  illumos-gate's usr/src/lib/udapl/libdat/include/dat (or the
#        directory above it, or the checkout's top)
# exit: 0 written, 2 error
set -u
set -o pipefail
export LC_ALL=C

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
OUT=$HERE/reference.facts
COMMIT=
CC_CMD=gcc
SRC=

usage() {
    cat <<'EOF'
usage: gen-reference.sh DIR [--out FILE] [--commit SHA] [--cc CC]
  DIR           illumos-gate's usr/src/lib/udapl/libdat/include/dat
                (the checkout's top directory is also accepted)
  --out FILE    where to write the facts (default: reference.facts here)
  --commit SHA  the illumos-gate commit DIR comes from, recorded in FILE
  --cc CC       GCC to use (default: gcc)
EOF
}

while [ $# -gt 0 ]; do
    case $1 in
        --out) [ $# -ge 2 ] || { usage >&2; exit 2; }; OUT=$2; shift 2 ;;
        --commit) [ $# -ge 2 ] || { usage >&2; exit 2; }; COMMIT=$2; shift 2 ;;
        --cc) [ $# -ge 2 ] || { usage >&2; exit 2; }; CC_CMD=$2; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        -*) echo "gen-reference: unknown argument: $1" >&2; usage >&2; exit 2 ;;
        *) [ -z "$SRC" ] || { usage >&2; exit 2; }; SRC=$1; shift ;;
    esac
done
[ -n "$SRC" ] || { usage >&2; exit 2; }

die() { echo "gen-reference: error: $*" >&2; exit 2; }

# The ten user headers of illumos's libdat (DAT 1.2).
FILES="dat.h dat_error.h dat_platform_specific.h dat_redirection.h
dat_registry.h dat_vendor_specific.h udat.h udat_config.h
udat_redirection.h udat_vendor_specific.h"

for d in "$SRC" "$SRC/dat" "$SRC/usr/src/lib/udapl/libdat/include/dat"; do
    if [ -f "$d/udat.h" ] && [ -f "$d/dat_platform_specific.h" ]; then SRC=$(cd "$d" && pwd); break; fi
done
for f in $FILES; do
    [ -f "$SRC/$f" ] || die "$SRC/$f: no such file (give illumos's libdat/include/dat)"
done
grep -q 'Version: 1\.2' "$SRC/udat.h" || die "$SRC/udat.h does not say DAT 1.2"
if [ -z "$COMMIT" ] && command -v git >/dev/null 2>&1; then
    COMMIT=$(git -C "$SRC" rev-parse HEAD 2>/dev/null || true)
fi

T=$(mktemp -d "${TMPDIR:-/tmp}/abi12-gen.XXXXXX") || die "mktemp failed"
trap 'rm -rf "$T"' EXIT
trap 'exit 2' INT TERM

# ---- the shim ------------------------------------------------------------
# illumos's headers, with dat_platform_specific.h replaced by the platform
# types of an x86-64 Linux build of DAT 1.2 (those of illumos's own
# __linux__ branch, which OFED's compat-dapl 1.2 shares).  Each choice,
# against illumos's Solaris branch:
#
#   DAT_UINT32     u_int32_t (<sys/types.h>)       Solaris: uint32_t
#   DAT_UINT64     u_int64_t (<sys/types.h>)       Solaris: uint64_t
#                  (on x86-64 glibc both are unsigned long: the same type
#                  as uint64_t, without <stdint.h>)
#   DAT_UVERYLONG  unsigned long long              same
#   DAT_PVOID      void *                          same
#   DAT_COUNT      int                             same
#   DAT_PADDR      DAT_UINT64                      same
#   DAT_SOCK_ADDR  struct sockaddr (<sys/socket.h>) same
#   DAT_SOCK_ADDR6 struct sockaddr_in6, left incomplete: <netinet/in.h> is
#                  not included (Solaris includes it)
#   DAT_AF_INET, DAT_AF_INET6   AF_INET, AF_INET6  same
#   UINT64_C(c)    c ## ULL unless already defined (Solaris takes
#                  <inttypes.h>'s; glibc's would be c ## UL): the IA, EP and
#                  provider mask constants are unsigned long long
#   IN, OUT, INOUT, DAT_OPTIMAL_ALIGNMENT 256      same
#
# and one type Solaris's <sys/types.h> supplies and Linux has not:
#
#   boolean_t      typedef enum { B_FALSE, B_TRUE } boolean_t, as Solaris
#                  defines it; only DAT_IA_OPEN_FUNC (dat_redirection.h,
#                  the provider-side ia_open) names it.  It is given by a
#                  file outside dat/ (-include), so it is not a fact.
mkdir -p "$T/ref/dat" "$T/shim" "$T/own/dat" || die "mkdir"
for f in $FILES; do
    cp "$SRC/$f" "$T/ref/dat/$f" || die "cp $f"
    cp "$SRC/$f" "$T/own/dat/$f" || die "cp $f"
done
cat > "$T/ref/dat/dat_platform_specific.h" <<'EOF'
/* Written by softdapl's test/abi12/gen-reference.sh: the x86-64 Linux
 * platform types under illumos's DAT 1.2 headers. */
#ifndef _DAT_PLATFORM_SPECIFIC_H_
#define _DAT_PLATFORM_SPECIFIC_H_
#ifdef __cplusplus
extern "C" {
#endif
#ifndef DAT_OPTIMAL_ALIGNMENT
#define DAT_OPTIMAL_ALIGNMENT 256
#endif
#include <sys/types.h>
#include <sys/socket.h>
typedef u_int32_t DAT_UINT32;
typedef u_int64_t DAT_UINT64;
typedef unsigned long long DAT_UVERYLONG;
typedef void *DAT_PVOID;
typedef int DAT_COUNT;
typedef DAT_UINT64 DAT_PADDR;
#ifndef UINT64_C
#define UINT64_C(c) c ## ULL
#endif
typedef struct sockaddr DAT_SOCK_ADDR;
typedef struct sockaddr_in6 DAT_SOCK_ADDR6;
#define DAT_AF_INET AF_INET
#define DAT_AF_INET6 AF_INET6
#ifndef IN
#define IN
#endif
#ifndef OUT
#define OUT
#endif
#ifndef INOUT
#define INOUT
#endif
#ifdef __cplusplus
}
#endif
#endif
EOF
cat > "$T/shim/solaris_types.h" <<'EOF'
/* Written by softdapl's test/abi12/gen-reference.sh: the one Solaris
 * <sys/types.h> type illumos's DAT headers use that Linux lacks. */
typedef enum { B_FALSE, B_TRUE } boolean_t;
EOF

CHECK=$HERE/abi12-check.sh
echo "gen-reference: extracting the facts of $SRC (with the Linux shim)" >&2
bash "$CHECK" --cc "$CC_CMD" --extract "$T/ref" --cflags "-include $T/shim/solaris_types.h" > "$T/facts" ||
    die "extraction failed"

# Cross-check: illumos's own dat_platform_specific.h, compiled here, takes
# its __linux__ branch; its facts must be those of the shim.
echo "gen-reference: cross-checking the shim against illumos's own __linux__ branch" >&2
bash "$CHECK" --cc "$CC_CMD" --extract "$T/own" --cflags "-include $T/shim/solaris_types.h" > "$T/own.facts" ||
    die "extraction with illumos's own dat_platform_specific.h failed"
if ! cmp -s "$T/facts" "$T/own.facts"; then
    echo "gen-reference: the shim differs from illumos's __linux__ branch:" >&2
    diff "$T/own.facts" "$T/facts" | sed 's/^/    /' >&2
    CROSS="differs from illumos's own __linux__ branch (see the generator's output)"
else
    CROSS="identical to those of illumos's own dat_platform_specific.h (its __linux__ branch)"
fi

{
    echo "# DAT 1.2 user API facts: illumos's DAT 1.2 headers (libdat), compiled"
    echo "# for x86-64 Linux with test/abi12/gen-reference.sh; compared with our"
    echo "# include/dat by test/abi12/abi12-check.sh. Data, not header text: one"
    echo "# fact a line, key<TAB>value (see test/abi12/README for the format)."
    echo "#"
    echo "# source: illumos-gate usr/src/lib/udapl/libdat/include/dat"
    [ -n "$COMMIT" ] && echo "# commit: $COMMIT"
    echo "# generated: $(date -u +%Y-%m-%d) with $("$CC_CMD" --version | head -1)"
    echo "# probe: #include <dat/udat.h>, #include <dat/dat_registry.h>"
    echo "# platform: dat_platform_specific.h replaced by the x86-64 Linux shim"
    echo "#   (DAT_UINT32 u_int32_t, DAT_UINT64 u_int64_t, DAT_UVERYLONG unsigned"
    echo "#   long long, DAT_COUNT int, DAT_PVOID void *, DAT_PADDR DAT_UINT64,"
    echo "#   DAT_SOCK_ADDR struct sockaddr, DAT_SOCK_ADDR6 struct sockaddr_in6,"
    echo "#   UINT64_C(c) c ## ULL, no <netinet/in.h>); boolean_t (Solaris) given"
    echo "#   as enum { B_FALSE, B_TRUE } outside dat/"
    echo "# cross-check: the shim's facts are $CROSS"
    for f in $FILES; do
        echo "# sha256 $f $(sha256sum < "$SRC/$f" | cut -d' ' -f1)"
    done
    echo "# facts: $(wc -l < "$T/facts" | tr -d ' ')"
    cat "$T/facts"
} > "$T/out" || die "writing the facts"
mv "$T/out" "$OUT" || die "cannot write $OUT"
echo "gen-reference: wrote $OUT ($(wc -l < "$T/facts" | tr -d ' ') facts)" >&2
