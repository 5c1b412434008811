#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# check-layers.sh: checks the provider's calls against its layer table.
#
#   check-layers.sh SRCDIR OBJDIR            check (make check: layers_*)
#   check-layers.sh SRCDIR OBJDIR --list     print every call that breaks
#                                            the table
#   check-layers.sh SRCDIR OBJDIR --self-test  prove each rule can fail
#
# SRCDIR is the top of the tree, OBJDIR the build's provider objects
# (build/provider). The table is the LAYERS-BEGIN ... LAYERS-END block of
# provider/softdapl.h: a layer (1, 2, 3, 4, 5s, 5e, 5d, in that order from
# the bottom) and the files in it. A file calls another when its object
# names (nm -u) a global symbol that the other's object defines. A call
# breaks the table when
#   - it goes up: the callee's layer is above the caller's;
#   - it enters an entry-point file (5e) from anywhere but 5d (the
#     provider table and the extension dispatch);
#   - it closes a cycle of files (files that call each other, directly or
#     not) outside the connection core (layer 4), or one of more than 8
#     files inside it: the core is the only cycle allowed.
# Every provider/*.c must have exactly one layer.
#
# Headers have layers too, on lines of their own (1h, 2h, 3h, 4h, 5h: the
# headers of layer 1 ... 4, and of the entry layer). A header is not an
# object: nm never sees it, and the call rules above ignore it. The
# include rule: a .c of layer 1 to 4, or a header, includes (#include "...")
# no provider header of a higher layer than its own; a .c of layer 5s, 5e
# or 5d may include any. Every provider/*.h must have exactly one layer.
#
# The check fails on any of these, printing each.
set -euo pipefail

prog=check-layers
[ $# -ge 2 ] || { echo "usage: $0 SRCDIR OBJDIR [--list|--self-test]" >&2; exit 2; }
src=$1 obj=$2 mode=${3:-check}
table=${LAYERS_TABLE:-$src/provider/softdapl.h}

# The table as "file layer" lines; fails on a file listed twice.
read_table() {
	awk '
	/LAYERS-BEGIN/ { on = 1; next }
	/LAYERS-END/ { on = 0 }
	on {
		sub(/^[ \t]*\*[ \t]*/, "")
		if ($0 == "") next
		layer = $1
		for (i = 2; i <= NF; i++) {
			if ($i in seen) {
				printf "layers: %s is in layers %s and %s\n", $i, seen[$i], layer > "/dev/stderr"
				bad = 1
			}
			seen[$i] = layer
			print $i, layer
		}
	}
	END { exit bad }' "$1"
}

# Every call that breaks the table, sorted, one line each.
violations() {
	local tab=$1 srcdir=$2 f base o missing=0

	for f in "$srcdir"/provider/*.c "$srcdir"/provider/*.h; do
		[ -e "$f" ] || continue
		base=${f##*/}
		if ! awk -v f="$base" '$1 == f { found = 1 } END { exit !found }' "$tab"; then
			echo "layers: provider/$base has no layer"
			missing=1
		fi
	done
	# The include rule: "FILE HEADER" for every #include "HEADER".
	for f in "$srcdir"/provider/*.c "$srcdir"/provider/*.h; do
		[ -e "$f" ] || continue
		sed -n 's/^[ \t]*#[ \t]*include[ \t]*"\([^"]*\)".*/\1/p' "$f" |
			awk -v f="${f##*/}" '{ print f, $1 }'
	done | awk -v tabfile="$tab" '
	BEGIN {
		rank["1"] = 1; rank["2"] = 2; rank["3"] = 3; rank["4"] = 4
		rank["1h"] = 1; rank["2h"] = 2; rank["3h"] = 3; rank["4h"] = 4
		rank["5h"] = 5
		while ((getline line < tabfile) > 0) {
			split(line, a, " ")
			layer[a[1]] = a[2]
		}
	}
	{
		f = $1; h = $2
		if (!(f in layer) || !(h in layer) || !(layer[h] ~ /h$/))
			next
		if (!(layer[f] in rank))
			next	# 5s, 5e, 5d: any header
		if (rank[layer[h]] > rank[layer[f]])
			printf "layers: %s (%s) includes %s (%s)\n", f, layer[f], h, layer[h]
	}'
	for o in "$obj"/*.o; do
		base=${o##*/}
		nm -P --defined-only -g "$o" | awk -v f="${base%.o}.c" '$2 != "U" { print "D", $1, f }'
		nm -P -u "$o" | awk -v f="${base%.o}.c" '{ print "U", $1, f }'
	done | awk -v tabfile="$tab" -v MAXCYCLE=8 '
	BEGIN {
		rank["1"] = 1; rank["2"] = 2; rank["3"] = 3; rank["4"] = 4
		rank["5s"] = 5; rank["5e"] = 6; rank["5d"] = 7
		while ((getline line < tabfile) > 0) {
			split(line, a, " ")
			layer[a[1]] = a[2]
		}
	}
	$1 == "D" { def[$2] = $3; next }
	{ use[++n] = $3 " " $2 }
	END {
		for (i = 1; i <= n; i++) {
			split(use[i], a, " ")
			caller = a[1]; sym = a[2]
			if (!(sym in def) || def[sym] == caller)
				continue
			callee = def[sym]
			if (!(caller in layer) || !(callee in layer))
				continue
			lc = layer[caller]; le = layer[callee]
			o = caller; sub(/\.c$/, ".o", o)
			if (rank[le] > rank[lc])
				printf "layers: %s calls %s (%s, layer %s) from layer %s\n", o, sym, callee, le, lc
			else if (le == "5e" && lc != "5d")
				printf "layers: %s calls %s, in %s, an entry-point file\n", o, sym, callee
			if (!((caller, callee) in edge)) {
				edge[caller, callee] = 1
				if (!(caller in id)) { id[caller] = ++nf; name[nf] = caller }
				if (!(callee in id)) { id[callee] = ++nf; name[nf] = callee }
			}
		}
		# Cycles: files that reach each other (transitive closure).
		for (k in edge) {
			split(k, a, SUBSEP)
			r[id[a[1]], id[a[2]]] = 1
		}
		for (k = 1; k <= nf; k++)
			for (i = 1; i <= nf; i++)
				if ((i, k) in r)
					for (j = 1; j <= nf; j++)
						if ((k, j) in r)
							r[i, j] = 1
		for (i = 1; i <= nf; i++) {
			if (done[i] || !((i, i) in r))
				continue
			list = ""; size = 0; core = 1
			for (j = 1; j <= nf; j++) {
				if ((i, j) in r && (j, i) in r) {
					done[j] = 1
					list = list " " name[j]
					size++
					if (layer[name[j]] != "4")
						core = 0
				}
			}
			if (!core)
				printf "layers: cycle of %d files outside the connection core:%s\n", size, list
			else if (size > MAXCYCLE)
				printf "layers: cycle of %d files in the connection core (at most %d):%s\n", size, MAXCYCLE, list
		}
	}' | sort -u
	return $missing
}

ls "$obj"/*.o >/dev/null 2>&1 || { echo "$prog: no objects in $obj: build first" >&2; exit 2; }
tab=$(mktemp)
trap 'rm -f "$tab" "$tab".*' EXIT
read_table "$table" > "$tab"

case $mode in
--list)
	{ violations "$tab" "$src" || true; } | sort -u
	;;
check)
	violations "$tab" "$src" > "$tab.now" || true
	sort -u -o "$tab.now" "$tab.now"
	if grep -q "has no layer" "$tab.now"; then
		grep "has no layer" "$tab.now"
		exit 1
	fi
	if [ -s "$tab.now" ]; then
		echo "what breaks the layer table (provider/softdapl.h, LAYERS-BEGIN):"
		cat "$tab.now"
		exit 1
	fi
	echo "layers: $(wc -l < "$tab") files, no call up a layer or into an" \
		"entry point, no cycle outside the core, no include from above"
	exit 0
	;;
--self-test)
	# 1. tx.c moved down to layer 1: its calls into the core go up.
	awk '$1 == "tx.c" { $2 = "1" } { print }' "$tab" > "$tab.t1"
	violations "$tab.t1" "$src" > "$tab.v1" || true
	grep -q '^layers: tx\.o calls .* from layer 1$' "$tab.v1" || {
		echo "$prog: self-test: tx.c in layer 1 did not break the table"; exit 1; }
	# 2. Every file an entry-point file: any call between two of them
	#    enters an entry-point file from the same layer.
	awk '{ print $1, "5e" }' "$tab" > "$tab.t2"
	violations "$tab.t2" "$src" > "$tab.v2" || true
	grep -q ' an entry-point file$' "$tab.v2" || {
		echo "$prog: self-test: a call between entry-point files went unnoticed"; exit 1; }
	if grep -q ' from layer ' "$tab.v2"; then
		echo "$prog: self-test: calls within one layer were taken for upcalls"; exit 1
	fi
	# 3. A source file with no layer.
	mkdir -p "$tab.src/provider"
	for f in "$src"/provider/*.c; do ln -s "$f" "$tab.src/provider/"; done
	: > "$tab.src/provider/zz.c"
	violations "$tab" "$tab.src" > "$tab.v3" 2>&1 || true
	rm -rf "$tab.src"
	grep -q '^layers: provider/zz\.c has no layer$' "$tab.v3" || {
		echo "$prog: self-test: a file with no layer went unnoticed"; exit 1; }
	# 4. A file in two layers.
	awk '/LAYERS-BEGIN/ { print; print " *   9 obj.c"; next } { print }' \
		"$table" > "$tab.h2"
	if read_table "$tab.h2" > /dev/null 2>&1; then
		echo "$prog: self-test: a file in two layers went unnoticed"; exit 1
	fi
	# 5. The connection core moved to layer 3: its cycle is outside layer 4.
	awk '$2 == "4" { $2 = "3" } { print }' "$tab" > "$tab.t5"
	violations "$tab.t5" "$src" > "$tab.v5" || true
	grep -q '^layers: cycle of [0-9]* files outside the connection core:' "$tab.v5" || {
		echo "$prog: self-test: a cycle outside the core went unnoticed"; exit 1; }
	# 6. A core file that includes an entry-layer header, and a header
	#    that includes one of a higher layer.
	mkdir -p "$tab.src/provider"
	for f in "$src"/provider/*.c "$src"/provider/*.h; do
		case ${f##*/} in tx.c|util.h) ;; *) ln -s "$f" "$tab.src/provider/" ;; esac
	done
	{ echo '#include "api.h"'; cat "$src/provider/tx.c"; } > "$tab.src/provider/tx.c"
	{ echo '#include "qp.h"'; cat "$src/provider/util.h"; } > "$tab.src/provider/util.h"
	violations "$tab" "$tab.src" > "$tab.v6" 2>&1 || true
	rm -rf "$tab.src"
	grep -q '^layers: tx\.c (4) includes api\.h (5h)$' "$tab.v6" || {
		echo "$prog: self-test: tx.c including api.h went unnoticed"; exit 1; }
	grep -q '^layers: util\.h (1h) includes qp\.h (4h)$' "$tab.v6" || {
		echo "$prog: self-test: util.h including qp.h went unnoticed"; exit 1; }
	echo "$prog: self-test: an upcall, an entry-point call, a cycle outside the core, a file with no layer, a file in two layers and an include from a higher layer are each caught"
	;;
*)
	echo "$prog: unknown mode $mode" >&2
	exit 2
	;;
esac
