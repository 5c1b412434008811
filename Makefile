# softdapl: a pure-software DAT 2.0 (uDAPL) provider over TCP, and its registry.
#
#   make              build the registry, the provider and the tests into $(O)
#   make check        run every test (ends with "N passed, N failed")
#   make demo         the main job: a real DAT session over loopback
#   make bench        softdapl against raw TCP (tools/softbench), < 3 min
#   make memcheck     valgrind memcheck over most of the suite, ~2 min
#   make soak         an hour of traffic with random disconnects, RSS and
#                     fds watched; SOAK_SECONDS=60 for a minute
#   make fuzz         libFuzzer on every parser of outside bytes (test/fuzz);
#                     FUZZ_SECONDS per harness (default 30), needs clang
#   make SAN=asan     AddressSanitizer + UBSan build in build-asan/
#   make SAN=tsan     ThreadSanitizer build in build-tsan/
#   make install      PREFIX, LIBDIR, INCLUDEDIR, SYSCONFDIR, DESTDIR honoured
#   make V=1          show the commands
#
# Versioning (see README): the soname major (libdat2.so.2) is the ABI of
# OFED DAPL 2.x and changes only if that ABI does; the release version below
# is ours and moves with every release.

.DEFAULT_GOAL	:= all

VERSION		:= 0.1.0
SOMAJOR		:= 2
SOVERSION	:= $(SOMAJOR).0.0

PREFIX		?= /usr/local
EXEC_PREFIX	?= $(PREFIX)
BINDIR		?= $(EXEC_PREFIX)/bin
LIBDIR		?= $(EXEC_PREFIX)/lib
INCLUDEDIR	?= $(PREFIX)/include
DATADIR		?= $(PREFIX)/share
DOCDIR		?= $(DATADIR)/doc/softdapl
PKGCONFIGDIR	?= $(LIBDIR)/pkgconfig
SYSCONFDIR	?= /etc
DESTDIR		?=

CC		?= cc
INSTALL		?= install
SAN		?=

ifeq ($(SAN),)
O		?= build
else
O		?= build-$(SAN)
endif

ifeq ($(V),1)
Q		:=
msg		:= @true
else
Q		:= @
msg		:= @printf '  %-8s %s\n'
endif

WARNINGS	:= -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes \
		   -Wmissing-prototypes -Wpointer-arith -Wcast-qual -Wformat=2 \
		   -Wundef -Wvla -Wwrite-strings -Wold-style-definition \
		   -Wno-unused-parameter

CFLAGS		?= -O2 -g
BASE_CFLAGS	:= -std=gnu11 -fPIC -fno-common -pthread $(WARNINGS) \
		   -Iinclude -D_GNU_SOURCE
BASE_LDFLAGS	:= -pthread

ifeq ($(SAN),asan)
SAN_FLAGS	:= -fsanitize=address,undefined -fno-sanitize-recover=all \
		   -fno-omit-frame-pointer
else ifeq ($(SAN),tsan)
SAN_FLAGS	:= -fsanitize=thread -fno-omit-frame-pointer
else ifeq ($(SAN),fuzz)
# make fuzz's build (clang only): libFuzzer's coverage, ASan and UBSan.
SAN_FLAGS	:= -fsanitize=fuzzer-no-link,address,undefined \
		   -fno-sanitize-recover=all -fno-omit-frame-pointer
else ifneq ($(SAN),)
$(error SAN must be empty, asan, tsan or fuzz)
else
SAN_FLAGS	:= -D_FORTIFY_SOURCE=2
endif

ALL_CFLAGS	= $(BASE_CFLAGS) $(SAN_FLAGS) $(CFLAGS) $(CPPFLAGS) -MMD -MP
ALL_LDFLAGS	= $(BASE_LDFLAGS) $(SAN_FLAGS) $(LDFLAGS)

# ---------------------------------------------------------------------------
# The registry: libdat2.so.2

REG_SRCS	:= $(wildcard registry/*.c)
REG_OBJS	:= $(REG_SRCS:%.c=$(O)/%.o)
REG_LIB		:= $(O)/lib/libdat2.so.$(SOVERSION)
REG_LINKS	:= $(O)/lib/libdat2.so.$(SOMAJOR) $(O)/lib/libdat2.so \
		   $(O)/lib/libdat.so

$(O)/registry/%.o: ALL_CFLAGS += -fvisibility=hidden \
		   -DDREG_SYSCONFDIR='"$(SYSCONFDIR)"' -DDREG_VERSION='"$(VERSION)"'

$(REG_LIB): $(REG_OBJS) registry/libdat2.map
	$(msg) LD $@
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -shared -Wl,-soname,libdat2.so.$(SOMAJOR) \
		-Wl,--version-script=registry/libdat2.map -Wl,-z,defs \
		-Wl,-z,relro -Wl,-z,now \
		$(ALL_LDFLAGS) -o $@ $(REG_OBJS) -ldl

$(O)/lib/libdat2.so.$(SOMAJOR) $(O)/lib/libdat2.so: $(REG_LIB)
	$(Q)ln -sf $(notdir $<) $@

# The seed pages' synopsis links with -ldat: in the tree that is DAT 2.0.
$(O)/lib/libdat.so: $(REG_LIB)
	$(Q)ln -sf $(notdir $<) $@

# ---------------------------------------------------------------------------
# The provider: libdaplsoft.so.2. It exports dat_provider_init/fini only and,
# like OFED's providers, does not link against libdat2: it takes the
# registry's functions from whichever registry loaded it. It is never
# unmapped (-z nodelete): a registry dlcloses it at the last dat_ia_close,
# when a consumer thread returning from a wait or the engine thread may
# still be executing its code.

PROV_SRCS	:= $(wildcard provider/*.c)
PROV_OBJS	:= $(PROV_SRCS:%.c=$(O)/%.o)
PROV_LIB	:= $(O)/lib/libdaplsoft.so.$(SOVERSION)
PROV_LINKS	:= $(O)/lib/libdaplsoft.so.$(SOMAJOR)
UV_CFLAGS	:= $(shell pkg-config --cflags libuv 2>/dev/null)
UV_LIBS		:= $(shell pkg-config --libs libuv 2>/dev/null || echo -luv)

$(O)/provider/%.o: ALL_CFLAGS += -fvisibility=hidden $(UV_CFLAGS)

$(PROV_LIB): $(PROV_OBJS) provider/libdaplsoft.map
	$(msg) LD $@
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -shared -Wl,-soname,libdaplsoft.so.$(SOMAJOR) \
		-Wl,--version-script=provider/libdaplsoft.map \
		-Wl,-z,relro -Wl,-z,now -Wl,-z,nodelete \
		$(ALL_LDFLAGS) -o $@ $(PROV_OBJS) $(UV_LIBS)

$(PROV_LINKS): $(PROV_LIB)
	$(Q)ln -sf $(notdir $<) $@

# ---------------------------------------------------------------------------
# Tests: one runner, test/runner.c plus every test/test-*.c and the helpers
# they share (test/provider-util.c, test/provider-ud.c, test/hostile-peer.c),
# and the fake providers the registry tests load.

TEST_SRCS	:= test/runner.c test/provider-util.c test/provider-ud.c \
		   test/hostile-peer.c \
		   $(wildcard test/test-*.c)
TEST_OBJS	:= $(TEST_SRCS:%.c=$(O)/%.o)
TEST_BIN	:= $(O)/test/run-tests

# Fake providers, one .so per variant: FAKE_VARIANT selects the behaviour.
FAKE_VARIANTS	:= good noinit nofini noregister badversion openfail
FAKE_LIBS	:= $(FAKE_VARIANTS:%=$(O)/test/libfake-%.so) $(O)/test/libcountalloc.so

$(O)/test/libcountalloc.so: test/countalloc.c
	$(msg) CC $@
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(BASE_CFLAGS) $(CFLAGS) -shared -o $@ $< $(BASE_LDFLAGS)

# The parser is linked in whole: the tests call it directly, as a fuzzer does.
TEST_LINK_OBJS	:= $(O)/registry/conf.o
# The memory objects too (test-provider-mem.c supplies the two IA lookups).
TEST_LINK_OBJS	+= $(O)/provider/obj.o $(O)/provider/pz.o $(O)/provider/lmr.o \
		   $(O)/provider/rmr.o

$(O)/test/%.o: ALL_CFLAGS += -DTEST_SRCDIR='"$(abspath .)"'

$(TEST_BIN): $(TEST_OBJS) $(TEST_LINK_OBJS) $(REG_LIB) $(REG_LINKS) \
		$(if $(PROV_SRCS),$(PROV_LIB) $(PROV_LINKS))
	$(msg) LD $@
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $(TEST_OBJS) $(TEST_LINK_OBJS) \
		-L$(O)/lib -ldat2 -Wl,-rpath,'$$ORIGIN/../lib' -ldl

$(O)/test/libfake-%.so: test/fake-provider.c $(REG_LIB)
	$(msg) CC $@
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) -MF $(O)/test/fake-$*.d -shared \
		-DFAKE_VARIANT_$(subst -,_,$*)=1 -o $@ $< $(ALL_LDFLAGS)

# Example programs (test/examples): teaching material, run by the tests.
EXAMPLES	:= $(patsubst test/examples/%.c,$(O)/test/examples/%,$(wildcard test/examples/*.c))
.SECONDARY: $(EXAMPLES:%=%.o)

$(O)/test/examples/%: $(O)/test/examples/%.o $(REG_LIB) $(REG_LINKS)
	$(msg) LD $@
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $< -L$(O)/lib -ldat2 \
		-Wl,-rpath,'$$ORIGIN/../../lib'

# ---------------------------------------------------------------------------
# Tools

TOOLS		:= $(O)/tools/datinfo
.SECONDARY: $(TOOLS:%=%.o)

$(O)/tools/%: $(O)/tools/%.o $(REG_LIB) $(REG_LINKS)
	$(msg) LD $@
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $< -L$(O)/lib -ldat2 \
		-Wl,-rpath,'$$ORIGIN/../lib'

# softbench (tools/softbench*.c): softdapl against raw TCP, run by
# `make bench`. bench-plot, which draws its results, goes beside it, where
# softbench looks for it.

BENCH_SRCS	:= $(wildcard tools/softbench*.c)
BENCH_OBJS	:= $(BENCH_SRCS:%.c=$(O)/%.o)
BENCH		:= $(O)/tools/softbench $(O)/tools/bench-plot

$(O)/tools/softbench: $(BENCH_OBJS) $(REG_LIB) $(REG_LINKS)
	$(msg) LD $@
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $(BENCH_OBJS) -L$(O)/lib -ldat2 \
		-Wl,-rpath,'$$ORIGIN/../lib'

$(O)/tools/bench-plot: tools/bench-plot
	$(Q)mkdir -p $(@D)
	$(Q)$(INSTALL) -m 755 $< $@

# ---------------------------------------------------------------------------
# Fuzzing (test/fuzz, see fuzz.h there): one libFuzzer harness per parser of
# outside bytes. Every build links each harness with test/fuzz/replay.c
# into $(O)/test/fuzz/replay-<target>, which the fuzz_replay_* tests run
# over the corpus and the regression inputs. `make fuzz` builds them with
# clang and libFuzzer into build-fuzz/ and fuzzes each for FUZZ_SECONDS
# (tools/fuzz-run); FUZZ_TARGETS picks some.

FUZZ_TARGETS	?= conf cm rx ud
FUZZ_SECONDS	?= 30
FUZZ_CC		?= clang
# What each harness links besides itself: the parser alone, or the whole
# provider and registry (test/fuzz/peer.c drives them through the DAT API).
FUZZ_STACK	:= $(O)/test/fuzz/peer.o $(REG_OBJS) $(PROV_OBJS)
FUZZ_DEPS_conf	:= $(O)/registry/conf.o
FUZZ_DEPS_cm	:= $(FUZZ_STACK)
FUZZ_DEPS_rx	:= $(FUZZ_STACK)
FUZZ_DEPS_ud	:= $(FUZZ_STACK)
FUZZ_REPLAY	:= $(FUZZ_TARGETS:%=$(O)/test/fuzz/replay-%)
.SECONDARY: $(FUZZ_TARGETS:%=$(O)/test/fuzz/fuzz-%.o) $(O)/test/fuzz/replay.o \
	    $(O)/test/fuzz/peer.o

.SECONDEXPANSION:
$(O)/test/fuzz/replay-%: $(O)/test/fuzz/fuzz-%.o $(O)/test/fuzz/replay.o \
		$$(FUZZ_DEPS_$$*)
	$(msg) LD $@
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(UV_LIBS) -ldl

$(O)/fuzz-%: $(O)/test/fuzz/fuzz-%.o $$(FUZZ_DEPS_$$*)
	$(msg) LD $@
	$(Q)$(CC) $(ALL_LDFLAGS) -fsanitize=fuzzer -o $@ $^ $(UV_LIBS) -ldl

fuzz:
	$(Q)tools/install-deps fuzz
	$(Q)if ! command -v $(FUZZ_CC) >/dev/null 2>&1; then \
		echo "make fuzz needs clang with libFuzzer; run: apt-get install -y clang" >&2; \
		exit 1; fi
	$(Q)$(MAKE) --no-print-directory SAN=fuzz CC=$(FUZZ_CC) fuzz-run

fuzz-run: $(FUZZ_TARGETS:%=$(O)/fuzz-%)
	$(Q)tools/fuzz-run $(O) $(FUZZ_SECONDS) $(FUZZ_TARGETS)

# ---------------------------------------------------------------------------

$(O)/%.o: %.c
	$(msg) CC $@
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(O)/dat2.pc: dat2.pc.in Makefile
	$(msg) GEN $@
	$(Q)mkdir -p $(@D)
	$(Q)sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
		-e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' -e 's|@VERSION@|$(VERSION)|' \
		$< > $@

LIBS		:= $(REG_LIB) $(REG_LINKS) $(if $(PROV_SRCS),$(PROV_LIB) $(PROV_LINKS))
ALL		:= $(LIBS) $(O)/dat2.pc $(TOOLS) $(TEST_BIN) $(FAKE_LIBS) $(EXAMPLES) \
		   $(BENCH) $(FUZZ_REPLAY)

.PHONY: all check demo bench deps install uninstall clean fuzz fuzz-run

all: $(ALL)

# deps installs (as root) or names the packages the build and tests need.
deps:
	$(Q)tools/install-deps

# Sanitized builds run slower: their timeouts are scaled (TEST_TIMEOUT_SCALE).
TEST_TIMEOUT_SCALE ?= $(if $(SAN),3,1)

check: deps all
	$(Q)TEST_BUILDDIR=$(abspath $(O)/test) \
		TEST_TIMEOUT_SCALE=$(TEST_TIMEOUT_SCALE) $(TEST_BIN) $(TESTS)

demo: deps all
	$(Q)tools/demo $(O)

# The standard benchmark set, under three minutes on two cores: the table,
# then $(O)/bench/results.csv and results.svg (the plot needs gnuplot).
# BENCH_ARGS adds options, e.g. BENCH_ARGS=--quick (see softbench --help).
bench: deps all
	$(Q)mkdir -p $(O)/bench
	$(Q)$(O)/tools/softbench --csv $(O)/bench/results.csv \
		--plot $(O)/bench/results.svg $(BENCH_ARGS)

# valgrind's memcheck over the tests that run our code only (not Debian's
# binaries, which it would not look into), every process of each test
# followed: no error, no block definitely or indirectly lost, no
# descriptor left open (tools/memcheck, suppressions in
# test/valgrind.supp). About 2 minutes on two cores; plain build only.
# MEMCHECK_TESTS picks others (names, globs, !globs to leave out).
MEMCHECK_TESTS	?= 'example_*' 'registry_*' strerror_every_code \
		   'provider_ia_*' 'provider_mem*' 'provider_evd*' 'provider_ep_*' \
		   'provider_srq*' 'provider_dto*' 'provider_data2*' \
		   'provider_notify*' 'provider_wildcard*' 'provider_conn2*' \
		   'provider_counters2*' 'provider_ud2*' 'provider_ext_*' \
		   '!provider_ext_dtestx*'

memcheck: deps all
	$(if $(SAN),$(error make memcheck runs the plain build, not SAN=$(SAN)))
	$(Q)tools/install-deps memcheck
	$(Q)tools/memcheck $(O) $(MEMCHECK_TESTS)

# Not in CI: SOAK_SECONDS (default an hour) of traffic with random
# disconnects between two processes, their RSS and descriptors printed
# every SOAK_INTERVAL seconds; fails if either grows after the warm-up
# (test/test-soak.c; soak_quick, 20 s of it, is part of make check).
SOAK_SECONDS	?= 3600
SOAK_INTERVAL	?= 60

soak: deps all
	$(Q)SOAK_SECONDS=$(SOAK_SECONDS) SOAK_INTERVAL=$(SOAK_INTERVAL) \
		TEST_BUILDDIR=$(abspath $(O)/test) \
		TEST_TIMEOUT_SCALE=$(TEST_TIMEOUT_SCALE) $(TEST_BIN) -v \
		--timeout $$(( $(SOAK_SECONDS) + 300 )) soak

.PHONY: memcheck soak

# ---------------------------------------------------------------------------
# Installation. uninstall removes exactly the files install wrote.

HEADERS		:= $(wildcard include/dat2/*.h) include/dat/udat.h
INST_FILES	:= $(BINDIR)/datinfo $(LIBDIR)/libdat2.so.$(SOVERSION) \
		   $(LIBDIR)/libdaplsoft.so.$(SOVERSION) $(LIBDIR)/libdaplsoft.so.$(SOMAJOR) \
		   $(LIBDIR)/libdat2.so.$(SOMAJOR) $(LIBDIR)/libdat2.so \
		   $(PKGCONFIGDIR)/dat2.pc $(DOCDIR)/dat.conf.example \
		   $(HEADERS:include/%=$(INCLUDEDIR)/%)

install: $(LIBS) $(O)/dat2.pc $(TOOLS) $(TOOLS:%=%.o)
	$(Q)$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(PKGCONFIGDIR) \
		$(DESTDIR)$(INCLUDEDIR)/dat2 $(DESTDIR)$(INCLUDEDIR)/dat \
		$(DESTDIR)$(DOCDIR)
	$(Q)$(INSTALL) -m 755 $(REG_LIB) $(DESTDIR)$(LIBDIR)/
	$(Q)$(CC) $(ALL_LDFLAGS) -o $(DESTDIR)$(BINDIR)/datinfo $(O)/tools/datinfo.o \
		-L$(O)/lib -ldat2
	$(Q)ln -sf libdat2.so.$(SOVERSION) $(DESTDIR)$(LIBDIR)/libdat2.so.$(SOMAJOR)
	$(Q)ln -sf libdat2.so.$(SOMAJOR) $(DESTDIR)$(LIBDIR)/libdat2.so
	$(Q)$(if $(PROV_SRCS),$(INSTALL) -m 755 $(PROV_LIB) $(DESTDIR)$(LIBDIR)/ && \
		ln -sf libdaplsoft.so.$(SOVERSION) $(DESTDIR)$(LIBDIR)/libdaplsoft.so.$(SOMAJOR),true)
	$(Q)$(INSTALL) -m 644 $(O)/dat2.pc $(DESTDIR)$(PKGCONFIGDIR)/
	$(Q)$(INSTALL) -m 644 $(wildcard include/dat2/*.h) $(DESTDIR)$(INCLUDEDIR)/dat2/
	$(Q)$(INSTALL) -m 644 include/dat/udat.h $(DESTDIR)$(INCLUDEDIR)/dat/
	$(Q)$(INSTALL) -m 644 dat.conf.example $(DESTDIR)$(DOCDIR)/
	@echo "installed; $(SYSCONFDIR)/dat.conf is left as it is: see $(DOCDIR)/dat.conf.example"

uninstall:
	$(Q)rm -f $(addprefix $(DESTDIR),$(INST_FILES))
	$(Q)-rmdir $(DESTDIR)$(INCLUDEDIR)/dat2 $(DESTDIR)$(INCLUDEDIR)/dat \
		$(DESTDIR)$(DOCDIR) 2>/dev/null || true

clean:
	$(Q)rm -rf build build-asan build-tsan build-fuzz

-include $(shell find $(O) -name '*.d' 2>/dev/null)
