# softdapl: a pure-software DAT 2.0 (uDAPL) provider over TCP, and its registry.
#
#   make              build the registry, the provider and the tests into $(O)
#   make check        run every test (ends with "N passed, N failed")
#   make conformance  Debian's DAT programs in every documented mode (also
#                     in make check)
#   make demo         the main job: a real DAT session over loopback
#   make bench        softdapl over each transport against raw TCP and
#                     fi_pingpong (tools/softbench), about 3.5 min
#   make ompi OMPI_GIT=DIR  Open MPI 1.6.5 with its udapl BTL, built against
#                     this tree into $(O)/ompi (tools/ompi-build, ~5 min),
#                     for the conformance_mpi_* tests (test/mpi/)
#   make memcheck     valgrind memcheck over most of the suite, ~2 min
#   make soak         an hour of traffic with random disconnects, RSS and
#                     fds watched; SOAK_SECONDS=60 for a minute
#   make fuzz         libFuzzer on every parser of outside bytes (test/fuzz);
#                     FUZZ_SECONDS per harness (default 30), needs clang
#   make SAN=asan     AddressSanitizer + UBSan build in build-asan/
#   make SAN=tsan     ThreadSanitizer build in build-tsan/
#   make install      PREFIX, LIBDIR, INCLUDEDIR, SYSCONFDIR, DESTDIR honoured;
#                     REGISTRY=replace makes our libdat2.so.2 the system's
#                     (README, "Installing"); make uninstall removes
#                     exactly what it wrote
#   make deb          build/softdapl{,-registry,-dev}_VERSION_amd64.deb
#                     (tools/mkdeb)
#   make V=1          show the commands
#
# Versioning (see README): the soname major (libdat2.so.2) is the ABI of
# OFED DAPL 2.x and changes only if that ABI does; the release version below
# is ours and moves with every release.

.DEFAULT_GOAL	:= all

# What a goal needs is there before anything compiles (tools/install-deps):
# make and make install only say what is missing, with the line that
# installs it; make demo and bench install the build's packages as root,
# and make check and conformance what the tests use too (a test whose tool
# is missing skips, saying why). Goals that build nothing check nothing.
DEPS_GOALS	:= $(filter-out clean uninstall deps,$(or $(MAKECMDGOALS),all))
DEPS_MODE	:= $(if $(filter check conformance,$(DEPS_GOALS)),check,$(if \
		   $(filter demo bench,$(DEPS_GOALS)),demo,build --check))
ifneq ($(DEPS_GOALS),)
ifneq ($(shell tools/install-deps $(DEPS_MODE) >&2 || echo missing),)
$(error the packages above are missing; nothing was compiled)
endif
endif

VERSION		:= 0.1.0
SOMAJOR		:= 2
SOVERSION	:= $(SOMAJOR).0.0
# libdat.so.1, DAT 1.2 (registry/dat12): its own soname, that of OFED's
# compat-dapl, for the programs of the DAT 1.2 pages (-ldat).
SOVERSION12	:= 0.0

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
REG_LINKS	:= $(O)/lib/libdat2.so.$(SOMAJOR) $(O)/lib/libdat2.so

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

# ---------------------------------------------------------------------------
# DAT 1.2: libdat.so.1 (registry/dat12), the API of the seed pages
# (<dat/udat.h>, -ldat) served by a DAT 2.0 registry and its providers. Its
# sources see both APIs: the 1.2 headers (include/dat) and a copy of the
# DAT 2.0 headers in which every DAT_ and dat_ name is D2_ and d2_
# ($(O)/gen/d2, made by sed), so that the two sets never clash and the
# compiler checks each conversion against both. It needs libdat2.so.2
# (DT_NEEDED) and calls its DAT_2.0 functions.

D2_HDRS		:= $(patsubst include/dat2/%,$(O)/gen/d2/%,$(wildcard include/dat2/*.h))
DAT12_SRCS	:= $(wildcard registry/dat12/*.c)
DAT12_OBJS	:= $(DAT12_SRCS:%.c=$(O)/%.o)
DAT12_LIB	:= $(O)/lib/libdat.so.1.$(SOVERSION12)
DAT12_LINKS	:= $(O)/lib/libdat.so.1 $(O)/lib/libdat.so

$(O)/gen/d2/%.h: include/dat2/%.h
	$(Q)mkdir -p $(@D)
	$(Q)sed -e 's|^#include <dat2/|#include <d2/|' -e '/^#include/b' \
		-e 's/\bDAT_/D2_/g' -e 's/\bdat_/d2_/g' -e 's/\bUDAT_/UD2_/g' \
		-e 's/_DAT_/_D2_/g' -e 's/_UDAT_/_UD2_/g' \
		-e 's/\b[a-z]*_async_error_reason\b/d2_&/g' \
		$< > $@.tmp && mv $@.tmp $@

$(O)/registry/dat12/%.o: ALL_CFLAGS += -fvisibility=hidden -I$(O)/gen
$(DAT12_OBJS): | $(D2_HDRS)

$(DAT12_LIB): $(DAT12_OBJS) registry/dat12/libdat.map $(REG_LIB) $(REG_LINKS)
	$(msg) LD $@
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -shared -Wl,-soname,libdat.so.1 \
		-Wl,--version-script=registry/dat12/libdat.map -Wl,-z,defs \
		-Wl,-z,relro -Wl,-z,now \
		$(ALL_LDFLAGS) -o $@ $(DAT12_OBJS) -L$(O)/lib \
		-Wl,--no-as-needed -ldat2 -Wl,--as-needed -ldl

$(DAT12_LINKS): $(DAT12_LIB)
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
		   test/hostile-peer.c test/debian.c \
		   $(wildcard test/test-*.c)
TEST_OBJS	:= $(TEST_SRCS:%.c=$(O)/%.o)
TEST_BIN	:= $(O)/test/run-tests

# Fake providers, one .so per variant: FAKE_VARIANT selects the behaviour.
FAKE_VARIANTS	:= good noinit nofini noregister badversion openfail
FAKE_LIBS	:= $(FAKE_VARIANTS:%=$(O)/test/libfake-%.so) $(O)/test/libcountalloc.so \
		   $(O)/test/libslowcopy.so

$(O)/test/libcountalloc.so: test/countalloc.c
	$(msg) CC $@
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(BASE_CFLAGS) $(CFLAGS) -shared -o $@ $< $(BASE_LDFLAGS)

$(O)/test/libslowcopy.so: test/slowcopy.c
	$(msg) CC $@
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(BASE_CFLAGS) $(CFLAGS) -fno-builtin -shared -o $@ $< $(BASE_LDFLAGS)

# The parser is linked in whole: the tests call it directly, as a fuzzer does.
TEST_LINK_OBJS	:= $(O)/registry/conf.o
# The memory objects too (obj.c maps IA handles; the registry knows none of
# the IAs test-provider-mem.c makes, so they are their pointers).
TEST_LINK_OBJS	+= $(O)/provider/obj.o $(O)/provider/pz.o $(O)/provider/lmr.o \
		   $(O)/provider/rmr.o $(O)/provider/api.o $(O)/provider/ctx.o $(O)/provider/cma.o \
		   $(O)/provider/mem.o $(O)/provider/util.o $(O)/provider/trace.o \
		   $(O)/provider/trace-api.o $(O)/provider/refuse.o

$(O)/test/%.o: ALL_CFLAGS += -DTEST_SRCDIR='"$(abspath .)"' \
		   -DTEST_SAN_CFLAGS='"$(SAN_FLAGS)"'
# test-mpi.c builds the MPI programs (test/mpi/) with these warnings too.
$(O)/test/test-mpi.o: ALL_CFLAGS += -DTEST_WARNINGS='"$(WARNINGS)"'

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

# example.h takes the names of events and statuses from tools/dat-names.h.
$(O)/test/examples/%.o: BASE_CFLAGS += -Itools

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

# datinfo (tools/datinfo*.c) links the registry's dat.conf parser and looks
# for dat.conf where the registry does ($(SYSCONFDIR)).
DATINFO_OBJS	:= $(patsubst %.c,$(O)/%.o,$(wildcard tools/datinfo*.c))
INST_LIBS_datinfo := $(O)/registry/conf.o -ldl
$(DATINFO_OBJS): ALL_CFLAGS += -DDREG_SYSCONFDIR='"$(SYSCONFDIR)"'
$(DATINFO_OBJS): $(O)/sysconfdir.stamp

$(O)/tools/datinfo: $(DATINFO_OBJS) $(O)/registry/conf.o $(REG_LIB) $(REG_LINKS)
	$(msg) LD $@
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $(DATINFO_OBJS) $(O)/registry/conf.o \
		-L$(O)/lib -ldat2 -ldl -Wl,-rpath,'$$ORIGIN/../lib'

# softdapl-seq (tools/softdapl-seq*.c) draws traces as sequence diagrams;
# it needs libc only. `make pictures` draws the examples' traces into
# tools/pictures/ (see tools/man/softdapl-seq.1).
SEQ_OBJS	:= $(patsubst %.c,$(O)/%.o,$(wildcard tools/softdapl-seq*.c))
SEQ		:= $(O)/tools/softdapl-seq

$(SEQ): $(SEQ_OBJS)
	$(msg) LD $@
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $(SEQ_OBJS)

# tools/pictures/<example>.svg, .html (the interactive page) and .txt
# (plain text, 100 columns), the examples' traces drawn (committed, the
# lecture set the README shows): each example of test/examples runs once
# over loopback with SOFTDAPL_TRACE, its trace kept in $(O)/pictures/, and
# each drawing carries tools/pictures/<example>.notice (what a student
# should notice) under its title. PICTURES is the lecture order;
# PICTURES_COPY run with SOFTDAPL_TRANSPORT=copy, where RDMA goes as
# frames (fence: the send waits for a READ_RESP), the others with the
# default transport (an RDMA between two EPs of one host is placed by its
# initiator, no frame).
PICTURES	:= send-recv rdma-write rdma-write-imm rdma-read atomics srq \
		   rnr fence solicited flush refused access-error
PICTURES_COPY	:= fence

pictures: $(SEQ) $(EXAMPLES) $(LIBS)
	$(Q)mkdir -p $(O)/pictures tools/pictures
	$(Q)printf 'sdtest u2.0 nonthreadsafe default %s softdapl.2.0 "lo" ""\n' \
		$(abspath $(O))/lib/libdaplsoft.so.$(SOMAJOR) > $(O)/pictures/dat.conf
	$(Q)for e in $(PICTURES); do \
		p=tools/pictures/$$e; tr=auto; \
		case " $(PICTURES_COPY) " in *" $$e "*) tr=copy;; esac; \
		rm -f $(O)/pictures/$$e.trace; \
		DAT_OVERRIDE=$(abspath $(O))/pictures/dat.conf \
		SOFTDAPL_TRANSPORT=$$tr \
		SOFTDAPL_TRACE=$(abspath $(O))/pictures/$$e.trace \
			$(O)/test/examples/$$e sdtest >/dev/null || exit 1; \
		for f in svg html txt; do \
			$(SEQ) --no-process --lane-width 180 --title "$$e" \
				--notice $$p.notice -o $$p.$$f \
				$(O)/pictures/$$e.trace || exit 1; \
		done; \
		echo "  PICTURE  $$p.svg $$p.html $$p.txt"; \
	done

.PHONY: pictures

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

FUZZ_TARGETS	?= conf cm rx ud ring
FUZZ_SECONDS	?= 30
FUZZ_CC		?= clang
# What each harness links besides itself: the parser alone, or the whole
# provider and registry (test/fuzz/peer.c drives them through the DAT API).
FUZZ_STACK	:= $(O)/test/fuzz/peer.o $(REG_OBJS) $(PROV_OBJS)
FUZZ_DEPS_conf	:= $(O)/registry/conf.o
FUZZ_DEPS_cm	:= $(FUZZ_STACK)
FUZZ_DEPS_rx	:= $(FUZZ_STACK)
FUZZ_DEPS_ud	:= $(FUZZ_STACK)
FUZZ_DEPS_ring	:= $(FUZZ_STACK)
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
		-e 's|@RPATH@||' $< > $@

# The build tree used in place (README, "Using the build tree without
# installing"): $(O)/dat.conf names this build's provider,
# $(O)/pkgconfig/dat2.pc compiles against include/ and links $(O)/lib with
# an rpath, and $(O)/tools/softdapl-env prints the shell lines that use
# them (eval "$$(build/tools/softdapl-env)").
TREE_FILES	:= $(O)/dat.conf $(O)/pkgconfig/dat2.pc $(O)/tools/softdapl-env

$(O)/dat.conf: Makefile
	$(msg) GEN $@
	$(Q)mkdir -p $(@D)
	$(Q){ echo '# softdapl in the build tree $(abspath $(O)): written by make'; \
	  for e in 'softdapl-lo lo' 'softdapl-any 0.0.0.0' 'softdapl-lo6 ::1'; do \
		set -- $$e; \
		printf '%-12s u2.0 nonthreadsafe default %s softdapl.2.0 "%s" ""\n' \
			"$$1" '$(abspath $(PROV_LINKS))' "$$2"; \
	  done; } > $@

$(O)/pkgconfig/dat2.pc: Makefile
	$(msg) GEN $@
	$(Q)mkdir -p $(@D)
	$(Q)printf '%s\n' 'libdir=$(abspath $(O)/lib)' \
		'includedir=$(abspath include)' '' 'Name: dat2' \
		'Description: DAT 2.0 (uDAPL) registry from the softdapl build tree at $(abspath $(O))' \
		'Version: $(VERSION)' \
		'Libs: -L$${libdir} -Wl,-rpath,$${libdir} -ldat2' \
		'Cflags: -I$${includedir}' > $@

$(O)/tools/softdapl-env: tools/softdapl-env.in Makefile
	$(msg) GEN $@
	$(Q)mkdir -p $(@D)
	$(Q)sed -e 's|@BUILD@|$(abspath $(O))|g' $< > $@
	$(Q)chmod 755 $@

LIBS		:= $(REG_LIB) $(REG_LINKS) $(if $(PROV_SRCS),$(PROV_LIB) $(PROV_LINKS)) \
		   $(if $(DAT12_SRCS),$(DAT12_LIB) $(DAT12_LINKS))
ALL		:= $(LIBS) $(O)/dat2.pc $(TREE_FILES) $(TOOLS) $(SEQ) $(TEST_BIN) $(FAKE_LIBS) $(EXAMPLES) \
		   $(BENCH) $(FUZZ_REPLAY)

.PHONY: all check conformance demo bench deps install uninstall clean fuzz fuzz-run \
	ompi

all: $(ALL)

# deps installs (as root) or names the packages the build and tests need.
deps:
	$(Q)tools/install-deps

# Sanitized builds run slower: their timeouts are scaled (TEST_TIMEOUT_SCALE).
TEST_TIMEOUT_SCALE ?= $(if $(SAN),3,1)

check: deps all
	$(Q)TEST_BUILDDIR=$(abspath $(O)/test) SOFTDAPL_OMPI=$(abspath $(OMPI_PREFIX)) \
		TEST_TIMEOUT_SCALE=$(TEST_TIMEOUT_SCALE) $(TEST_BIN) $(TESTS)

# The conformance matrix alone (test/conformance.h): Debian's dtest,
# dtestx, dtestcm, dtestsrq and dapltest in every documented mode, under
# our registry and OFED's, and Open MPI's udapl BTL (test/test-mpi.c,
# when make ompi built it); make check runs it too.
conformance: deps all
	$(Q)TEST_BUILDDIR=$(abspath $(O)/test) SOFTDAPL_OMPI=$(abspath $(OMPI_PREFIX)) \
		TEST_TIMEOUT_SCALE=$(TEST_TIMEOUT_SCALE) $(TEST_BIN) 'conformance_*'

# Open MPI 1.6.5, whose udapl BTL is a DAT 1.2 consumer, built unmodified
# against this tree's DAT 1.2 layer (include/dat, $(O)/lib/libdat.so) by
# tools/ompi-build and installed into OMPI_PREFIX, where the
# conformance_mpi_* tests look for it (about 5 minutes on two cores).
# OMPI_GIT names a git directory holding OMPI_TAG: a clone or mirror of
# https://github.com/open-mpi/ompi. Nothing else depends on this target.
OMPI_GIT	?=
OMPI_TAG	?= v1.6.5
OMPI_PREFIX	?= $(O)/ompi
OMPI_JOBS	?= 2

ompi: $(LIBS)
	$(if $(SAN),$(error make ompi builds against the plain build, not SAN=$(SAN)))
	$(Q)if [ -z '$(OMPI_GIT)' ]; then \
		echo "make ompi needs OMPI_GIT, a git directory holding Open MPI's tag $(OMPI_TAG)" \
		     "(a clone or mirror of https://github.com/open-mpi/ompi); run:" >&2; \
		echo "    make ompi OMPI_GIT=/path/to/ompi.git" >&2; \
		exit 1; fi
	$(Q)tools/install-deps ompi
	$(msg) OMPI $(OMPI_PREFIX)
	$(Q)tools/ompi-build --git '$(OMPI_GIT)' --tag '$(OMPI_TAG)' \
		--dat-include include --dat-lib $(O)/lib \
		--prefix '$(OMPI_PREFIX)' -j $(OMPI_JOBS)

demo: all
	$(Q)tools/demo $(O)

# The standard benchmark set (tools/softbench) in one run: every point
# measured for softdapl over each transport of connections on one host
# (SOFTDAPL_TRANSPORT: auto, shared memory with RDMA placed by the
# initiator; copy, the rings only, what a kernel that refuses cross-memory
# attach gives; tcp), then for raw TCP, and the send-lat poll points for
# fi_pingpong too (libfabric's tcp provider, when installed). One table,
# $(O)/bench/results.csv (a line per test, mode, size and transport) and
# results.svg (the plot needs gnuplot). About 3.5 minutes on two cores
# otherwise idle (195 s measured; 5 minutes beside another benchmark).
# BENCH_ARGS adds options, e.g. BENCH_ARGS=--quick (about half a minute), or
# BENCH_ARGS='--transport tcp' for one transport (see softbench --help).
bench: all
	$(Q)mkdir -p $(O)/bench
	$(Q)$(O)/tools/softbench --transport auto,copy,tcp \
		--csv $(O)/bench/results.csv --plot $(O)/bench/results.svg \
		$(BENCH_ARGS)

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
		   '!provider_ext_dtestx*' 'trace_*' '!trace_allocates_nothing' \
		   'datinfo_*'

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
# Installation. make install puts everything where Debian's conventions
# expect it under PREFIX (README "Installing"); make uninstall removes
# exactly what install wrote, and the directories it created once they are
# empty: install lists those directories, $(SYSCONFDIR)/dat.conf when it
# created it, and where it put the registry, in
# $(DOCDIR)/install-manifest. make deb: tools/mkdeb.
#
# The registry (tools/dat-registry): our libdat2.so.2 in LIBDIR would come
# before a registry the system has (Debian's libdapl2) for every program
# the loader serves, Debian's dtest among them. So where there is one,
# make install keeps it the system's: ours and libdat.so.1 go to
# REGISTRYDIR, which the loader does not search, and softdapl's tools and
# dat2.pc reach them with an RPATH; everything else loads softdapl's
# provider through the system's registry. REGISTRY=replace (on the command
# line) puts ours in LIBDIR instead, REGISTRY=keep in REGISTRYDIR.
# Where the system has none, ours goes to LIBDIR. A reinstall repeats the
# previous choice unless told otherwise, and install ends with the line
# that says which registry dtest loads.
#
# dat.conf: install writes our entries, with the installed provider's
# absolute path, to $(DOCDIR)/softdapl.dat.conf, and puts them into an
# existing $(SYSCONFDIR)/dat.conf between marker lines
# (tools/dat-conf-block), which uninstall takes out again. Where there is
# no dat.conf, install creates it from those entries, and uninstall
# removes it again unless it changed since (dat.conf(5)).

MANDIR		?= $(DATADIR)/man
# Debian's Wireshark loads Lua dissectors from its global Lua plugin
# folder, /usr/lib/x86_64-linux-gnu/wireshark/plugins (tshark -G folders),
# which is this for LIBDIR=/usr/lib/x86_64-linux-gnu (make deb).
WIRESHARK_LUADIR ?= $(LIBDIR)/wireshark/plugins
LDCONFIG	?= ldconfig
# auto, keep or replace; from the command line only: many CI runners set
# REGISTRY in the environment to a container registry's name.
ifneq ($(origin REGISTRY),command line)
REGISTRY	:= auto
endif
REGISTRYDIR	?= $(LIBDIR)/softdapl

HEADERS		:= $(wildcard include/dat2/*.h) $(wildcard include/dat/*.h)
# Every program of $(TOOLS), softdapl-seq and softbench, relinked for the
# installed tree (no RUNPATH, or REGISTRYDIR's when the registry is kept
# there): from tools/NAME.c and tools/NAME-*.c (softbench-*.c,
# datinfo-conf.c) unless INST_OBJS_NAME lists the objects, with
# INST_LIBS_NAME as extra libraries.
INST_PROGS	:= $(sort $(TOOLS) $(if $(SEQ_OBJS),$(SEQ)) $(O)/tools/softbench)
inst_objs	= $(or $(INST_OBJS_$(notdir $(1))),$(1).o \
		  $(patsubst %.c,$(O)/%.o,$(wildcard tools/$(notdir $(1))-*.c)))
INST_MANS	:= $(wildcard tools/man/*.[1-8])
man_dest	= $(MANDIR)/man$(subst .,,$(suffix $(1)))/$(notdir $(1))
# Every call a page of section 3 documents (its NAME line: tools/man-names)
# is a link to the page, as PAGE:NAME pairs: man dat_ep_connect opens
# dat_ep(3).
MAN_LINKS	:= $(foreach p,$(wildcard tools/man/*.3),$(foreach n,$(filter-out \
		   $(basename $(notdir $(p))),$(shell tools/man-names $(p))),$(notdir $(p)):$(n).3))
INST_LUA	:= $(wildcard tools/softdapl.lua)
INST_PROVIDER	= $(LIBDIR)/libdaplsoft.so.$(SOMAJOR)

# libdat.so.1 kept in REGISTRYDIR finds the libdat2.so.2 beside it there
# (RUNPATH $ORIGIN), not the system's.
DAT12_RELINK	= $(CC) -shared -Wl,-soname,libdat.so.1 \
		  -Wl,--version-script=registry/dat12/libdat.map -Wl,-z,defs \
		  -Wl,-z,relro -Wl,-z,now $(ALL_LDFLAGS) $(DAT12_OBJS) -L$(O)/lib \
		  -Wl,--no-as-needed -ldat2 -Wl,--as-needed -ldl -Wl,-rpath,'$$ORIGIN'
# The registries' files in directory $(1): LIBDIR or REGISTRYDIR.
reg_files	= $(1)/libdat2.so.$(SOVERSION) $(1)/libdat2.so.$(SOMAJOR) \
		  $(1)/libdat2.so $(if $(DAT12_SRCS),$(1)/libdat.so.1.$(SOVERSION12) \
		  $(1)/libdat.so.1 $(1)/libdat.so)
# As arguments of rm -f in the DESTDIR ($$d of the recipes).
in_dest		= $(addprefix "$$d,$(addsuffix ",$(1)))
INST_COMMON	= $(INST_PROGS:$(O)/tools/%=$(BINDIR)/%) $(BINDIR)/bench-plot \
		  $(if $(PROV_SRCS),$(LIBDIR)/libdaplsoft.so.$(SOVERSION) $(INST_PROVIDER)) \
		  $(PKGCONFIGDIR)/dat2.pc $(HEADERS:include/%=$(INCLUDEDIR)/%) \
		  $(foreach m,$(INST_MANS),$(call man_dest,$(m))) \
		  $(foreach l,$(MAN_LINKS),$(MANDIR)/man3/$(lastword $(subst :, ,$(l)))) \
		  $(INST_LUA:tools/%=$(WIRESHARK_LUADIR)/%) \
		  $(DOCDIR)/README $(DOCDIR)/dat.conf.example \
		  $(DOCDIR)/softdapl.dat.conf $(DOCDIR)/install-manifest
inst_dirs	= $(sort $(patsubst %/,%,$(dir $(INST_COMMON) $(call reg_files,$(1)))) \
		  $(SYSCONFDIR))

# The registry reads $(SYSCONFDIR)/dat.conf (sr.c): rebuilt when it changes.
$(O)/registry/sr.o: $(O)/sysconfdir.stamp
$(O)/sysconfdir.stamp: FORCE
	$(Q)mkdir -p $(@D)
	$(Q)echo '$(SYSCONFDIR)' | cmp -s - $@ || echo '$(SYSCONFDIR)' > $@

# What make install installs, built (and nothing else: no tests), for a
# build as one user and an install as another (tools/ci-setup --system).
installable: $(LIBS) $(foreach p,$(INST_PROGS),$(call inst_objs,$(p)))

install: installable tools/bench-plot dat2.pc.in
	$(Q)set -e; d='$(DESTDIR)'; m="$$d$(DOCDIR)/install-manifest"; \
	r=$$(tools/dat-registry choose '$(REGISTRY)' "$$m" "$$d" '$(LIBDIR)'); \
	mode=$${r% *}; prev=$${r#* }; \
	if [ "$$mode" = keep ]; then \
		rd='$(REGISTRYDIR)'; rpath='-Wl,-rpath,$(REGISTRYDIR)'; \
		pcrpath=' -Wl,-rpath,$${libdir}'; dirs='$(call inst_dirs,$(REGISTRYDIR))'; \
	else \
		rd='$(LIBDIR)'; rpath=; pcrpath=; dirs='$(call inst_dirs,$(LIBDIR))'; \
	fi; \
	made=; if [ -f "$$m" ]; then made=$$(grep -v '^#' "$$m" || true); fi; \
	if [ -n "$$d" ]; then mkdir -p "$$d"; fi; \
	for dir in $$dirs; do \
		p="$$d$$dir"; new=; \
		while [ ! -d "$$p" ]; do new="$$p $$new"; p=$$(dirname "$$p"); done; \
		for n in $$new; do mkdir "$$n"; made="$$made $${n#"$$d"}"; done; \
	done; \
	if [ "$$prev" = keep ] && [ "$$mode" = replace ]; then \
		rm -f $(call in_dest,$(call reg_files,$(REGISTRYDIR))); \
	elif [ "$$prev" = replace ] && [ "$$mode" = keep ]; then \
		rm -f $(call in_dest,$(call reg_files,$(LIBDIR))); \
	fi; \
	$(INSTALL) -m 755 $(REG_LIB) "$$d$$rd/"; \
	ln -sf libdat2.so.$(SOVERSION) "$$d$$rd/libdat2.so.$(SOMAJOR)"; \
	ln -sf libdat2.so.$(SOMAJOR) "$$d$$rd/libdat2.so"; \
	$(if $(DAT12_SRCS),if [ "$$mode" = keep ]; then \
		$(DAT12_RELINK) -o "$$d$$rd/libdat.so.1.$(SOVERSION12)"; \
	else \
		$(INSTALL) -m 755 $(DAT12_LIB) "$$d$$rd/"; \
	fi; \
	ln -sf libdat.so.1.$(SOVERSION12) "$$d$$rd/libdat.so.1"; \
	ln -sf libdat.so.1 "$$d$$rd/libdat.so";) \
	$(if $(PROV_SRCS),$(INSTALL) -m 755 $(PROV_LIB) "$$d$(LIBDIR)/"; \
	ln -sf libdaplsoft.so.$(SOVERSION) "$$d$(INST_PROVIDER)";) \
	$(foreach p,$(INST_PROGS),$(CC) $(ALL_LDFLAGS) -Wl,--as-needed \
		-o "$$d$(BINDIR)/$(notdir $(p))" $(call inst_objs,$(p)) \
		-L$(O)/lib -ldat2 $$rpath $(INST_LIBS_$(notdir $(p)));) \
	$(INSTALL) -m 755 tools/bench-plot "$$d$(BINDIR)/"; \
	sed -e 's|@PREFIX@|$(PREFIX)|' -e "s|@LIBDIR@|$$rd|" \
		-e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' -e 's|@VERSION@|$(VERSION)|' \
		-e "s|@RPATH@|$$pcrpath|" dat2.pc.in > "$$d$(PKGCONFIGDIR)/dat2.pc"; \
	chmod 644 "$$d$(PKGCONFIGDIR)/dat2.pc"; \
	$(INSTALL) -m 644 $(wildcard include/dat2/*.h) "$$d$(INCLUDEDIR)/dat2/"; \
	$(INSTALL) -m 644 $(wildcard include/dat/*.h) "$$d$(INCLUDEDIR)/dat/"; \
	$(foreach f,$(INST_MANS),$(INSTALL) -m 644 $(f) "$$d$(call man_dest,$(f))";) \
	$(foreach l,$(MAN_LINKS),ln -sf $(subst :, "$$d$(MANDIR)/man3/,$(l))";) \
	$(foreach f,$(INST_LUA),$(INSTALL) -m 644 $(f) "$$d$(WIRESHARK_LUADIR)/";) \
	$(INSTALL) -m 644 README dat.conf.example "$$d$(DOCDIR)/"; \
	ent="$$d$(DOCDIR)/softdapl.dat.conf"; \
	{ echo '# softdapl entries for dat.conf (see dat.conf(5) and softdapl(7)),'; \
	  echo '# written by make install for the provider $(INST_PROVIDER).'; \
	  echo '# make install put them into $(SYSCONFDIR)/dat.conf (between marker'; \
	  echo '# lines when the file was there before: tools/dat-conf-block).'; \
	  for e in 'softdapl-lo lo' 'softdapl-any 0.0.0.0' 'softdapl-lo6 ::1'; do \
		set -- $$e; \
		printf '%-12s u2.0 nonthreadsafe default %s softdapl.2.0 "%s" ""\n' \
			"$$1" '$(INST_PROVIDER)' "$$2"; \
	  done; } > "$$ent"; \
	chmod 644 "$$ent"; \
	conf="$$d$(SYSCONFDIR)/dat.conf"; \
	if [ -e "$$conf" ] || [ -L "$$conf" ]; then \
		tools/dat-conf-block add "$$conf" "$$ent" '$(INST_PROVIDER)' | \
			sed 's|^'"$$d"'||'; \
	else \
		$(INSTALL) -m 644 "$$ent" "$$conf"; \
		made="$$made $(SYSCONFDIR)/dat.conf"; \
		echo "created $(SYSCONFDIR)/dat.conf: softdapl-lo, softdapl-any, softdapl-lo6"; \
	fi; \
	{ echo '# make install: what it created besides its files, for make uninstall'; \
	  echo "# registry: $$mode"; \
	  for f in $$made; do echo "$$f"; done; } > "$$m"; \
	chmod 644 "$$m"; \
	if [ -z "$$d" ] && [ "$$(id -u)" = 0 ]; then $(LDCONFIG) || true; fi; \
	tools/dat-registry say "$$mode" "$$d" '$(LIBDIR)' '$(REGISTRYDIR)'

# The registry's files where the manifest says install put them; without
# a manifest, REGISTRYDIR's and those of LIBDIR that no package owns.
uninstall:
	$(Q)set -e; d='$(DESTDIR)'; m="$$d$(DOCDIR)/install-manifest"; \
	made=; mode=; if [ -f "$$m" ]; then \
		made=$$(grep -v '^#' "$$m" || true); \
		mode=$$(sed -n 's/^# registry: //p' "$$m"); mode=$${mode:-replace}; \
	fi; \
	conf="$$d$(SYSCONFDIR)/dat.conf"; rev=; \
	tools/dat-conf-block remove "$$conf" | sed 's|^'"$$d"'||'; \
	for f in $$made; do \
		rev="$$f $$rev"; \
		[ "$$f" = '$(SYSCONFDIR)/dat.conf' ] && [ -f "$$conf" ] || continue; \
		if cmp -s "$$conf" "$$d$(DOCDIR)/softdapl.dat.conf"; then \
			rm -f "$$conf"; \
		else \
			echo "$(SYSCONFDIR)/dat.conf changed since make install created it: left as it is"; \
		fi; \
	done; \
	rm -f $(call in_dest,$(INST_COMMON)); \
	case $$mode in \
	keep) rm -f $(call in_dest,$(call reg_files,$(REGISTRYDIR)));; \
	replace) rm -f $(call in_dest,$(call reg_files,$(LIBDIR)));; \
	*) rm -f $(call in_dest,$(call reg_files,$(REGISTRYDIR))); \
	   for f in $(call reg_files,$(LIBDIR)); do \
		tools/dat-registry owned "$$d$$f" || rm -f "$$d$$f"; \
	   done;; \
	esac; \
	for f in $$rev; do \
		if [ -d "$$d$$f" ]; then rmdir "$$d$$f" 2>/dev/null || true; fi; \
	done; \
	if [ -z "$$d" ] && [ "$$(id -u)" = 0 ]; then $(LDCONFIG) || true; fi

# build/softdapl_VERSION_ARCH.deb, softdapl-registry_... and softdapl-dev_...
# (DEBDIR= elsewhere), from a make install into a temporary root:
# tools/mkdeb.
DEBDIR		?= $(O)

deb: $(LIBS) tools/bench-plot $(foreach p,$(INST_PROGS),$(call inst_objs,$(p)))
	$(if $(SAN),$(error make deb packages the plain build, not SAN=$(SAN)))
	$(Q)MAKE='$(MAKE)' tools/mkdeb $(O) $(VERSION) $(DEBDIR)

.PHONY: deb installable FORCE

clean:
	$(Q)rm -rf build build-asan build-tsan build-fuzz

# Not into Open MPI's build and installation (make ompi), which hold .d
# files of their own.
-include $(shell find $(O) \( -path '$(OMPI_PREFIX)' -o \
	-path '$(OMPI_PREFIX).build' \) -prune -o -name '*.d' -print 2>/dev/null)
