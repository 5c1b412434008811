# dwarf.awk -- turn the DWARF that the compiler wrote for the probe into
# ABI records.  Part of test/abi/abi-check.sh (see README there).
#
# Input: two files, both written by binutils' readelf for the probe object:
#   1. readelf --debug-dump=rawline   (the line table: decl_file -> path)
#   2. readelf --debug-dump=info      (the DIE tree)
# Variables (-v):
#   root   directory whose files are "public" (the staged include dir that
#          holds dat2/); any DIE declared in a file outside it is a system
#          name and is ignored
#   probes file to which the names to evaluate in the value program are
#          written: "Z<TAB>key<TAB>C type" (sizeof/_Alignof) and
#          "I<TAB>key<TAB>C expression" (integer constant)
# Output (stdout): records "key<TAB>value", one a line.
#
# Nothing here parses C: every fact (names, offsets, sizes, types, the file
# a name was declared in) is what the compiler itself recorded.

function hex2dec(h,    i, c, v) {
    h = tolower(h); sub(/^0x/, "", h); v = 0
    for (i = 1; i <= length(h); i++) {
        c = index("0123456789abcdef", substr(h, i, 1)) - 1
        if (c < 0) return -1
        v = v * 16 + c
    }
    return v
}
function num(s) {
    if (s ~ /^0x[0-9a-fA-F]+$/) return hex2dec(s)
    if (s ~ /^-?[0-9]+$/) return s + 0
    return ""
}
function pubfile(o,    p) {
    if (!(o in DF) || !(DF[o] in FILE)) return ""
    p = FILE[DF[o]]
    if (index(p, root "/") != 1) return ""
    return substr(p, length(root) + 2)
}
# strip const/volatile/restrict/atomic qualifiers
function strip_cv(o) {
    while (o != "" && (TAG[o] == "const_type" || TAG[o] == "volatile_type" || TAG[o] == "restrict_type" || TAG[o] == "atomic_type"))
        o = TY[o]
    return o
}
# strip qualifiers and typedefs
function strip_all(o) {
    while (o != "" && (TAG[o] == "typedef" || TAG[o] == "const_type" || TAG[o] == "volatile_type" || TAG[o] == "restrict_type" || TAG[o] == "atomic_type"))
        o = TY[o]
    return o
}
function is_aggr(o) { return TAG[o] == "structure_type" || TAG[o] == "union_type" }
function kindword(o) {
    if (TAG[o] == "structure_type") return "struct"
    if (TAG[o] == "union_type") return "union"
    if (TAG[o] == "enumeration_type") return "enum"
    return "?" TAG[o]
}
function tagname(o,    c) {
    if (NM[o] != "") return kindword(o) " " NM[o]
    if (o in ANON) return kindword(o) " <" ANON[o] ">"
    if (TAG[o] == "enumeration_type" && NC[o] > 0) {
        c = CH[o, 1]
        return "enum <anon:" NM[c] ">"
    }
    return kindword(o) " <anon>"
}
# the canonical type, typedefs resolved: postfix notation, e.g.
# "const char *", "char * const", "int [4]", "int (void *, unsigned int) *"
function canon(o,    t, u, s, i, c, n, d) {
    if (o == "") return "void"
    t = TAG[o]
    if (t == "base_type" || t == "unspecified_type") return NM[o]
    if (t == "typedef") return canon(TY[o])
    if (t == "pointer_type") { s = canon(TY[o]); return s (s ~ /\*$/ ? "*" : " *") }
    if (t == "reference_type") return canon(TY[o]) " &"
    if (t == "const_type" || t == "volatile_type") {
        s = (t == "const_type") ? "const" : "volatile"
        u = strip_all(TY[o])
        if (u != "" && (TAG[u] == "pointer_type" || TAG[u] == "array_type" || TAG[u] == "subroutine_type"))
            return canon(TY[o]) " " s
        c = canon(TY[o])
        if (index(c, s " ") == 1) return c
        return s " " c
    }
    if (t == "restrict_type") return canon(TY[o]) " restrict"
    if (t == "atomic_type") return "_Atomic(" canon(TY[o]) ")"
    if (t == "structure_type" || t == "union_type" || t == "enumeration_type") return tagname(o)
    if (t == "array_type") {
        d = ""
        for (i = 1; i <= NC[o]; i++) {
            c = CH[o, i]
            if (TAG[c] != "subrange_type") continue
            if (UB[c] != "") d = d "[" (UB[c] + 1) "]"
            else if (CNT[c] != "") d = d "[" CNT[c] "]"
            else d = d "[]"
        }
        return canon(TY[o]) " " d
    }
    if (t == "subroutine_type") {
        s = ""; n = 0
        for (i = 1; i <= NC[o]; i++) {
            c = CH[o, i]
            if (TAG[c] == "formal_parameter") { s = s (n++ ? ", " : "") canon(TY[c]) }
            else if (TAG[c] == "unspecified_parameters") { s = s (n++ ? ", " : "") "..." }
        }
        if (n == 0 && PROTO[o]) s = "void"
        return canon(TY[o]) " (" s ")"
    }
    return "?" t
}
# byte size of a type ("" when it has none)
function tsize(o,    t, i, c, n, e) {
    if (o == "") return ""
    if (SZ[o] != "") return SZ[o]
    t = TAG[o]
    if (t == "typedef" || t == "const_type" || t == "volatile_type" || t == "restrict_type" || t == "atomic_type")
        return tsize(TY[o])
    if (t == "array_type") {
        e = tsize(TY[o]); if (e == "") return ""
        n = 1
        for (i = 1; i <= NC[o]; i++) {
            c = CH[o, i]
            if (TAG[c] != "subrange_type") continue
            if (UB[c] != "") n *= UB[c] + 1
            else if (CNT[c] != "") n *= CNT[c]
            else n = 0
        }
        return e * n
    }
    return ""
}
function nmembers(o,    i, n) {
    n = 0
    for (i = 1; i <= NC[o]; i++) if (TAG[CH[o, i]] == "member") n++
    return n
}
# every member of aggregate s, offsets absolute from the top-level record;
# anonymous nested structs/unions are walked (C11 anonymous members are
# named by the access path C gives them: the anonymous level is skipped)
function members(s, prefix, base,    i, c, idx, nm, off, bits, ty, u, key, v) {
    idx = 0
    for (i = 1; i <= NC[s]; i++) {
        c = CH[s, i]
        if (TAG[c] != "member") continue
        nm = NM[c]; ty = TY[c]; bits = ""
        off = base + (LOC[c] != "" ? LOC[c] : 0)
        if (BSZ[c] != "") {
            if (BOFF[c] != "") { off = base + int(BOFF[c] / 8); bits = " bits=" (BOFF[c] % 8) ":" BSZ[c] }
            else bits = " bits=" BITOFF_OLD[c] "(dwarf4):" BSZ[c]
        }
        key = prefix "." (nm != "" ? nm : "<anon#" idx ">")
        v = "#" idx " off=" off " size=" tsize(ty) bits " type=" canon(ty)
        print key "\t" v
        FIELDS++
        idx++
        u = strip_cv(ty)
        if (u != "" && TAG[u] == "array_type") {
            u = strip_cv(TY[u])
            if (u != "" && is_aggr(u) && NM[u] == "" && !(u in ANON))
                members(u, key "[0]", off)
            continue
        }
        if (u != "" && is_aggr(u) && NM[u] == "" && !(u in ANON))
            members(u, nm != "" ? key : prefix, off)
    }
}

BEGIN { nf = 0 }
FNR == 1 { nf++ }

# ---- file 1: the line table ---------------------------------------------
nf == 1 && /The Directory Table/ { mode = "dir"; next }
nf == 1 && /The File Name Table/ { mode = "file"; next }
nf == 1 && /^ *$/ { if (mode == "file") mode = ""; next }
nf == 1 && (mode == "dir" || mode == "file") {
    line = $0
    sub(/^[ \t]+/, "", line)
    if (line !~ /^[0-9]+\t/) next
    n = split(line, part, "\t")
    val = part[n]
    sub(/^\(indirect (line )?string, offset: (0x)?[0-9a-fA-F]+\): /, "", val)
    if (mode == "dir") { DIR[part[1]] = val; if (!(part[1] in DIR0)) DIR0[part[1]] = 1 }
    else {
        p = val
        if (p !~ /^\//) p = DIR[part[2]] "/" p
        # DWARF 4 numbers files from 1 and dirs from 1 (0 = comp dir)
        FILE[part[1]] = p
    }
    next
}
nf == 1 { next }

# ---- file 2: the DIE tree ------------------------------------------------
/^ *<[0-9]+><[0-9a-f]+>: Abbrev Number: / {
    h = $0
    sub(/^ *</, "", h)
    depth = h; sub(/>.*/, "", depth); depth += 0
    off = h; sub(/^[0-9]+></, "", off); sub(/>.*/, "", off)
    if (h !~ /\(DW_TAG_[a-z_]+\)/) { cur = ""; next }   # null entry
    t = h; sub(/.*\(DW_TAG_/, "", t); sub(/\).*/, "", t)
    cur = off
    TAG[cur] = t; NC[cur] = 0
    ORDER[++NDIE] = cur
    STACK[depth] = cur
    if (depth > 0) { par = STACK[depth - 1]; PARENT[cur] = par; NC[par]++; CH[par, NC[par]] = cur }
    next
}
/^ *<[0-9a-f]+> +DW_AT_[a-z_0-9]+ *: / {
    if (cur == "") next
    a = $0
    sub(/^ *<[0-9a-f]+> +DW_AT_/, "", a)
    v = a
    sub(/ *: .*/, "", a)
    sub(/^[a-z_0-9]+ *: /, "", v)
    sub(/^\(indirect (line )?string, offset: (0x)?[0-9a-fA-F]+\): /, "", v)
    sub(/[ \t]+$/, "", v)
    if (a == "name") NM[cur] = v
    else if (a == "type") { sub(/^<0x/, "", v); sub(/>$/, "", v); TY[cur] = tolower(v) }
    else if (a == "byte_size") SZ[cur] = num(v)
    else if (a == "data_member_location") LOC[cur] = num(v)
    else if (a == "data_bit_offset") BOFF[cur] = num(v)
    else if (a == "bit_offset") BITOFF_OLD[cur] = num(v)
    else if (a == "bit_size") BSZ[cur] = num(v)
    else if (a == "decl_file") { sub(/[ \t].*/, "", v); DF[cur] = v }
    else if (a == "upper_bound") UB[cur] = num(v)
    else if (a == "count") CNT[cur] = num(v)
    else if (a == "prototyped") PROTO[cur] = 1
    else if (a == "declaration") DECL[cur] = 1
    next
}

END {
    # anonymous struct/union/enum named by the first typedef of it
    for (k = 1; k <= NDIE; k++) {
        o = ORDER[k]
        if (TAG[o] != "typedef" || TY[o] == "") continue
        u = TY[o]
        if ((is_aggr(u) || TAG[u] == "enumeration_type") && NM[u] == "" && !(u in ANON))
            ANON[u] = NM[o]
    }
    FIELDS = 0
    for (k = 1; k <= NDIE; k++) {
        o = ORDER[k]
        t = TAG[o]
        f = pubfile(o)
        if (f == "") continue
        if (is_aggr(o)) {
            if (NM[o] == "" && !(o in ANON)) continue   # nested: walked by members()
            key = tagname(o)
            if (DECL[o]) { print key "\tincomplete in=" f; continue }
            print key "\tsize=" SZ[o] " members=" nmembers(o) " in=" f
            members(o, key, 0)
            if (NM[o] != "") print "Z\t" key "\t" key > probes
        } else if (t == "enumeration_type") {
            key = tagname(o)
            if (DECL[o]) { print key "\tincomplete in=" f; continue }
            n = 0
            for (i = 1; i <= NC[o]; i++) if (TAG[CH[o, i]] == "enumerator") n++
            print key "\tsize=" SZ[o] " underlying=" (TY[o] != "" ? canon(TY[o]) : "?") " enumerators=" n " in=" f
            idx = 0
            for (i = 1; i <= NC[o]; i++) {
                c = CH[o, i]
                if (TAG[c] != "enumerator") continue
                print "enumerator " NM[c] "\tof=" key " #" idx++ " in=" f
                print "I\tenumerator " NM[c] "\t" NM[c] > probes
            }
            if (NM[o] != "") print "Z\t" key "\t" key > probes
        } else if (t == "variable" && PARENT[o] == ORDER[1]) {
            print "variable " NM[o] "\ttype=" canon(TY[o]) (DECL[o] ? " declaration" : " definition") " in=" f
        } else if (t == "typedef") {
            print "typedef " NM[o] "\ttype=" canon(TY[o]) " in=" f
            print "Z\ttypedef " NM[o] "\t" NM[o] > probes
        }
    }
}
