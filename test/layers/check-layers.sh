#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# check-layers.sh: checks the provider's calls against its layer table.
#
#   check-layers.sh SRCDIR OBJDIR            check (make check: layers_*)
#   check-layers.sh SRCDIR OBJDIR --list     print every call that breaks
#                                            the table (to write the baseline)
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
# While the provider is being layered, test/layers/baseline.txt lists the
# calls that still break the table, one per line as --list prints them.
# The check fails on a call not in it, and on a line of it that no longer
# occurs: each change that removes an upcall removes its line.
set -euo pipefail

prog=check-layers
[ $# -ge 2 ] || { echo "usage: $0 SRCDIR OBJDIR [--list|--self-test]" >&2; exit 2; }
src=$1 obj=$2 mode=${3:-check}
table=${LAYERS_TABLE:-$src/provider/softdapl.h}
baseline=$src/test/layers/baseline.txt

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

	for f in "$srcdir"/provider/*.c; do
		base=${f##*/}
		if ! awk -v f="$base" '$1 == f { found = 1 } END { exit !found }' "$tab"; then
			echo "layers: provider/$base has no layer"
			missing=1
		fi
	done
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
	violations "$tab" "$src" || true
	;;
check)
	violations "$tab" "$src" > "$tab.now" || true
	if grep -q "has no layer" "$tab.now"; then
		grep "has no layer" "$tab.now"
		exit 1
	fi
	touch "$tab.base"
	# (an empty baseline, its header only, is the goal: grep finds nothing)
	[ ! -f "$baseline" ] || { grep -v '^#' "$baseline" || true; } | sort -u > "$tab.base"
	new=$(comm -23 "$tab.now" "$tab.base")
	gone=$(comm -13 "$tab.now" "$tab.base")
	rc=0
	if [ -n "$new" ]; then
		echo "calls that break the layer table (provider/softdapl.h, LAYERS-BEGIN):"
		echo "$new"
		rc=1
	fi
	if [ -n "$gone" ]; then
		echo "lines of test/layers/baseline.txt that no longer occur (remove them):"
		echo "$gone"
		rc=1
	fi
	[ $rc -ne 0 ] || echo "layers: $(wc -l < "$tab") files; $(wc -l < "$tab.now")" \
		"calls break the table, each listed in test/layers/baseline.txt"
	exit $rc
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
	echo "$prog: self-test: an upcall, an entry-point call, a cycle outside the core, a file with no layer and a file in two layers are each caught"
	;;
*)
	echo "$prog: unknown mode $mode" >&2
	exit 2
	;;
esac
