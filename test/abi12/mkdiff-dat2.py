#!/usr/bin/env python3
# mkdiff-dat2.py -- write include/dat/DIFFERENCES-FROM-DAT2.md: every
# difference between our DAT 1.2 headers (include/dat) and our DAT 2.0
# headers (include/dat2), from the facts abi12-check.sh --vs-dat2 extracts
# (DWARF sizes and offsets, compiled values, gcc prototypes).  Run by hand
# whenever either header set changes:
#
#     python3 test/abi12/mkdiff-dat2.py > include/dat/DIFFERENCES-FROM-DAT2.md
#
# usage: mkdiff-dat2.py [--records DIR]   (DIR: 1.2.rec and 2.0.rec already
#                                          written by abi12-check.sh)
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def load(path):
    d = {}
    with open(path) as f:
        for line in f:
            line = line.rstrip('\n')
            if line and not line.startswith('#'):
                k, v = line.split('\t', 1)
                d[k] = v
    return d


def records():
    if len(sys.argv) == 3 and sys.argv[1] == '--records':
        return load(os.path.join(sys.argv[2], '1.2.rec')), load(os.path.join(sys.argv[2], '2.0.rec'))
    if len(sys.argv) != 1:
        sys.exit('usage: mkdiff-dat2.py [--records DIR]')
    with tempfile.TemporaryDirectory() as t:
        subprocess.run(['bash', os.path.join(HERE, 'abi12-check.sh'), '--vs-dat2', '--records', t],
                       check=True, stdout=subprocess.DEVNULL)
        return load(os.path.join(t, '1.2.rec')), load(os.path.join(t, '2.0.rec'))


A, B = records()            # A: DAT 1.2, B: DAT 2.0
keys = sorted(set(A) | set(B))
diff = [k for k in keys if A.get(k) != B.get(k)]


def kind(k):
    return k.split(' ', 1)[0]


def name(k):
    return k.split(' ', 1)[1]


def refs(s):
    return set(re.findall(r'((?:struct|union|enum) [A-Za-z_0-9<>:]+)', s or ''))


def parse_member(v):
    m = re.match(r'#(\d+) off=(\d+) size=(\d*)(?: bits=\S+)? type=(.*)$', v)
    return m.groups() if m else None


def enum_members(d, tag):
    r = {}
    for k, v in d.items():
        if k.startswith('enumerator ') and ('of=' + tag + ' ') in v:
            m = re.search(r'#(\d+).*val=\S+?:(-?\d+)', v)
            r[name(k)] = (int(m.group(1)), int(m.group(2)))
    return r


tags = sorted({k.split('.')[0] for k in keys if k.startswith(('struct ', 'union '))})
enum_tags = sorted(k for k in keys if k.startswith('enum '))
typedefs = {}
for d in (A, B):
    for k, v in d.items():
        if k.startswith('typedef '):
            m = re.match(r'type=((?:struct|union|enum) [^ ]+)$|type=((?:struct|union|enum) [^ ]+) sizeof', v)
            if m:
                typedefs.setdefault(m.group(1) or m.group(2), set()).add(name(k))


def differs(tag):
    if tag.startswith('enum '):
        return A.get(tag) != B.get(tag) or enum_members(A, tag) != enum_members(B, tag)
    return any(A.get(k) != B.get(k) for k in keys if k == tag or k.startswith(tag + '.'))


def members_types(tag):
    r = set()
    for d in (A, B):
        for k, v in d.items():
            if k.startswith(tag + '.'):
                r |= refs(v)
    return r


memo = {}


def differs_deep(tag, seen=()):
    """The tags that differ among TAG and the types inside it."""
    if tag in memo:
        return memo[tag]
    why = {tag} if differs(tag) else set()
    if not tag.startswith('enum '):
        for t in members_types(tag):
            if t != tag and t not in seen:
                why |= differs_deep(t, seen + (tag,))
    memo[tag] = why
    return why


def c(x):
    return '`%s`' % x if x not in ('—', '') else x


def tdnames(tag):
    return sorted(typedefs.get(tag, []))


def tagtitle(tag):
    t = tdnames(tag)
    return c(tag) + (' (' + ', '.join(c(x) for x in t) + ')' if t else '')


def tsize(d, tag):
    v = d.get(tag)
    if v is None:
        return '—'
    m = re.search(r'sizeof=(\d+)', v)
    n = re.search(r'members=(\d+)', v)
    return '%s bytes, %s members' % (m.group(1) if m else '?', n.group(1) if n else '?')


def fmt_member(v):
    if v is None:
        return '—'
    p = parse_member(v)
    if not p:
        return v
    return 'off %s, %s B, `%s`' % (p[1], p[2], p[3])


def proto(v):
    m = re.search(r'declaration: extern DAT_RETURN \S+ \((.*?)\) abi=', v)
    return m.group(1) if m else v


def mval(v):
    if v is None:
        return '—'
    m = re.search(r'val=([^:]+):(-?\d+)', v)
    if m:
        n = int(m.group(2))
        return '%s (%s)' % (('0x%X' % n) if n > 255 else str(n), m.group(1))
    m = re.search(r'expands=(.*)$', v)
    if m:
        return 'expands to ' + c(m.group(1))
    m = re.search(r'alias=(\S+)', v)
    if m:
        return c(m.group(1))
    return v.split(' ')[0]


L = []
P = L.append


def table(head, rows):
    P('| ' + ' | '.join(head) + ' |')
    P('|' + '|'.join('---' for _ in head) + '|')
    for r in rows:
        P('| ' + ' | '.join(x.replace('|', '\\|') for x in r) + ' |')
    P('')


# ---- the classification ----------------------------------------------------
layout_tags = [t for t in tags if t in A and t in B and differs(t)]
same_tags = [t for t in tags if t in A and t in B and not differs(t)]
only20_tags = [t for t in tags if t not in A]
only12_tags = [t for t in tags if t not in B]
funcs = sorted({name(k) for k in keys if k.startswith('function ')})
f_both = [f for f in funcs if 'function ' + f in A and 'function ' + f in B]
f_sig = [f for f in f_both if A['function ' + f] != B['function ' + f]]
f_only20 = [f for f in funcs if 'function ' + f not in A]
f_only12 = [f for f in funcs if 'function ' + f not in B]
f_types = []
for f in f_both:
    if f in f_sig:
        continue
    m = re.search(r'abi=(.*?)( cxx=|$)', A['function ' + f])
    why = set()
    for t in refs(m.group(1) if m else ''):
        why |= differs_deep(t)
    if why:
        f_types.append((f, sorted(why)))
f_masks = [f for f in f_both if re.search(r'DAT_(IA_ATTR|EP_PARAM|PROVIDER_ATTR)_MASK', A['function ' + f])]
f_same = [f for f in f_both if f not in f_sig and f not in dict(f_types)]
td_diff = [k for k in diff if k.startswith('typedef ')]
en_changed, en_added, en_only = [], [], []
for t in enum_tags:
    if t not in A or t not in B:
        en_only.append(t)
        continue
    ma, mb = enum_members(A, t), enum_members(B, t)
    if ma == mb and A.get(t) == B.get(t):
        continue
    if [n for n in ma if n not in mb or ma[n][1] != mb[n][1]]:
        en_changed.append(t)
    else:
        en_added.append(t)
moved = [k for k in diff if k.startswith('enumerator ') and k in A and k in B
         and re.search(r'of=(enum \S+)', A[k]).group(1) != re.search(r'of=(enum \S+)', B[k]).group(1)]
mac = [k for k in diff if k.startswith('macro ')]
redir = [k for k in mac if 'DAT_PROVIDER**' in (B.get(k) or '') or name(k) == 'DAT_HANDLE_TO_PROVIDER']
mac_both = [k for k in mac if k in A and k in B]
mac_12 = [k for k in mac if k not in B]
mac_20 = [k for k in mac if k not in A and k not in redir]

# ---- the text ----------------------------------------------------------------
P('''# DAT 1.2 (`include/dat`) against DAT 2.0 (`include/dat2`): every difference

What libdat.so.1 translates.  Each entry is a fact that differs between our
DAT 1.2 headers (`<dat/udat.h>`, `<dat/dat_registry.h>`) and our DAT 2.0
headers (`<dat2/udat.h>`, `<dat2/dat_registry.h>`) as the compiler sees them
on x86-64 Linux: sizes and member offsets from DWARF, values from a compiled
program, prototypes from `gcc -aux-info`, function types with typedefs
resolved.  Nothing was read off by eye.

Generated by `test/abi12/mkdiff-dat2.py` from the facts of
`test/abi12/abi12-check.sh --vs-dat2` (which prints the raw list, one entry
per differing name).  Regenerate it when either header set changes:

    python3 test/abi12/mkdiff-dat2.py > include/dat/DIFFERENCES-FROM-DAT2.md

Names are compared without the header that declares them (DAT 1.2 declares,
for instance, `struct dat_ia_attr` and `dat_lmr_query` in `dat.h`, 2.0 in
`udat.h`: not a difference a program or the library sees) and without the
include guards.  The 2.0 side is what a consumer gets: `DAT_EXTENSIONS` is
defined by `<dat2/udat_config.h>`; `<dat2/dat_ib_extensions.h>`, which has
no 1.2 counterpart, is not included.''')
P('')
P('**%d names compared, %d differ.**  In short:' % (len(keys), len(diff)))
P('')
P('- structs and unions whose size or member layout differ: **%d** (%s);' % (len(layout_tags), ', '.join(c(t) for t in layout_tags)))
P('- structs and unions in 2.0 only: %d (%s); in 1.2 only: %d;' % (len(only20_tags), ', '.join(c(t) for t in only20_tags), len(only12_tags)))
P('- typedefs that differ: %d (section 2);' % len(td_diff))
P('- enumerations whose values must be mapped: **%d** (%s); that only gain members in 2.0: %d; in one API only: %d;' % (len(en_changed), ', '.join(c(t) for t in en_changed), len(en_added), len(en_only)))
P('- macros: %d with another value, %d in 1.2 only, %d in 2.0 only (and %d 2.0 redirection macros);' % (len(mac_both), len(mac_12), len(mac_20), len(redir)))
P('- calls whose parameter lists differ: **%d** (%s); in 2.0 only: %d; in 1.2 only: %d;' % (len(f_sig), ', '.join(c(f) for f in f_sig), len(f_only20), len(f_only12)))
P('- calls with the same prototype whose argument types differ: **%d**; identical calls: %d;' % (len(f_types), len(f_same)))
P('- return codes: every `DAT_RETURN` is mapped (section 6).')
P('')

P('## 1. Structs and unions whose size or member layout differ (%d)' % len(layout_tags))
P('')
P('''Offsets and sizes in bytes on x86-64; member types resolved (`long
unsigned int` is `DAT_UINT64`, `DAT_VLEN`, `DAT_VADDR`; `unsigned int` is
`DAT_UINT32`, `DAT_SEG_LENGTH`, a context; `void *` a handle).  **≠** marks a
member whose offset, size or type differs, — a member one API lacks.''')
P('')
for tag in layout_tags:
    P('### %s' % tagtitle(tag))
    P('')
    P('1.2: %s; 2.0: %s.' % (tsize(A, tag), tsize(B, tag)))
    P('')
    mem = sorted({k for k in keys if k.startswith(tag + '.')},
                 key=lambda k: (int(parse_member(A.get(k) or B.get(k))[1]), k))
    rows = []
    for k in mem:
        a, b = A.get(k), B.get(k)
        rows.append([c(k[len(tag) + 1:]), fmt_member(a), fmt_member(b) + ('' if a == b else ' **≠**')])
    table(['member', '1.2', '2.0'], rows)

P('### Structs and unions in one API only')
P('')
rows = [[tagtitle(t), '—', tsize(B, t)] for t in only20_tags] + [[tagtitle(t), tsize(A, t), '—'] for t in only12_tags]
table(['type', '1.2', '2.0'], rows)
P('`struct dat_provider` is the provider function table, which our 1.2 headers leave out (`DAT_PROVIDER` is an incomplete type there).')
P('')
P('### Structs and unions that are the same (%d)' % len(same_tags))
P('')
P(', '.join(tagtitle(t) for t in same_tags) + '.')
P('')

P('## 2. Typedefs that differ (%d)' % len(td_diff))
P('')
P('''A typedef differs when the type it names has another size (section 1), is
another type, or exists in one API only.  Function pointer types
(`DAT_xxx_FUNC`) are shown with their resolved signatures.''')
P('')


def td_target(v):
    m = re.match(r'type=(.*?)(?: sizeof=|$)', v or '')
    return m.group(1) if m else None


rows = []
for k in td_diff:
    a, b = A.get(k), B.get(k)
    sa, sb = re.search(r'sizeof=(\d+)', a or ''), re.search(r'sizeof=(\d+)', b or '')
    if a and b and td_target(a) == td_target(b):
        if not sa and sb:
            why = 'incomplete in 1.2'
        elif sa and not sb:
            why = 'incomplete in 2.0'
        else:
            why = 'another size'
    elif a and b:
        why = 'another type'
    else:
        why = '1.2 only' if a else '2.0 only'
    rows.append([c(name(k)), c(td_target(a)) if a else '—', sa.group(1) if sa else ('incomplete' if a else '—'),
                 c(td_target(b)) if b else '—', sb.group(1) if sb else ('incomplete' if b else '—'), why])
table(['typedef', '1.2 type', '1.2 size', '2.0 type', '2.0 size', ''], rows)
P('''`DAT_SOCK_ADDR6` (`struct sockaddr_in6`) is incomplete in 1.2 because the
1.2 headers do not include `<netinet/in.h>` (the Linux choice of DAT 1.2);
the type is the same.''')
P('')

P('## 3. Enumerations')
P('')
P('''Values are those of the compiled constants (every enumeration is 4 bytes,
`unsigned int`, in both).  Enumerations with the same members and values are
not listed.''')
P('')
P('### 3.1 Enumerations whose values must be mapped (%d)' % len(en_changed))
P('')
P('Every member whose value differs, or that one API lacks; members not listed have the same value in both.')
P('')
HEX = ('dat_return_type', 'mask', 'flags')
for t in en_changed:
    ma, mb = enum_members(A, t), enum_members(B, t)
    P('#### %s' % tagtitle(t))
    P('')
    hexv = any(h in t for h in HEX)

    def fv(x):
        if x is None:
            return '—'
        return ('0x%X' % x) if hexv else str(x)
    rows = []
    if t == 'enum dat_return_subtype':
        # consecutive 1.2 members with the same shift make one row
        order = sorted(set(ma) | set(mb), key=lambda n: (ma[n][1] if n in ma else mb[n][1] - 1.5, n))
        runs = []
        for n in order:
            a, b = ma.get(n), mb.get(n)
            sh = (b[1] - a[1]) if a and b else None
            if runs and sh is not None and runs[-1]['sh'] == sh and a[1] == runs[-1]['a1'] + 1:
                runs[-1].update(last=n, a1=a[1], b1=b[1])
            else:
                runs.append(dict(first=n, last=n, sh=sh, a0=a[1] if a else None, a1=a[1] if a else None,
                                 b0=b[1] if b else None, b1=b[1] if b else None))
        for r in runs:
            nm = c(r['first']) if r['first'] == r['last'] else c(r['first']) + ' … ' + c(r['last'])
            if r['sh'] is None:
                rows.append([nm, fv(r['a0']), fv(r['b0']), '1.2 only' if r['a0'] is not None else '2.0 only'])
            elif r['sh'] != 0:
                span = lambda x0, x1: str(x0) if x0 == x1 else '%d … %d' % (x0, x1)
                rows.append([nm, span(r['a0'], r['a1']), span(r['b0'], r['b1']), 'value %+d' % r['sh']])
        table(['members (1.2 order)', '1.2', '2.0', ''], rows)
        continue
    for n in sorted(set(ma) | set(mb), key=lambda n: ((ma.get(n) or mb.get(n))[1], n)):
        a, b = ma.get(n), mb.get(n)
        if a and b and a[1] == b[1]:
            continue
        rows.append([c(n), fv(a and a[1]) if a else '—', fv(b and b[1]) if b else '—',
                     '1.2 only' if not b else ('2.0 only' if not a else 'other value')])
    table(['member', '1.2', '2.0', ''], rows)

P('### 3.2 Enumerations where 2.0 only adds members (%d)' % len(en_added))
P('')
P('''The members both APIs have are equal: a 1.2 value passes to 2.0 unchanged;
a 2.0 value that 1.2 lacks has no 1.2 name.''')
P('')
rows = []
for t in en_added:
    ma, mb = enum_members(A, t), enum_members(B, t)
    hexv = any(h in t for h in HEX)
    rows.append([tagtitle(t), ', '.join('%s = %s' % (c(n), ('0x%X' % mb[n][1]) if hexv else mb[n][1])
                                       for n in sorted(mb, key=lambda n: mb[n][1]) if n not in ma)])
table(['enumeration', 'members in 2.0 only'], rows)

P('### 3.3 Enumerations in one API only, and renamed tags')
P('')
rows = []
for t in en_only:
    d = B if t not in A else A
    mem = enum_members(d, t)
    rows.append([tagtitle(t), '2.0 only' if t not in A else '1.2 only',
                 ', '.join(c(n) for n in sorted(mem, key=lambda n: mem[n][1]))])
table(['enumeration', '', 'members'], rows)
if moved:
    P('Same members and values under another tag (the typedef names are the same):')
    P('')
    table(['enumerator', '1.2 tag', '2.0 tag'],
          [[c(name(k)), c(re.search(r'of=(enum \S+)', A[k]).group(1)), c(re.search(r'of=(enum \S+)', B[k]).group(1))]
           for k in moved])

P('## 4. Macros')
P('')
P('''Values are the compiled constants with their C type (the IA, EP and
provider mask bits are `unsigned long long` in both); a macro that is not a
value is shown by its expansion.''')
P('')
P('### 4.1 Same name, another value (%d)' % len(mac_both))
P('')
table(['macro', '1.2', '2.0'], [[c(name(k)), mval(A[k]), mval(B[k])] for k in mac_both])
P('''The IA, EP and provider masks (`DAT_IA_ATTR_MASK`, `DAT_EP_PARAM_MASK`,
`DAT_PROVIDER_ATTR_MASK`, all `DAT_UINT64`) are bit sets over the fields of
`DAT_IA_ATTR`, `DAT_EP_PARAM` and `DAT_PROVIDER_ATTR`, one bit per field in
order: a bit whose value differs here names the same field in both APIs;
the fields 2.0 adds have bits in between (section 4.3).''')
P('')
P('### 4.2 In 1.2 only (%d)' % len(mac_12))
P('')
if mac_12:
    table(['macro', '1.2'], [[c(name(k)), mval(A[k])] for k in mac_12])
else:
    P('None.')
    P('')
P('### 4.3 In 2.0 only (%d, and %d redirection macros)' % (len(mac_20), len(redir)))
P('')
table(['macro', '2.0'], [[c(name(k)), mval(B[k])] for k in mac_20])
P('The %d redirection macros of 2.0, which call through `struct dat_provider` (our 1.2 headers declare none): %s.'
  % (len(redir), ', '.join(c(name(k)) for k in redir)))
P('')

P('## 5. Calls')
P('')
P('''Every call returns `DAT_RETURN` (`DAT_UINT32`) and has C linkage in both.
Prototypes as gcc prints them: typedef names kept, arrays as pointers.''')
P('')
P('### 5.1 Calls whose parameter lists differ (%d)' % len(f_sig))
P('')
for f in f_sig:
    P('- `%s`' % f)
    P('  - 1.2: `(%s)`' % proto(A['function ' + f]))
    P('  - 2.0: `(%s)`' % proto(B['function ' + f]))
P('')
P('### 5.2 Calls in one API only')
P('')
P('In 2.0 only (%d): %s.' % (len(f_only20), ', '.join(c(f) for f in f_only20)))
P('')
P('In 1.2 only (%d): %s.' % (len(f_only12), ', '.join(c(f) for f in f_only12) if f_only12 else 'none'))
P('')
P('''`dat_registry_add_provider` and `dat_registry_remove_provider` exist in
DAT 1.2 too, but take a 1.2 provider table, which our 1.2 headers leave out.''')
P('')
P('### 5.3 Calls with the same prototype whose argument types differ (%d)' % len(f_types))
P('')
P('''The prototypes are textually identical, but a type the call takes or fills
(by value or through a pointer), or a type inside one, differs in layout or
in values (sections 1 and 3): the library converts that argument or result.
Enumerations that 2.0 only extends are listed too: their 1.2 values pass
unchanged, but 2.0 may return a value 1.2 has no name for.''')
P('')
table(['call', 'prototype (both)', 'types that differ (directly or inside)'],
      [[c(f), c(proto(A['function ' + f])), ', '.join(c(t) for t in why)] for f, why in f_types])
P('Calls that take a 64-bit field mask whose bits differ (section 4.1): %s.' % ', '.join(c(f) for f in f_masks))
P('')
P('The other %d calls present in both have the same prototype and argument types; only their result (section 6) is mapped: %s.'
  % (len(f_same), ', '.join(c(f) for f in f_same)))
P('')

rt_a, rt_b = enum_members(A, 'enum dat_return_type'), enum_members(B, 'enum dat_return_type')
P('## 6. Return codes (`DAT_RETURN`)')
P('')
P('''`DAT_RETURN` is `DAT_UINT32` in both, with the same layout: class bits
31..30 (`DAT_CLASS_ERROR` 0x80000000, `DAT_CLASS_WARNING` 0x40000000), type
bits 29..16 (`DAT_TYPE_MASK` 0x3FFF0000), subtype bits 15..0
(`DAT_SUBTYPE_MASK` 0xFFFF); `DAT_IS_WARNING`, `DAT_GET_TYPE` and
`DAT_GET_SUBTYPE` are the same.  The type and subtype values differ (section
3.1), so every call's result is mapped from 2.0 to 1.2, and the argument of
`dat_strerror` from 1.2 to 2.0:''')
P('')
P('- types: %s; %s exist in 2.0 only and have no 1.2 value; the other %d types are equal;' % (
    ', '.join('%s is 0x%X in 1.2, 0x%X in 2.0' % (c(n), rt_a[n][1], rt_b[n][1]) for n in rt_a if n in rt_b and rt_a[n][1] != rt_b[n][1]),
    ', '.join('%s (0x%X)' % (c(n), rt_b[n][1]) for n in sorted(rt_b, key=lambda n: rt_b[n][1]) if n not in rt_a),
    len([n for n in rt_a if n in rt_b and rt_a[n][1] == rt_b[n][1]])))
P('- subtypes: the table of `enum dat_return_subtype` in section 3.1.')
P('')
lt_a, lt_b = re.search(r'sizeof=(\d+)', A['struct dat_lmr_triplet']).group(1), re.search(r'sizeof=(\d+)', B['struct dat_lmr_triplet']).group(1)
narrowed = sorted(k for k in keys if re.match(r'^struct [^.]+\.[a-z_]+$', k) and k in A and k in B
                  and 'type=long unsigned int' in A[k] and 'type=unsigned int' in B[k])
P('## 7. What follows from the layouts')
P('')
P('''Consequences of the facts above that every conversion meets (derived from
them, not further differences):''')
P('')
P('- arrays of triplets (`local_iov`, `local_segments`) have a stride of %s bytes in 1.2 and %s in 2.0: the array is converted element by element, `num_segments` elements;' % (lt_a, lt_b))
P('- these 64-bit 1.2 members are 32-bit in 2.0, so a 1.2 value above 0xFFFFFFFF has no 2.0 representation: %s;' % ', '.join(c(k[len('struct '):]) for k in narrowed))
P('- `dat_ia_open()` of a 1.2 program passes version 1.2 to `dat_ia_openv()` (section 4.1); the DAT 2.0 registry opens providers registered for 2.0 (`u2.0` in dat.conf).')
P('')
print('\n'.join(L))
