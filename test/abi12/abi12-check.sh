#!/usr/bin/env bash
# abi12-check.sh -- compare the DAT 1.2 user API declared by our headers
# (include/dat) with the facts recorded from illumos's DAT 1.2 headers
# (reference.facts, written by gen-reference.sh).  See README here.
#
# usage: abi12-check.sh [--ours DIR] [--facts FILE] [--cc CC] [--keep]
#        abi12-check.sh --self-test [--ours DIR] [--facts FILE]
#        abi12-check.sh --extract DIR [--cflags FLAGS]   (facts of DIR/dat)
#        abi12-check.sh --vs-dat2 [--ours DIR] [--dat2 DIR] [--records OUTDIR]
#   DIR is an include root holding dat/ (or the dat directory itself).
# exit: 0 identical, 1 differences, 2 tool error
set -u
set -o pipefail
export LC_ALL=C

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
OURS=$HERE/../../include
DAT2=
FACTS=$HERE/reference.facts
ACCEPTED=$HERE/accepted
DWARF_AWK=$HERE/../abi/dwarf.awk
CC_CMD=gcc
KEEP=0
MODE=check
EXTRACT_DIR=
EXTRA_CFLAGS=
RECORDS=

usage() {
    cat <<'EOF'
usage: abi12-check.sh [--ours DIR] [--facts FILE] [--cc CC] [--keep]
       abi12-check.sh --self-test [--ours DIR] [--facts FILE]
       abi12-check.sh --extract DIR [--cflags FLAGS]
       abi12-check.sh --vs-dat2 [--ours DIR] [--dat2 DIR] [--records OUTDIR]
  --ours DIR    include root of the headers under test (default: <repo>/include)
  --facts FILE  the reference facts (default: reference.facts next to this script)
  --cc CC       GCC to use (default: gcc; it must support -aux-info)
  --keep        keep the generated files (the directory is printed)
  --self-test   check that mutations of a copy of ours are detected
  --extract DIR print the facts of the headers DIR/dat/ on stdout (what
                gen-reference.sh stores); --cflags adds compiler flags
  --vs-dat2     print every difference between our DAT 1.2 headers (dat/)
                and our DAT 2.0 headers (dat2/, default: next to --ours);
                --records writes both sides' facts to OUTDIR/1.2.rec and
                OUTDIR/2.0.rec (for mkdiff-dat2.py)
DIR holds dat/udat.h (or is the dat directory itself).
exit status: 0 identical, 1 differences, 2 tool error
EOF
}

while [ $# -gt 0 ]; do
    case $1 in
        --ours) [ $# -ge 2 ] || { usage >&2; exit 2; }; OURS=$2; shift 2 ;;
        --ours=*) OURS=${1#*=}; shift ;;
        --facts) [ $# -ge 2 ] || { usage >&2; exit 2; }; FACTS=$2; shift 2 ;;
        --facts=*) FACTS=${1#*=}; shift ;;
        --dat2) [ $# -ge 2 ] || { usage >&2; exit 2; }; DAT2=$2; shift 2 ;;
        --dat2=*) DAT2=${1#*=}; shift ;;
        --cc) [ $# -ge 2 ] || { usage >&2; exit 2; }; CC_CMD=$2; shift 2 ;;
        --cc=*) CC_CMD=${1#*=}; shift ;;
        --cflags) [ $# -ge 2 ] || { usage >&2; exit 2; }; EXTRA_CFLAGS=$2; shift 2 ;;
        --cflags=*) EXTRA_CFLAGS=${1#*=}; shift ;;
        --keep) KEEP=1; shift ;;
        --self-test) MODE=selftest; shift ;;
        --extract) [ $# -ge 2 ] || { usage >&2; exit 2; }; MODE=extract; EXTRACT_DIR=$2; shift 2 ;;
        --extract=*) MODE=extract; EXTRACT_DIR=${1#*=}; shift ;;
        --vs-dat2) MODE=vsdat2; shift ;;
        --records) [ $# -ge 2 ] || { usage >&2; exit 2; }; RECORDS=$2; shift 2 ;;
        --records=*) RECORDS=${1#*=}; shift ;;
        -h|--help) usage; exit 0 ;;
        *) echo "abi12-check: unknown argument: $1" >&2; usage >&2; exit 2 ;;
    esac
done

die() { echo "abi12-check: error: $*" >&2; exit 2; }

# include root (the directory that holds SUB/) of DIR, or nothing
incroot() {
    local d=$1 sub=${2:-dat}
    if [ -d "$d/$sub" ]; then (cd "$d" && pwd); return; fi
    if [ "$(basename "$d")" = "$sub" ] && [ -d "$d" ]; then (cd "$d/.." && pwd); return; fi
}

# ---- tools ---------------------------------------------------------------
read -r -a CCV <<< "$CC_CMD"
[ ${#CCV[@]} -gt 0 ] || die "empty --cc"
read -r -a XCF <<< "$EXTRA_CFLAGS"
command -v "${CCV[0]}" >/dev/null 2>&1 ||
    die "compiler '${CCV[0]}' not found (apt-get install -y gcc)"
for t in readelf awk sed sort join cp mktemp grep tr cmp; do
    command -v "$t" >/dev/null 2>&1 || {
        case $t in
            readelf) die "readelf not found (apt-get install -y binutils)" ;;
            *) die "$t not found (apt-get install -y coreutils grep sed mawk diffutils)" ;;
        esac
    }
done
[ -f "$DWARF_AWK" ] || die "missing $DWARF_AWK (test/abi/dwarf.awk)"
CXX=
case ${CCV[0]} in
    *gcc*) CXX=${CCV[0]%gcc*}g++${CCV[0]##*gcc} ;;
    *cc) CXX=${CCV[0]%cc}c++ ;;
esac
if [ -n "$CXX" ] && command -v "$CXX" >/dev/null 2>&1 && command -v nm >/dev/null 2>&1; then
    CXXV=("$CXX" "${CCV[@]:1}")
else
    CXX=
    CXXV=()
fi

T=$(mktemp -d "${TMPDIR:-/tmp}/abi12-check.XXXXXX") || die "mktemp failed"
# shellcheck disable=SC2317  # invoked by the EXIT trap
cleanup() {
    if [ "$KEEP" = 1 ]; then echo "abi12: generated files kept in $T" >&2; else rm -rf "$T"; fi
}
trap cleanup EXIT
trap 'exit 2' INT TERM

DIAG=(-fno-diagnostics-show-caret -fdiagnostics-color=never)

printf 'int abi_aux_probe(int);\n' > "$T/auxtest.c"
if ! "${CCV[@]}" "${DIAG[@]}" -fsyntax-only -aux-info "$T/auxtest.aux" "$T/auxtest.c" >/dev/null 2>&1 ||
   ! grep -q abi_aux_probe "$T/auxtest.aux" 2>/dev/null; then
    die "'$CC_CMD' does not support -aux-info: use GCC (apt-get install -y gcc)"
fi

# ---- staging -----------------------------------------------------------------
# stage SIDE SRCROOT SUB [HEADERS-FILE]: copy SRCROOT/SUB/*.h to
# $T/SIDE/inc/SUB.  Every header named in HEADERS-FILE (one "SUB/x.h" a
# line) that SRCROOT lacks becomes an empty stub, so that the compiler never
# falls back to a header of that name elsewhere on its search path.
stage() {
    local side=$1 src=$2 sub=$3 hdrs=${4:-} inc f b
    inc=$T/$side/inc
    rm -rf "${T:?}/$side"
    mkdir -p "$inc/$sub" || die "mkdir $inc/$sub"
    : > "$T/$side/header.rec"
    for f in "$src/$sub"/*.h; do
        [ -f "$f" ] || continue
        b=$(basename "$f")
        cp -L "$f" "$inc/$sub/$b" || die "cannot copy $f"
        printf 'header dat/%s\tpresent\n' "$b" >> "$T/$side/header.rec"
    done
    : > "$T/$side/stubs"
    if [ -n "$hdrs" ]; then
        while read -r b; do
            b=${b#*/}
            if [ ! -e "$inc/$sub/$b" ]; then
                printf '/* abi12-check: %s/%s is missing from the headers under test */\n' "$sub" "$b" > "$inc/$sub/$b"
                echo "$b" >> "$T/$side/stubs"
            fi
        done < "$hdrs"
    fi
}

# ---- extraction ------------------------------------------------------------
# The value program: sizeof/_Alignof of every struct/union/enum tag and
# typedef, the value and C type of every enumerator and of every
# object-like macro that is an integer constant expression, a string
# literal or a pointer constant.  Lines that do not compile (macros that
# are not values) are blanked and the program rebuilt; then it is run.
VALS_HEAD='extern int printf(const char *__restrict, ...);
static void abi_i(const char *abi_k, const char *abi_t, int abi_neg, unsigned long long abi_v)
{
    if (!abi_t[0]) return;
    if (abi_neg) printf("%s\tval=%s:%lld\n", abi_k, abi_t, (long long)abi_v);
    else printf("%s\tval=%s:%llu\n", abi_k, abi_t, abi_v);
}
static void abi_s(const char *abi_k, const char *abi_p, unsigned long abi_n)
{
    unsigned long abi_j;
    printf("%s\tstr=\"", abi_k);
    for (abi_j = 0; abi_j + 1 < abi_n; abi_j++) {
        unsigned char abi_c = (unsigned char)abi_p[abi_j];
        if (abi_c == 34 || abi_c == 92) printf("\\%c", abi_c);
        else if (abi_c < 32 || abi_c > 126) printf("\\x%02x", abi_c);
        else printf("%c", abi_c);
    }
    printf("\"\n");
}
static void abi_p(const char *abi_k, unsigned long abi_v)
{
    printf("%s\tptr=0x%lx\n", abi_k, abi_v);
}
static void abi_z(const char *abi_k, unsigned long abi_sz, unsigned long abi_al)
{
    printf("%s\tsizeof=%lu alignof=%lu\n", abi_k, abi_sz, abi_al);
}
#define ABI_T(x) _Generic((x), _Bool: "_Bool", char: "char", \
    signed char: "signed char", unsigned char: "unsigned char", \
    short: "short", unsigned short: "unsigned short", int: "int", \
    unsigned int: "unsigned int", long: "long", unsigned long: "unsigned long", \
    long long: "long long", unsigned long long: "unsigned long long", default: "")
#define ABI_V(x) _Generic((x), _Bool: (x), char: (x), signed char: (x), \
    unsigned char: (x), short: (x), unsigned short: (x), int: (x), \
    unsigned int: (x), long: (x), unsigned long: (x), long long: (x), \
    unsigned long long: (x), default: 0)
#define ABI_I(k, x) do { _Static_assert((x) || 1, k); \
    abi_i(k, ABI_T(x), ABI_V(x) < 0, (unsigned long long)ABI_V(x)); } while (0)
#define ABI_S(k, s) abi_s(k, s, sizeof(s))
#define ABI_P(k, x) do { _Static_assert(__builtin_classify_type(x) == 5 && \
    !__builtin_types_compatible_p(__typeof__(x), char[]) && \
    __builtin_constant_p((unsigned long)(x)), k); \
    abi_p(k, (unsigned long)(x)); } while (0)
#define ABI_Z(k, ...) abi_z(k, sizeof(__VA_ARGS__), _Alignof(__VA_ARGS__))
int main(void)
{'

# compile_side SIDE ARGS...: the compiler with this side's include path
cc_side() {
    local side=$1; shift
    "${CCV[@]}" "${DIAG[@]}" "${XCF[@]}" -I"$T/$side/inc" "$@"
}

values() {
    local side=$1 d=$T/$1 p0 p1 i bad
    { cat "$d/probe.c"; printf '%s\n' "$VALS_HEAD"; } > "$d/vals.c"
    p0=$(( $(wc -l < "$d/vals.c") + 1 ))
    awk -F'\t' '
        $1 == "Z" { printf "ABI_Z(\"%s\", %s);\n", $2, $3 }
        $1 == "I" { printf "ABI_I(\"%s\", %s);\n", $2, $3 }
        $1 == "M" { printf "ABI_I(\"%s\", %s);\n", $2, $3
                    printf "ABI_S(\"%s\", \"\" %s \"\");\n", $2, $3
                    printf "ABI_P(\"%s\", %s);\n", $2, $3 }
    ' "$d/probes" >> "$d/vals.c"
    p1=$(wc -l < "$d/vals.c")
    printf 'return 0;\n}\n' >> "$d/vals.c"
    for i in 1 2 3 4 5 6 7 8; do
        if cc_side "$side" -w "$d/vals.c" -o "$d/vals" 2> "$d/vals.err"; then
            "$d/vals" > "$d/vals.rec" 2> "$d/vals.run.err" ||
                die "the value program for $side failed to run (see --keep: $d)"
            return 0
        fi
        bad=$(grep -o 'vals\.c:[0-9][0-9]*:' "$d/vals.err" | cut -d: -f2 |
              awk -v a="$p0" -v b="$p1" '$1 >= a && $1 <= b' | sort -un | sed 's/$/s\/.*\/\//' | tr '\n' ';')
        [ -n "$bad" ] || break
        sed -i "$bad" "$d/vals.c" || die "sed on $d/vals.c"
    done
    echo "abi12-check: the value program for $side does not build:" >&2
    sed "s|$T/$side/inc/||g" "$d/vals.err" | head -20 >&2
    return 1
}

# The ABI of every function: a pointer variable of the function's own
# type is declared in a second unit, and its DWARF type (typedefs
# resolved) is read back with dwarf.awk.
signatures() {
    local side=$1 d=$T/$1
    mkdir -p "$d/sig"
    {
        cat "$d/probe.c"
        cut -f1 "$d/func.rec" | sed 's/^function //; s/.*/__typeof__(&) *abi12_sig_&;/'
    } > "$d/sig/sig.c"
    cc_side "$side" -g -gdwarf-5 -c "$d/sig/sig.c" -o "$d/sig/sig.o" 2> "$d/sig/sig.err" || {
        echo "abi12-check: the signature unit for $side does not build:" >&2
        head -20 "$d/sig/sig.err" >&2
        return 1
    }
    readelf --debug-dump=rawline "$d/sig/sig.o" > "$d/sig/line.txt" 2>/dev/null || die "readelf failed"
    readelf --debug-dump=info "$d/sig/sig.o" > "$d/sig/info.txt" 2>/dev/null || die "readelf failed"
    awk -v root="$d/sig" -v probes=/dev/null -f "$DWARF_AWK" "$d/sig/line.txt" "$d/sig/info.txt" |
        awk -F'\t' '$1 ~ /^variable abi12_sig_/ {
            n = $1; sub(/^variable abi12_sig_/, "", n)
            t = $2; sub(/^type=/, "", t); sub(/ definition in=.*/, "", t); sub(/ \*$/, "", t)
            print "function " n "\tabi=" t
        }' >> "$d/vals.rec"
}

# C++ users: the functions must keep C linkage (extern "C") when the
# headers are compiled as C++.
cxx_linkage() {
    local side=$1 d=$T/$1
    [ -n "$CXX" ] || return 0
    {
        cat "$d/probe.c"
        echo 'void *abi_cxx_refs[] = {'
        cut -f1 "$d/func.rec" | sed 's/^function //; s/.*/    (void *)\&&,/'
        echo '    0 };'
    } > "$d/cxx.cc"
    if "${CXXV[@]}" "${DIAG[@]}" "${XCF[@]}" -w -I"$d/inc" -c "$d/cxx.cc" -o "$d/cxx.o" 2> "$d/cxx.err"; then
        printf 'c++ compile\tthe headers compile as C++\n' >> "$d/vals.rec"
        nm -P "$d/cxx.o" | awk '{ print $1 }' > "$d/cxx.syms"
        cut -f1 "$d/func.rec" | sed 's/^function //' | awk -v syms="$d/cxx.syms" '
            BEGIN { while ((getline s < syms) > 0) S[s] = 1 }
            { if ($1 in S) l = "C"
              else { l = "none"; for (s in S) if (s ~ /^_Z/ && index(s, length($1) $1)) { l = "C++ (mangled)"; break } }
              print "function " $1 "\tcxx=" l }' >> "$d/vals.rec"
    else
        printf 'c++ compile\tthe headers do not compile as C++\n' >> "$d/vals.rec"
    fi
}

# extract SIDE SUB INCLUDES...: every fact of one side into $T/SIDE/all.rec
# (key<TAB>value, sorted, one line per key); the names are those declared
# in a file of $T/SIDE/inc/SUB.  Sets $T/SIDE/compiled when it compiles.
extract() {
    local side=$1 sub=$2 d=$T/$1 inc=$T/$1/inc h
    shift 2
    rm -f "$d/compiled"
    : > "$d/probes"; : > "$d/dwarf.rec"; : > "$d/func.rec"; : > "$d/vals.rec"
    : > "$d/macro.rec"; : > "$d/expansion.rec"
    : > "$d/probe.c"
    # <stddef.h> first: the DAT 1.2 headers use NULL without including it
    printf '#include <stddef.h>\n' > "$d/probe.c"
    for h in "$@"; do printf '#include <%s>\n' "$h" >> "$d/probe.c"; done
    if cc_side "$side" -g -gdwarf-5 -fno-eliminate-unused-debug-types \
           -c "$d/probe.c" -o "$d/probe.o" -aux-info "$d/probe.aux" -MD -MF "$d/probe.d" \
           2> "$d/compile.err"; then
        touch "$d/compiled"
        readelf --debug-dump=rawline "$d/probe.o" > "$d/line.txt" 2>/dev/null ||
            die "readelf --debug-dump=rawline failed"
        readelf --debug-dump=info "$d/probe.o" > "$d/info.txt" 2>/dev/null ||
            die "readelf --debug-dump=info failed"
        awk -v root="$inc" -v probes="$d/probes" -f "$DWARF_AWK" \
            "$d/line.txt" "$d/info.txt" > "$d/dwarf.rec" || die "dwarf.awk failed"
        # functions: the prototypes as GCC sees them (-aux-info), typedef
        # names kept; parameter names (definitions only) dropped
        awk -v root="$inc" '
            /^\/\* / {
                hdr = $0; sub(/^\/\* /, "", hdr); sub(/ \*\/ .*/, "", hdr)
                flags = hdr; sub(/.*:/, "", flags)
                path = hdr; sub(/:[0-9]+:[A-Z]+$/, "", path)
                if (index(path, root "/") != 1) next
                file = substr(path, length(root) + 2); sub(/^[^\/]*\//, "dat/", file)
                proto = $0; sub(/^\/\* [^*]*\*\/ /, "", proto); sub(/;.*/, "", proto)
                gsub(/[ \t]+/, " ", proto); gsub(/ ,/, ",", proto)
                gsub(/\( /, "(", proto); gsub(/ \)/, ")", proto); sub(/ $/, "", proto)
                p = index(proto, "("); name = substr(proto, 1, p - 1)
                sub(/ +$/, "", name); sub(/.*[^A-Za-z0-9_]/, "", name)
                kind = (substr(flags, 2, 1) == "F") ? "definition" : "declaration"
                if (substr(flags, 1, 1) == "O") kind = kind " (old-style)"
                print "function " name "\t" kind ": " proto " in=" file
            }' "$d/probe.aux" > "$d/func.rec" || die "reading -aux-info failed"
    fi
    # macros, with the file each comes from (line markers of -dD).  An
    # empty object-like macro named _..._H or _..._H_ is the file's include
    # guard: only its presence is a fact (our guards differ from the
    # reference's on purpose, so that <dat/...> never collides with
    # <dat2/...>, whose guards have the reference's names).
    if cc_side "$side" -dD -E "$d/probe.c" -o "$d/probe.dd" 2> "$d/cpp.err"; then
        awk -v root="$inc" -v probes="$d/probes" '
            /^# [0-9]+ "/ { f = $0; sub(/^# [0-9]+ "/, "", f); sub(/".*/, "", f); next }
            /^#define / {
                def = substr($0, 9); name = def; sub(/[ (].*/, "", name)
                rest = substr(def, length(name) + 1)
                if (index(f, root "/") != 1) { delete M[name]; delete IN[name]; next }
                file = substr(f, length(root) + 2); sub(/^[^\/]*\//, "dat/", file)
                if (substr(rest, 1, 1) == "(") {
                    params = substr(rest, 2); sub(/\).*/, "", params)
                    n = (params == "") ? 0 : split(params, a, ",")
                    M[name] = "function-like arity=" n (params ~ /\.\.\.$/ ? " variadic" : "")
                } else {
                    body = rest; sub(/^[ \t]+/, "", body); sub(/[ \t]+$/, "", body)
                    if (body == "" && name ~ /^_[A-Za-z0-9_]*_H_?$/) { G[name] = file; next }
                    M[name] = "object-like"
                    if (body ~ /^[A-Za-z_][A-Za-z_0-9]*$/) M[name] = M[name] " alias=" body
                    EMPTY[name] = (body == "")
                }
                IN[name] = file
                next
            }
            /^#undef / { delete M[$2]; delete IN[$2]; next }
            END {
                for (n in G) print "guard " G[n] "\tpresent"
                for (n in M) {
                    print "macro " n "\t" M[n] " in=" IN[n]
                    if (M[n] ~ /^object-like/ && !EMPTY[n]) print "M\tmacro " n "\t" n >> probes
                }
            }' "$d/probe.dd" > "$d/macro.rec" || die "reading -dD output failed"
    fi
    # what every macro expands to (function-like ones with placeholder
    # arguments), whitespace normalised; kept as a fact for function-like
    # macros and for object-like ones that are not a value
    if [ -s "$d/macro.rec" ]; then
        {
            cat "$d/probe.c"
            awk -F'\t' '$1 ~ /^macro / {
                name = $1; sub(/^macro /, "", name)
                if ($2 ~ /^function-like/) {
                    n = $2; sub(/.*arity=/, "", n); sub(/ .*/, "", n); n += 0
                    a = ""; for (i = 1; i <= n; i++) a = a (i > 1 ? ", " : "") "__abi_arg" i
                    print "__abi_exp \"" name "\" : " name "(" a ")"
                } else print "__abi_exp \"" name "\" : " name
            }' "$d/macro.rec"
        } > "$d/exp.c"
        cc_side "$side" -E -P "$d/exp.c" 2>/dev/null |
            sed -n 's/^__abi_exp "\([A-Za-z0-9_]*\)" : /macro \1\texpands=/p' |
            sed ':a
                s/\([^A-Za-z0-9_\t]\)[[:space:]]\{1,\}/\1/g
                s/[[:space:]]\{1,\}\([^A-Za-z0-9_\t]\)/\1/g
                s/\([A-Za-z0-9_]\)[[:space:]]\{2,\}\([A-Za-z0-9_]\)/\1 \2/g' > "$d/expansion.rec"
    fi
    if [ -f "$d/compiled" ]; then
        values "$side" || rm -f "$d/compiled"
    fi
    if [ -f "$d/compiled" ]; then
        signatures "$side" || rm -f "$d/compiled"
    fi
    [ -f "$d/compiled" ] && cxx_linkage "$side"
    # one line per key; values of the same key joined in source order; an
    # expansion is dropped where the macro has a value (val, str or ptr)
    cat "$d/header.rec" "$d/dwarf.rec" "$d/func.rec" "$d/macro.rec" "$d/vals.rec" "$d/expansion.rec" |
        awk -F'\t' '
            NF < 2 { next }
            seen[$0]++ { next }
            $1 in v { v[$1] = v[$1] ($2 ~ /^(sizeof|val|str|ptr|cxx|abi|expands)=/ ? " " : " | ") $2; next }
            { v[$1] = $2; k[++n] = $1 }
            END {
                for (i = 1; i <= n; i++) {
                    x = v[k[i]]
                    if (x ~ / (val|str|ptr)=/) { sub(/ alias=[^ ]*/, "", x); sub(/ expands=.*/, "", x) }
                    print k[i] "\t" x
                }
            }' |
        sort -t "$(printf '\t')" -k1,1 > "$d/all.rec"
}

# origin check: every dat or dat2 header the compiler read came from the
# staged copy of this side
origin_check() {
    local side=$1 sub=$2 d=$T/$1 inc=$T/$1/inc
    [ -f "$d/probe.d" ] || return 0
    sed 's/\\$//; s/\\ /\x01/g' "$d/probe.d" | tr ' ' '\n' | tr '\001' ' ' | grep -E '/dat2?/' | sort -u > "$d/dat-headers"
    grep -v -F "$inc/$sub/" "$d/dat-headers" > "$d/foreign-headers"
    [ ! -s "$d/foreign-headers" ]
}

# the facts file without its comments, sorted as all.rec is
facts_body() {
    grep -v '^#' "$1" | grep -v '^$' | sort -t "$(printf '\t')" -k1,1
}

# compare A-ALLREC B-ALLREC OUT: OUT gets key<TAB>a<TAB>b for each
# difference, OUT.joined every key; prints the number of differences
compare() {
    local a=$1 b=$2 out=$3 tab
    tab=$(printf '\t')
    join -t "$tab" -a1 -a2 -e '(absent)' -o 0,1.2,2.2 "$a" "$b" > "$out.joined"
    awk -F'\t' '$2 != $3' "$out.joined" > "$out"
    wc -l < "$out" | tr -d ' '
}

# Differences made on purpose (accepted: key, ours, reference, reason;
# tab-separated).  Key and values are shell-style patterns (* and ?), so
# that "struct dat_provider.*<TAB>(absent)<TAB>*" accepts every member the
# reference has and ours leaves out, and nothing else.
filter_accepted() {   # filter_accepted DIFF LEFT ACCEPTED-OUT
    awk -F'\t' -v acc_out="$3" '
        function re(p) { gsub(/[][.+^$(){}|\\]/, "\\\\&", p); gsub(/\*/, ".*", p); gsub(/\?/, ".", p); return "^" p "$" }
        FILENAME == ARGV[1] { if ($0 !~ /^#/ && NF >= 4) { n++; K[n] = re($1); O[n] = re($2); R[n] = re($3); W[n] = $4; U[n] = 0 } next }
        {
            for (i = 1; i <= n; i++)
                if ($1 ~ K[i] && $2 ~ O[i] && $3 ~ R[i]) { U[i]++; if (U[i] == 1) F[i] = $1; next }
            print
        }
        END {
            for (i = 1; i <= n; i++)
                if (U[i] == 1) printf "ACCEPTED %s: %s\n", F[i], W[i] > acc_out
                else if (U[i] > 1) printf "ACCEPTED %d differences like %s: %s\n", U[i], F[i], W[i] > acc_out
        }' "$ACCEPTED" "$1" > "$2"
}

print_diffs() {
    awk -F'\t' '{ printf "DIFF %s\n    ours: %s\n    ref:  %s\n", $1, $2, $3 }' "$1"
}

counts() {
    awk -F'\t' '
        /^(struct|union) [^.]*\t/ { s++ }
        /^(struct|union) [^\t]*\./ { f++ }
        /^enumerator / { e++ } /^macro / { m++ }
        /^function / { fn++ }
        /^typedef / { t++ }
        END { printf "%d structs/unions, %d fields, %d enumerators, %d macros, %d functions, %d typedefs", s, f, e, m, fn, t }' "$1"
}

# ---- the extra checks on ours --------------------------------------------
# strict: ours compiles with -std=c99 -pedantic-errors -Wall -Wextra -Werror,
# and as C++ with -pedantic-errors -Wall -Wextra -Werror
strict_compiles() {   # strict_compiles SIDE -> 0 ok, 1 not
    local side=$1 d=$T/$1
    cat > "$d/strict.c" <<'EOF'
#include <dat/udat.h>
#include <dat/dat_registry.h>
DAT_RETURN abi12_strict(DAT_IA_HANDLE *ia, DAT_EVD_HANDLE *evd);
DAT_RETURN abi12_strict(DAT_IA_HANDLE *ia, DAT_EVD_HANDLE *evd)
{
	char name[] = "x";
	DAT_RETURN r = dat_ia_open(name, 8, evd, ia);

	if (*ia == DAT_HANDLE_NULL)
		return DAT_INVALID_HANDLE;
	if (DAT_GET_TYPE(r) != DAT_SUCCESS || DAT_IS_WARNING(r))
		return DAT_GET_SUBTYPE(r) | (DAT_RETURN)DAT_IA_FIELD_ALL;
	return (DAT_RETURN)sizeof(DAT_EVENT);
}
EOF
    cp "$d/strict.c" "$d/strict.cc"
    "${CCV[@]}" "${DIAG[@]}" -std=c99 -pedantic-errors -Wall -Wextra -Werror \
        -I"$d/inc" -c "$d/strict.c" -o "$d/strict.o" > "$d/strict.err" 2>&1 || return 1
    if [ -n "$CXX" ]; then
        "${CXXV[@]}" "${DIAG[@]}" -pedantic-errors -Wall -Wextra -Werror \
            -I"$d/inc" -c "$d/strict.cc" -o "$d/strict-cc.o" >> "$d/strict.err" 2>&1 || return 1
    fi
    return 0
}

# collision: <dat2/udat.h> then <dat/udat.h> stops first at our #error; prints
# "ok", "FAILED" or "skipped (reason)"
collision_check() {   # collision_check SIDE DAT2ROOT
    local side=$1 d=$T/$1 root=$2
    if [ -z "$root" ] || [ ! -f "$root/dat2/udat.h" ]; then echo "skipped (no dat2 headers next to ours)"; return; fi
    printf '#include <dat2/udat.h>\n#include <dat/udat.h>\nint abi12_collision;\n' > "$d/collide.c"
    if "${CCV[@]}" "${DIAG[@]}" -fsyntax-only -I"$d/inc" -I"$root" "$d/collide.c" > "$d/collide.err" 2>&1; then
        echo "FAILED"; return
    fi
    # the first error must be ours: what the programmer reads first
    if grep -m1 'error:' "$d/collide.err" | grep -q '#error.*DAT 1\.2'; then
        echo "ok"
    else
        echo "FAILED"
    fi
}

# ---- modes -----------------------------------------------------------------
HDRS_PROBE=(dat/udat.h dat/dat_registry.h)

if [ "$MODE" = extract ]; then
    root=$(incroot "$EXTRACT_DIR" dat)
    [ -n "$root" ] || die "no dat directory under --extract $EXTRACT_DIR"
    stage ref "$root" dat
    extract ref dat "${HDRS_PROBE[@]}"
    if [ ! -f "$T/ref/compiled" ]; then
        sed "s|$T/ref/inc/|$root/|g" "$T/ref/compile.err" "$T/ref/vals.err" "$T/ref/sig/sig.err" 2>/dev/null >&2
        die "the headers under $root/dat do not compile"
    fi
    origin_check ref dat || { cat "$T/ref/foreign-headers" >&2; die "headers read from outside $root/dat"; }
    cat "$T/ref/all.rec"
    exit 0
fi

OURSROOT=$(incroot "$OURS" dat)
[ -n "$OURSROOT" ] || die "no dat directory under --ours $OURS"

if [ "$MODE" = vsdat2 ]; then
    [ -n "$DAT2" ] || DAT2=$OURSROOT
    D2ROOT=$(incroot "$DAT2" dat2)
    [ -n "$D2ROOT" ] || die "no dat2 directory under --dat2 $DAT2"
    stage ours "$OURSROOT" dat
    extract ours dat "${HDRS_PROBE[@]}"
    stage d2 "$D2ROOT" dat2
    extract d2 dat2 dat2/udat.h dat2/dat_registry.h
    for s in ours d2; do
        [ -f "$T/$s/compiled" ] || { cat "$T/$s/compile.err" >&2; die "$s does not compile"; }
        # where a name is declared, include guards and header files are
        # not what the library translates
        sed 's/ in=[^ |]*//g' "$T/$s/all.rec" |
            grep -v -E '^(guard|header|c\+\+ compile) ' > "$T/$s/nofile.rec"
    done
    n=$(compare "$T/ours/nofile.rec" "$T/d2/nofile.rec" "$T/vs")
    if [ -n "$RECORDS" ]; then
        { mkdir -p "$RECORDS" && cp "$T/ours/nofile.rec" "$RECORDS/1.2.rec" &&
            cp "$T/d2/nofile.rec" "$RECORDS/2.0.rec"; } || die "cannot write $RECORDS"
    fi
    awk -F'\t' '{ printf "%s\n    1.2: %s\n    2.0: %s\n", $1, $2, $3 }' "$T/vs"
    echo "vs-dat2: $(counts "$T/vs.joined") compared: $n differences"
    exit 0
fi

[ -f "$FACTS" ] || die "no reference facts: $FACTS (see gen-reference.sh)"
facts_body "$FACTS" > "$T/ref.rec"
sed -n 's/^header \(dat\/[^\t]*\)\t.*/\1/p' "$T/ref.rec" > "$T/ref.headers"
[ -f "$ACCEPTED" ] || : > "$T/accepted.none"
[ -f "$ACCEPTED" ] || ACCEPTED=$T/accepted.none

# check_side SIDE: the facts comparison plus the extra checks; prints the
# report, sets CHECK_DIFFS (differences left) and CHECK_FAILS (checks failed)
check_side() {
    local side=$1 d=$T/$1 r
    CHECK_FAILS=0
    CHECK_FAILED_NAMES=
    extract "$side" dat "${HDRS_PROBE[@]}"
    if [ ! -f "$d/compiled" ]; then
        echo "check: ours compiles (dat/udat.h, dat/dat_registry.h): FAILED"
        sed "s|$d/inc/||g" "$d/compile.err" "$d/vals.err" "$d/sig/sig.err" 2>/dev/null | head -30
        CHECK_FAILS=$((CHECK_FAILS + 1)); CHECK_FAILED_NAMES="$CHECK_FAILED_NAMES compile"
        # only header presence and macro names/arity are comparable
        grep -E '^(header|guard|macro) ' "$d/all.rec" | sed 's/ alias=[^ ]*//; s/ \(val\|str\|ptr\|expands\)=.*//' > "$d/cmp.rec"
        grep -E '^(header|guard|macro) ' "$T/ref.rec" | sed 's/ alias=[^ ]*//; s/ \(val\|str\|ptr\|expands\)=.*//' > "$d/cmp.ref"
    else
        echo "check: ours compiles (dat/udat.h, dat/dat_registry.h): ok"
        cp "$d/all.rec" "$d/cmp.rec"
        cp "$T/ref.rec" "$d/cmp.ref"
        if [ -z "$CXX" ]; then
            echo "note: C++ linkage not compared: no C++ compiler for '$CC_CMD' (apt-get install -y g++)"
            sed -i 's/ cxx=[^ ]*\( (mangled)\)\{0,1\}//; /^c++ compile/d' "$d/cmp.rec" "$d/cmp.ref"
        fi
    fi
    if origin_check "$side" dat; then r=ok; else r=FAILED; CHECK_FAILS=$((CHECK_FAILS + 1)); CHECK_FAILED_NAMES="$CHECK_FAILED_NAMES origin"; fi
    echo "check: every dat/dat2 header read came from ours ($(wc -l < "$d/dat-headers" 2>/dev/null || echo 0) headers): $r"
    [ "$r" = ok ] || sed 's/^/    read from elsewhere: /' "$d/foreign-headers"
    if strict_compiles "$side"; then r=ok; else r=FAILED; CHECK_FAILS=$((CHECK_FAILS + 1)); CHECK_FAILED_NAMES="$CHECK_FAILED_NAMES strict"; fi
    echo "check: ours compiles with -std=c99 -pedantic-errors -Wall -Wextra -Werror${CXX:+ and as C++}: $r"
    [ "$r" = ok ] || sed "s|$d/inc/||g" "$d/strict.err" | head -15
    r=$(collision_check "$side" "$(incroot "$OURSROOT" dat2)")
    case $r in FAILED) CHECK_FAILS=$((CHECK_FAILS + 1)); CHECK_FAILED_NAMES="$CHECK_FAILED_NAMES collision" ;; esac
    echo "check: <dat2/udat.h> then <dat/udat.h> stops at our #error: $r"
    [ "$r" != FAILED ] || sed "s|$d/inc/||g" "$d/collide.err" | head -10
    if [ -s "$d/stubs" ]; then
        while read -r h; do echo "abi12: dat/$h is missing from ours"; done < "$d/stubs"
    fi
    compare "$d/cmp.rec" "$d/cmp.ref" "$d/diff" > /dev/null
    rm -f "$d/diff.accepted"
    filter_accepted "$d/diff" "$d/diff.left" "$d/diff.accepted"
    CHECK_DIFFS=$(wc -l < "$d/diff.left" | tr -d ' ')
}

# ---- self-test ---------------------------------------------------------------
mutate() {   # mutate DIR FILE AWK-PROGRAM
    local dir=$1 file=$2 prog=$3
    awk -v dat2root="$(incroot "$OURSROOT" dat2)" "$prog" "$dir/dat/$file" > "$dir/dat/$file.new" || die "mutation awk failed"
    if cmp -s "$dir/dat/$file" "$dir/dat/$file.new"; then
        rm -f "$dir/dat/$file.new"; return 1
    fi
    mv "$dir/dat/$file.new" "$dir/dat/$file"
}

if [ "$MODE" = selftest ]; then
    n=0; ok=0
    stage base "$OURSROOT" dat "$T/ref.headers"
    check_side base > "$T/base.out"
    n=$((n + 1))
    if [ "$CHECK_DIFFS" = 0 ] && [ "$CHECK_FAILS" = 0 ]; then
        echo "self-test: unmodified copy of ours: identical to the facts ($(counts "$T/base/diff.joined")): ok"
        ok=$((ok + 1))
    else
        echo "self-test: unmodified copy of ours: $CHECK_DIFFS differences, $CHECK_FAILS checks failed: FAILED"
        cat "$T/base.out"; print_diffs "$T/base/diff.left" | head -20
    fi
    i=0
    while IFS='|' read -r desc key file prog; do
        [ -n "$desc" ] || continue
        i=$((i + 1)); n=$((n + 1))
        src=$T/src$i
        mkdir -p "$src" || die "mkdir $src"
        cp -RL "$OURSROOT/dat" "$src/" || die "cannot copy ours"
        if [ "$file" = "-" ]; then
            rm -f "$src/dat/$prog"
        elif ! mutate "$src" "$file" "$prog"; then
            echo "self-test: $desc: mutation did not apply to $file: FAILED"
            continue
        fi
        stage "mut$i" "$src" dat "$T/ref.headers"
        # the collision check looks for dat2 next to the copy: give it ours
        [ -d "$OURSROOT/dat2" ] && ln -s "$OURSROOT/dat2" "$src/dat2"
        OURSROOT_SAVE=$OURSROOT; OURSROOT=$src
        check_side "mut$i" > "$T/mut$i.out"
        OURSROOT=$OURSROOT_SAVE
        case $key in
            "(check:"*)
                want=${key#(check:}; want=${want%)}
                if [[ " $CHECK_FAILED_NAMES " == *" $want "* ]]; then
                    echo "self-test: $desc: detected (check '$want' failed; $CHECK_DIFFS differences)"
                    ok=$((ok + 1))
                else
                    echo "self-test: $desc: NOT detected by the '$want' check: FAILED"
                    cat "$T/mut$i.out"
                fi ;;
            *)
                if cut -f1 "$T/mut$i/diff.left" | grep -qxF "$key"; then
                    echo "self-test: $desc: detected ($CHECK_DIFFS differences, including '$key')"
                    ok=$((ok + 1))
                else
                    echo "self-test: $desc: NOT detected (expected a difference at '$key'; $CHECK_DIFFS differences): FAILED"
                    print_diffs "$T/mut$i/diff.left" | head -12
                fi ;;
        esac
    done <<'EOF'
macro value changed (DAT_VERSION_MINOR 2 -> 3)|macro DAT_VERSION_MINOR|udat_config.h|{ if ($0 ~ /^#define[ \t]+DAT_VERSION_MINOR[ \t]+2/) sub(/2$/, "3"); print }
the 2.0 triplet slipped in (DAT_LMR_TRIPLET.segment_length: DAT_VLEN -> DAT_UINT32)|struct dat_lmr_triplet.segment_length|dat.h|/^typedef struct dat_lmr_triplet/ { t = 1 } t && /DAT_VLEN[ \t]+segment_length/ { sub(/DAT_VLEN/, "DAT_UINT32"); t = 0 } { print }
struct fields swapped (DAT_RMR_TRIPLET: rmr_context <-> pad)|struct dat_rmr_triplet.rmr_context|dat.h|/^typedef struct dat_rmr_triplet/ { t = 1 } t && /DAT_RMR_CONTEXT[ \t]+rmr_context;/ { held = $0; next } t && held != "" && /pad;/ { print; print held; held = ""; t = 0; next } { print }
enum value changed (DAT_MEM_TYPE_SO_VIRTUAL 0x03 -> 0x04)|enumerator DAT_MEM_TYPE_SO_VIRTUAL|udat.h|{ if ($0 ~ /DAT_MEM_TYPE_SO_VIRTUAL[ \t]*= 0x03/) sub(/0x03/, "0x04"); print }
enumerator removed (DAT_INVALID_RO_COOKIE)|enumerator DAT_INVALID_RO_COOKIE|dat_error.h|/^[ \t]*DAT_INVALID_RO_COOKIE/ { next } { print }
macro removed (DAT_PROVIDER_FIELD_NONE)|macro DAT_PROVIDER_FIELD_NONE|udat.h|/^#define[ \t]+DAT_PROVIDER_FIELD_NONE[ \t]/ { next } { print }
function parameter typedef changed, same ABI (dat_ia_close: DAT_CLOSE_FLAGS -> DAT_UINT32)|function dat_ia_close|dat.h|/DAT_API dat_ia_close\(/ { f = 1 } f && /DAT_CLOSE_FLAGS/ { sub(/DAT_CLOSE_FLAGS/, "DAT_UINT32"); f = 0 } { print }
function given the 2.0 parameter list (dat_lmr_create gains DAT_VA_TYPE)|function dat_lmr_create|udat.h|/dat_lmr_create\(/ { f = 1 } f && /DAT_MEM_PRIV_FLAGS,/ { print; print "\tIN\tDAT_UINT32,\t\t\t/* va_type */"; f = 0; next } { print }
function turned into a macro (dat_ep_reset)|function dat_ep_reset|dat.h|{ if ($0 ~ /dat_ep_reset\(/) { sub(/dat_ep_reset\(/, "dat_ep_reset_impl("); print; next } print } END { print "#define dat_ep_reset(ep) dat_ep_reset_impl(ep)" }
C linkage lost (no extern "C" in udat.h)|function dat_evd_wait|udat.h|/^extern "C" \{/ { skip = 1; next } skip && /^}$/ { skip = 0; next } { print }
typedef changed (DAT_COUNT: int -> unsigned int)|typedef DAT_COUNT|dat_platform_specific.h|{ if ($0 ~ /^typedef[ \t]+int[ \t]+DAT_COUNT;/) sub(/int/, "unsigned int"); print }
function-like macro expansion changed (dat_ia_open asks for 2.0)|macro dat_ia_open|dat.h|{ gsub(/DAT_VERSION_MAJOR, DAT_VERSION_MINOR/, "2, 0"); print }
extra name in the headers under test (DAT_SOFTDAPL_EXTRA)|macro DAT_SOFTDAPL_EXTRA|udat_config.h|{ print } /^#define[ \t]+DAT_VERSION_MINOR/ { print "#define DAT_SOFTDAPL_EXTRA 1" }
header missing (never taken from elsewhere)|header dat/udat_vendor_specific.h|-|udat_vendor_specific.h
a DAT 2.0 header read instead of ours (dat.h -> <dat2/dat_error.h>)|(check:origin)|dat.h|{ if ($0 ~ /^#include <dat\/dat_error.h>/) $0 = "#include \"" dat2root "/dat2/dat_error.h\""; print }
not ISO C99 (a stray ; at file scope)|(check:strict)|udat.h|{ print } /^typedef DAT_HANDLE[ \t]+DAT_CNO_HANDLE;/ { print ";" }
include guard shared with <dat2/udat.h> (_UDAT_H_): a silent mix|(check:collision)|udat.h|{ gsub(/_SOFTDAPL_DAT_UDAT_H_/, "_UDAT_H_"); print }
EOF
    echo "self-test: $ok/$n cases passed"
    [ "$ok" = "$n" ]
    exit $?
fi

# ---- the check -----------------------------------------------------------------
echo "abi12: ours:  $OURSROOT/dat"
echo "abi12: facts: $FACTS"
sed -n 's/^# \(source\|commit\|generated\): /abi12: reference \1: /p' "$FACTS"
stage ours "$OURSROOT" dat "$T/ref.headers"
check_side ours
[ -f "$T/ours/diff.accepted" ] && cat "$T/ours/diff.accepted"
print_diffs "$T/ours/diff.left"
total=$((CHECK_DIFFS + CHECK_FAILS))
echo "abi12: $(counts "$T/ours/diff.joined") compared ($(wc -l < "$T/ours/diff.joined" | tr -d ' ') facts): $total differences"
[ "$total" = 0 ]
exit $?
