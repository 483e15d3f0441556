# pecert - conformance suite for Transformer positional encodings.
#
# Quick start (Debian 12, as root):
#     make run      install what is missing, build, certify the bundled plugins
#     make check    install what is missing, build, run every test
#
# Other targets:
#     make            build build/pecert and every plugin (build/impls/*.so)
#     make deps       apt-get install the Debian packages pecert needs (only missing ones)
#     make install    PREFIX=/usr/local DESTDIR=: pecert, its plugins and data, the
#                     plugin header and pecert.pc
#     make browser    the HTML report in headless Chromium (part of `make check`)
#     make honest     the honest float32 variants: no false alarm (part of `make check`)
#     make vectors REF=/path/to/transformers   regenerate the golden vectors
#     make asan       build and test with AddressSanitizer + UBSan (into build/asan/)
#     make fuzz       the four libFuzzer targets, 10^6 runs each (build/fuzz/; make
#                     fuzz-smoke, part of `make check`, runs each for FUZZ_SMOKE_S)
#     make clean
# V=1 shows the commands.

BUILD     ?= build
CC        ?= gcc
PKGS      := libcjson zlib
DEB_PKGS  := gcc g++ make pkg-config libcjson-dev zlib1g-dev check libseccomp-dev \
             python3 python3-numpy python3-torch python3-pytest
# Engines written in Python (--impl python:SPEC) run under this interpreter
# in the tests: Debian's, with the python3-numpy and python3-torch above
# (a user's own python3, with their packages, is pecert's default).
export PECERT_PYTHON ?= /usr/bin/python3

# The browser test of the HTML report (Debian's, not PyPI's selenium).
BROWSER_DEB_PKGS := chromium chromium-driver python3-selenium
# The fuzz targets (tests/fuzz/): clang with libFuzzer and its sanitizers.
FUZZ_DEB_PKGS := clang libclang-rt-14-dev
GEN_DEB_PKGS := python3 python3-torch python3-numpy python3-packaging python3-regex \
                python3-filelock python3-tqdm python3-yaml

ifeq ($(V),1)
Q :=
else
Q := @
endif

# The library's folders, floor by floor (ARCHITECTURE.md): the host library,
# the checks (and certify's mapping, the diagnosis from dumps), the runner,
# the outputs. Each is also an include directory.
LIB_DIRS     := harness conformance conformance/certify conformance/dumps run reports
INCLUDE_DIRS := -Iinclude $(LIB_DIRS:%=-I%)

# -Wno-format-truncation: diagnostics are cut to fixed-width lines on purpose.
WARN      := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
             -Wwrite-strings -Wformat=2 -Wundef -Wcast-qual -Wpointer-arith \
             -Wno-format-truncation
BASEFLAGS := -std=c17 -O2 -g -fPIC -ffp-contract=off -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE \
             $(INCLUDE_DIRS) -MMD -MP -DPECERT_SOURCE_DIR=\"$(CURDIR)\"
SANFLAGS  ?=
PC_CFLAGS  = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PC_LIBS    = $(shell pkg-config --libs $(PKGS) 2>/dev/null)
CHECK_CFLAGS = $(shell pkg-config --cflags check 2>/dev/null)
CHECK_LIBS   = $(shell pkg-config --libs check 2>/dev/null)
ALL_CFLAGS = $(BASEFLAGS) $(WARN) $(SANFLAGS) $(PC_CFLAGS) $(CFLAGS)
LDLIBS_ALL = $(PC_LIBS) -ldl -lm $(LDLIBS)

HARNESS_SRC := $(sort $(foreach d,$(LIB_DIRS),$(wildcard $(d)/*.c)))
HARNESS_OBJ := $(HARNESS_SRC:%.c=$(BUILD)/obj/%.o)
CLI_SRC     := $(sort $(wildcard cli/*.c) $(wildcard bench/*.c))
CLI_OBJ     := $(CLI_SRC:%.c=$(BUILD)/obj/%.o)
# The engine host (engine/): the one process that loads the plugin under
# test, sandboxed by filters written with Debian's libseccomp; it sees only
# include/.
ENGINE_SRC  := $(sort $(wildcard engine/*.c))
ENGINE_OBJ  := $(ENGINE_SRC:%.c=$(BUILD)/obj/%.o)

# One plugin per directory under impls/ (impls/NAME/*.c -> build/impls/NAME.so);
# impls/testing/*.c are single-file plugins used only by the tests.
PLUGIN_DIRS := $(sort $(dir $(wildcard impls/*/*.c)))
PLUGIN_DIRS := $(filter-out impls/testing/ impls/mutants/ impls/honest/,$(PLUGIN_DIRS))
PLUGIN_NAMES := $(patsubst impls/%/,%,$(PLUGIN_DIRS))
PLUGINS     := $(PLUGIN_NAMES:%=$(BUILD)/impls/%.so)
# impls/mutants/NAME.c + impls/mutants/core/*.c -> build/impls/mutants/NAME.so
MUTANT_SRC  := $(wildcard impls/mutants/*.c)
MUTANTS     := $(MUTANT_SRC:impls/mutants/%.c=$(BUILD)/impls/mutants/%.so)
MUTANT_CORE := $(patsubst %.c,$(BUILD)/obj/%.o,$(wildcard impls/mutants/core/*.c))
# The same mutants on a float32 base (an honest variant, impls/honest/):
# impls/mutants/NAME.c -> build/impls/mutants-f32/NAME.so, objects under
# build/obj/f32/ compiled with MUTANT_F32=1 (core/mutant.h).
MUTANT_F32_BASE := ggml_recurrence
MUTANTS_F32     := $(MUTANT_SRC:impls/mutants/%.c=$(BUILD)/impls/mutants-f32/%.so)
MUTANT_CORE_F32 := $(patsubst %.c,$(BUILD)/obj/f32/%.o,$(wildcard impls/mutants/core/*.c))
# impls/honest/NAME.c + impls/honest/core/*.c -> build/impls/honest/NAME.so,
# with ref's argument checks and defaulting rules linked in (core/honest.h).
HONEST_SRC  := $(sort $(wildcard impls/honest/*.c))
HONEST      := $(HONEST_SRC:impls/honest/%.c=$(BUILD)/impls/honest/%.so)
HONEST_CORE := $(patsubst %.c,$(BUILD)/obj/%.o,$(wildcard impls/honest/core/*.c)) \
               $(patsubst %,$(BUILD)/obj/impls/ref/%.o,validate params overlap session_args t5 sinusoidal learned rope2d angle posinterp cope peg swin \
                 sine2d relpos2d deberta sincos2d)
TEST_PLUGIN_SRC := $(wildcard impls/testing/*.c)
TEST_PLUGINS := $(TEST_PLUGIN_SRC:impls/testing/%.c=$(BUILD)/impls/testing/%.so)

TEST_SRC    := $(sort $(wildcard tests/*.c))
TEST_OBJ    := $(TEST_SRC:%.c=$(BUILD)/obj/%.o)

.PHONY: all deps gen-deps install check unit conformance abi-cxx python layers honest mutation browser readme inventory inventory-table profiles profiles-table run vectors asan clean bench bench-peers \
        fuzz fuzz-smoke
.DEFAULT_GOAL := all
# Keep objects of pattern-built plugins (no "rm ...o" after each build).
# .PRECIOUS, not a bare .SECONDARY: the latter would also stop make from
# building a newly added source's object for an existing archive.
.PRECIOUS: $(BUILD)/obj/%.o $(BUILD)/obj/f32/impls/mutants/%.o $(BUILD)/obj/impls/testing/%.o

all: $(BUILD)/pecert $(BUILD)/pecert-engine $(BUILD)/engine-filters.bpf $(PLUGINS) $(TEST_PLUGINS) $(MUTANTS) $(HONEST) $(MUTANTS_F32)

# ---- dependencies (idempotent: installs only what is missing) -------------
deps:
	$(Q)sh tools/ensure-debs.sh $(DEB_PKGS) $(BROWSER_DEB_PKGS) $(FUZZ_DEB_PKGS)

gen-deps:
	$(Q)sh tools/ensure-debs.sh $(GEN_DEB_PKGS)

# ---- build ----------------------------------------------------------------
$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  CC    $<")
	$(Q)$(CC) $(ALL_CFLAGS) -c $< -o $@

$(BUILD)/libpecert.a: $(HARNESS_OBJ)
	$(Q)rm -f $@ && ar rcs $@ $^

$(BUILD)/pecert: $(CLI_OBJ) $(BUILD)/libpecert.a
	$(if $(Q),@echo "  LD    $@")
	$(Q)$(CC) $(ALL_CFLAGS) $^ -o $@ $(LDLIBS_ALL)

$(BUILD)/pecert-engine: $(ENGINE_OBJ)
	$(if $(Q),@echo "  LD    $@")
	$(Q)$(CC) $(ALL_CFLAGS) $^ -o $@ -ldl

# The host's seccomp filters, compiled to BPF once here (libseccomp's
# compiler cost every host 0.4 ms): engine/filters/ writes them as a header.
FILTERS_OBJ := $(patsubst %.c,$(BUILD)/obj/%.o,$(sort $(wildcard engine/filters/*.c)))
$(BUILD)/engine-filters: $(FILTERS_OBJ)
	$(if $(Q),@echo "  LD    $@")
	$(Q)$(CC) $(ALL_CFLAGS) $^ -o $@ -lseccomp

$(BUILD)/gen/engine_filters.h: $(BUILD)/engine-filters
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  GEN   $@")
	$(Q)$< > $@.tmp && mv $@.tmp $@

$(BUILD)/engine-filters.bpf: $(BUILD)/engine-filters
	$(if $(Q),@echo "  GEN   $@")
	$(Q)$< --binary > $@.tmp && mv $@.tmp $@

$(BUILD)/obj/engine/sandbox.o: $(BUILD)/gen/engine_filters.h
$(BUILD)/obj/engine/sandbox.o: ALL_CFLAGS += -I$(BUILD)/gen

# One rule per plugin directory: impls/NAME/**/*.c -> build/impls/NAME.so.
define plugin_rule
$(BUILD)/impls/$(1).so: $(patsubst %.c,$(BUILD)/obj/%.o,$(shell find impls/$(1) -name '*.c' | sort))
	@mkdir -p $$(dir $$@)
	$$(if $$(Q),@echo "  SO    $$@")
	$$(Q)$$(CC) $$(ALL_CFLAGS) -shared $$^ -o $$@ -lm $$(PLUGIN_LIBS_$(1))
endef
$(foreach p,$(PLUGIN_NAMES),$(eval $(call plugin_rule,$(p))))

# `fast`: OpenMP everywhere, ISA flags only on the files of that ISA (never
# -march=native: the binary must run on any x86-64 and pick its kernels by
# CPUID at run time).
FAST_AVX2_FLAGS   := -mavx2 -mfma -mf16c
FAST_AVX512_FLAGS := -mavx512f -mavx512bw -mavx512vl -mavx512dq -mavx512bf16 -mfma -mf16c
$(BUILD)/obj/impls/fast/%.o: ALL_CFLAGS += -fopenmp
$(BUILD)/obj/impls/fast/x86/avx2/%.o: ALL_CFLAGS += $(FAST_AVX2_FLAGS)
$(BUILD)/obj/impls/fast/x86/avx512/%.o: ALL_CFLAGS += $(FAST_AVX512_FLAGS)
# NODELETE: fast's OpenMP threads outlive its calls; a dlclose() that
# unmapped the plugin (and libgomp with it) would crash them.
PLUGIN_LIBS_fast := -fopenmp -Wl,-z,nodelete

$(BUILD)/impls/mutants/%.so: $(BUILD)/obj/impls/mutants/%.o $(MUTANT_CORE)
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  SO    $@")
	$(Q)$(CC) $(ALL_CFLAGS) -shared $^ -o $@ -lm

$(BUILD)/obj/f32/impls/mutants/%.o: impls/mutants/%.c
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  CC    $< (float32 base)")
	$(Q)$(CC) $(ALL_CFLAGS) -DMUTANT_F32=1 -DMUTANT_BASE=\"honest/$(MUTANT_F32_BASE).so\" -c $< -o $@

$(BUILD)/impls/mutants-f32/%.so: $(BUILD)/obj/f32/impls/mutants/%.o $(MUTANT_CORE_F32) $(BUILD)/impls/honest/$(MUTANT_F32_BASE).so
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  SO    $@")
	$(Q)$(CC) $(ALL_CFLAGS) -shared $(filter %.o,$^) -o $@ -lm

$(BUILD)/impls/honest/%.so: $(BUILD)/obj/impls/honest/%.o $(HONEST_CORE)
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  SO    $@")
	$(Q)$(CC) $(ALL_CFLAGS) -shared $^ -o $@ -lm

# The misbehaving test plugins are never sanitized: their crash must be a
# real SIGSEGV, not a sanitizer report.
TESTING_CFLAGS = $(BASEFLAGS) $(WARN) $(CFLAGS)
$(BUILD)/obj/impls/testing/%.o: impls/testing/%.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(TESTING_CFLAGS) -c $< -o $@

$(BUILD)/impls/testing/%.so: $(BUILD)/obj/impls/testing/%.o
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(TESTING_CFLAGS) -shared $^ -o $@ -lm

# The bench's probes are the CLI's (bench/), tested as they are: linked in.
BENCH_TEST_OBJ := $(addprefix $(BUILD)/obj/bench/,probe.o team.o timing.o)
$(BUILD)/unit-tests: $(TEST_OBJ) $(BENCH_TEST_OBJ) $(BUILD)/libpecert.a
	$(Q)$(CC) $(ALL_CFLAGS) $(CHECK_CFLAGS) $^ -o $@ $(CHECK_LIBS) $(LDLIBS_ALL)

$(BUILD)/obj/tests/%.o: tests/%.c
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  CC    $<")
	$(Q)$(CC) $(ALL_CFLAGS) $(CHECK_CFLAGS) -c $< -o $@

# ---- tests ----------------------------------------------------------------
# `make check` = unit tests (Check) + the conformance of every bundled plugin
# that must pass. Ends with one verdict line.
# Each part runs as `make PART` (tools/check_parts.sh), and the wall time
# of each is printed at the end (and kept in $(BUILD)/check-times.txt).
CHECK_PARTS := abi-cxx layers unit conformance honest mutation python browser readme inventory profiles fuzz-smoke
# The builds run $(NPROC) compilers at a time (`make check` itself is
# serial: its parts share the cores in their own ways).
check: deps
	$(Q)$(MAKE) --no-print-directory -j$(NPROC) all $(BUILD)/unit-tests
	$(Q)sh tools/check_parts.sh $(BUILD) $(CHECK_PARTS)
	@echo "*** pecert check OK ***"

# The floors of the tree (ARCHITECTURE.md, tools/check_layers.py): no
# #include, and no call between the built objects, from a lower folder to a
# higher one.
layers: all
	$(Q)/usr/bin/python3 tools/check_layers.py --objects $(BUILD)

# The public header must stay valid C++ (and the same layout from C++).
abi-cxx:
	$(Q)$(CXX) -std=c++17 -Wall -Wextra -Werror -Iinclude -fsyntax-only tests/abi_cxx.cc

# The mutation gates' vectors: the families' own, vectors/ without the
# checkpoints' profiles/ and mappings/. A mutant is a bug in a family's
# code, and the family vectors are where its checks find it; the
# checkpoints' configs and tables are held on every engine that must pass
# them (conformance: ref and fast under each ISA; honest: the float32
# variants), and they would double every property sweep of each of the
# ~130 mutant runs (the sweeps take their configs from the vectors), for no
# mutant caught or named otherwise: measured when chosen, 128/128 caught
# and named either way, one separation row 198 -> 202, 4.6 s -> 1.8 s a run.
FAMILY_VECTORS := $(BUILD)/family-vectors
# (the folders too: a removed file changes only its folder's time)
$(FAMILY_VECTORS)/copied: $(wildcard vectors/*/*.json) $(wildcard vectors/*/)
	$(Q)rm -rf $(FAMILY_VECTORS) && mkdir -p $(FAMILY_VECTORS)
	$(Q)for d in vectors/*/; do case $$d in vectors/profiles/|vectors/mappings/|vectors/gen/) ;; \
	    *) cp -R $$d $(FAMILY_VECTORS)/ || exit 1;; esac; done
	$(Q)touch $@

# Engines written in Python: the Python host's mirror of plugin.h and
# wire.h against the compiler's, the planted bugs of impls/python/mutants
# caught and diagnosed as their C twins are, and the pytest integration as
# a user's CI runs it (Debian's python3-pytest).
python: all $(FAMILY_VECTORS)/copied
	$(Q)/usr/bin/python3 tests/python/check_abi_layout.py $(CC)
	$(Q)$(BUILD)/pecert mutation --catalogue impls/python/mutants/catalogue.json \
	    --dir python:impls/python/mutants --vectors $(FAMILY_VECTORS) --jobs $(MUTATION_JOBS) --quiet
	$(Q)PECERT=$(CURDIR)/$(BUILD)/pecert PYTHONPATH=$(CURDIR)/python /usr/bin/python3 -m pytest -q \
	    -p no:cacheprovider -W ignore::pytest.PytestAssertRewriteWarning tests/python/

unit: $(BUILD)/unit-tests all $(FAMILY_VECTORS)/copied
	$(Q)PECERT_BUILD=$(BUILD) $(BUILD)/unit-tests

# fast runs once per ISA variant (PECERT_ISA) this CPU has the instruction
# sets for (as /proc/cpuinfo names them); a variant it lacks is skipped.
FAST_NEEDS_avx2   := avx2 fma f16c
FAST_NEEDS_avx512 := avx2 fma f16c avx512f avx512bw avx512vl avx512dq
conformance: all
	$(Q)$(BUILD)/pecert run --impl $(BUILD)/impls/ref.so --vectors vectors -j $(NPROC) --json $(BUILD)/ref-conformance.json
	$(Q)! grep '"diagnosis":[[:space:]]*"not applicable: no ' $(BUILD)/ref-conformance.json || \
	    { echo "conformance: the bundled vectors give a check no case (above; $(BUILD)/ref-conformance.json)"; exit 1; }
	$(Q)for isa in scalar avx2 avx512; do \
	    case $$isa in avx2) need="$(FAST_NEEDS_avx2)";; avx512) need="$(FAST_NEEDS_avx512)";; *) need="";; esac; \
	    missing=""; for f in $$need; do grep -qw "$$f" /proc/cpuinfo 2>/dev/null || missing="$$missing $$f"; done; \
	    if [ -n "$$missing" ]; then echo "fast PECERT_ISA=$$isa: skipped, the CPU lacks$$missing"; continue; fi; \
	    echo "fast PECERT_ISA=$$isa:"; \
	    PECERT_ISA=$$isa $(BUILD)/pecert run --impl $(BUILD)/impls/fast.so --vectors vectors -j $(NPROC) || exit 1; \
	done

# Every honest variant (a correct float32 engine of impls/honest/) must pass
# every check it implements and be CERTIFIED for every profile it supports:
# the bounds raise no false alarm on engines pecert did not write.
# The gate writes $(HONEST_RUNS) when it passes: `make mutation` takes
# the honest side of its separation table from there, and runs the gate
# first when that is older than pecert, a variant, a vector or a profile.
HONEST_RUNS := $(BUILD)/honest/passed
honest: all $(FAMILY_VECTORS)/copied
	$(Q)sh tests/honest/run.sh $(BUILD)

$(HONEST_RUNS): $(BUILD)/pecert $(HONEST) $(FAMILY_VECTORS)/copied $(wildcard vectors/*/*.json) \
                $(wildcard conformance/profiles/*.json)
	$(Q)sh tests/honest/run.sh $(BUILD)

# Every mutant (a correct engine with one real bug, on ref and on a float32
# honest base) must be caught by its named checks and diagnosed, on the
# family vectors; then the separation table (honest worst, on every
# vector, vs mutant least error/bound per check) is written into
# TOLERANCES.md from the honest gate's runs. One mutant per core at a time
# (--jobs); JUnit for CI in build/mutation.xml.
mutation: all $(HONEST_RUNS) $(FAMILY_VECTORS)/copied
	$(Q)$(BUILD)/pecert mutation --jobs $(MUTATION_JOBS) --vectors $(FAMILY_VECTORS) \
	    $$(for f in $(BUILD)/honest/runs/*.json; do printf ' --honest %s' "$$f"; done) \
	    --doc conformance/TOLERANCES.md --separation $(BUILD)/separation.md --junit $(BUILD)/mutation.xml

# The README and the manuals under docs/ are true: every command of their
# sh blocks that runs offline runs, with the exit status the page promises;
# every C block is built (the adapter from the page's own text, then
# certified; the .npy writer's dumps read by diagnose); their sample
# outputs and counts are what the commands print, and every relative link
# resolves (tests/readme/check_readme.py).
readme: all
	$(Q)/usr/bin/python3 tests/readme/check_readme.py $(BUILD)

# The model zoo against pecert's claims: every model_type of transformers
# v4.57.6 (conformance/inventory.json, from vectors/gen/gen_inventory.py)
# through `certify --config --print`; a mapped config must change pecert's
# answer whenever an encoding field changes, layers that differ must carry
# a warning, and conformance/profiles/INVENTORY.md must be what the script
# writes (`make inventory-table` rewrites it).
inventory: all
	$(Q)/usr/bin/python3 tests/inventory/check_inventory.py $(BUILD)

inventory-table: all
	$(Q)/usr/bin/python3 tests/inventory/check_inventory.py $(BUILD) --write

# Every bundled profile certifies ref and fast, and the table of them in
# docs/certify.md (wherever its markers are, README.md or docs/*.md) is
# what `certify --list-profiles` and `--all-profiles` print
# (`make profiles-table` rewrites it).
profiles: all
	$(Q)/usr/bin/python3 tests/profiles/check_profile_table.py $(BUILD)

profiles-table: all
	$(Q)/usr/bin/python3 tests/profiles/check_profile_table.py $(BUILD) --write

# The HTML report in a real browser: headless Chromium opens a report (ref
# and a mutant) from disk; verdict, matrix and plots must be there, with no
# network request and no script error. Screenshots: build/browser/*.png.
browser: all
	$(Q)sh tests/browser/run.sh $(BUILD)

# ---- main job -------------------------------------------------------------
# Certifies every bundled plugin: ref (the oracle), fast once per ISA
# variant this CPU runs, example, the honest float32 variants, and every
# mutant on both bases (one real bug each; its failures are expected). One JSON per run lands in reports/out/runs/,
# then `pecert report` merges them into reports/out/index.html (one
# self-contained page), results.json and junit.xml. The report's status is
# the job's: it fails if ref or fast fails or a mutant escapes; example's
# failures are shown but never fatal (--allow-fail). Every results file is
# named, so a run that wrote none (a plugin that failed to load) fails it too.
NPROC     ?= $(shell nproc 2>/dev/null || echo 2)
# pecert mutation takes at most 1024 workers (more only wait).
MUTATION_JOBS = $(shell n=$(NPROC); [ "$$n" -gt 1024 ] 2>/dev/null && n=1024; echo $$n)
RUN_DIR   := reports/out/runs
# PECERT_ISA variants of fast this CPU has the instruction sets for.
fast_isa_ok = $(if $(strip $(foreach f,$(FAST_NEEDS_$(1)),$(if $(shell grep -qw $(f) /proc/cpuinfo 2>/dev/null && echo y),,$(f)))),,$(1))
FAST_ISAS  = $(if $(filter fast,$(PLUGIN_NAMES)),scalar $(call fast_isa_ok,avx2) $(call fast_isa_ok,avx512))
# The merged report keeps, of each mutant run, the first few failing cases
# per check and the plots of the checks its catalogue entry names (13.6 MB
# of HTML and 76 MB of JSON otherwise); reports/out/runs/ keeps every run
# whole.
REPORT_MUTANT_FAILURES ?= 3
# The report of the runs in $(RUN_DIR) (run, bench, bench-peers), with a
# Speed section from the JSON of an earlier `make bench` / `make
# bench-peers` when there is one (the shell picks the files that exist).
REPORT_CMD = $(BUILD)/pecert report $(RUN_DIR)/ref.json $(FAST_ISAS:%=$(RUN_DIR)/fast-%.json) $(RUN_DIR)/example.json \
    $(RUN_DIR)/honest/*.json $(RUN_DIR)/mutants/*.json --mutants impls/mutants/catalogue.json --allow-fail example \
    --mutant-failures $(REPORT_MUTANT_FAILURES) \
    $$(for f in reports/out/bench.json reports/out/bench-peers.json; do [ -f $$f ] && printf ' --bench %s' $$f; done) \
    -o reports/out/index.html --json reports/out/results.json --junit reports/out/junit.xml
run: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)rm -rf $(RUN_DIR) && mkdir -p $(RUN_DIR)/mutants $(RUN_DIR)/honest
	$(Q)$(BUILD)/pecert run --impl ref --quiet -j $(NPROC) --json $(RUN_DIR)/ref.json; \
	for isa in $(FAST_ISAS); do \
	    echo "fast PECERT_ISA=$$isa:"; \
	    PECERT_ISA=$$isa $(BUILD)/pecert run --impl fast --quiet -j $(NPROC) --json $(RUN_DIR)/fast-$$isa.json; \
	done; \
	$(BUILD)/pecert run --impl example --quiet -j $(NPROC) --json $(RUN_DIR)/example.json; \
	echo "$(words $(HONEST)) honest float32 variants (must pass)..."; \
	for h in $(HONEST); do echo $$h; done | xargs -P $(NPROC) -I{} sh -c \
	    '$(BUILD)/pecert run --impl {} --quiet --json $(RUN_DIR)/honest/$$(basename {} .so).json >/dev/null'; \
	echo "$(words $(MUTANTS) $(MUTANTS_F32)) mutants on ref and on a float32 base, $(NPROC) at a time (their failures are expected)..."; \
	for m in $(MUTANTS) $(MUTANTS_F32); do echo $$m; done | xargs -P $(NPROC) -I{} sh -c \
	    'case {} in */mutants-f32/*) s=.f32;; *) s=;; esac; \
	     $(BUILD)/pecert run --impl {} --quiet --json $(RUN_DIR)/mutants/$$(basename {} .so)$$s.json >/dev/null'; \
	true
	$(Q)$(REPORT_CMD)
	@echo "open file://$(CURDIR)/reports/out/index.html"

# ---- install --------------------------------------------------------------
# make install [PREFIX=/usr/local] [DESTDIR=]: the binary, the bundled plugins
# (ref, fast, example, the honest variants and the mutants, in their layout:
# a mutant finds its base at ../), the vectors, profiles and mutant
# catalogue pecert reads by default when it runs from PREFIX/bin, the plugin
# header and a pkg-config file (`pkg-config --cflags pecert`).
PREFIX  ?= /usr/local
DESTDIR ?=
INSTALL_ROOT := $(DESTDIR)$(PREFIX)
INSTALL_DATA_DIRS := $(filter-out vectors/gen/,$(sort $(dir $(wildcard vectors/*/*.json))))
install: all
	$(Q)install -d $(INSTALL_ROOT)/bin $(INSTALL_ROOT)/include/pecert $(INSTALL_ROOT)/lib/pkgconfig \
	    $(INSTALL_ROOT)/lib/pecert/impls/honest $(INSTALL_ROOT)/lib/pecert/impls/mutants \
	    $(INSTALL_ROOT)/lib/pecert/impls/mutants-f32 $(INSTALL_ROOT)/share/pecert/conformance/profiles \
	    $(INSTALL_ROOT)/share/pecert/impls/mutants
	$(Q)install -m 755 $(BUILD)/pecert $(INSTALL_ROOT)/bin/pecert
	$(Q)install -m 755 $(BUILD)/pecert-engine $(INSTALL_ROOT)/lib/pecert/pecert-engine
	$(Q)install -m 644 $(BUILD)/engine-filters.bpf $(INSTALL_ROOT)/lib/pecert/engine-filters.bpf
	$(Q)install -d $(INSTALL_ROOT)/lib/pecert/python/pecert
	$(Q)install -m 644 python/pecert/*.py $(INSTALL_ROOT)/lib/pecert/python/pecert/
	$(Q)install -m 755 $(PLUGINS) $(INSTALL_ROOT)/lib/pecert/impls/
	$(Q)install -m 755 $(HONEST) $(INSTALL_ROOT)/lib/pecert/impls/honest/
	$(Q)install -m 755 $(MUTANTS) $(INSTALL_ROOT)/lib/pecert/impls/mutants/
	$(Q)install -m 755 $(MUTANTS_F32) $(INSTALL_ROOT)/lib/pecert/impls/mutants-f32/
	$(Q)install -m 644 include/pecert/plugin.h $(INSTALL_ROOT)/include/pecert/plugin.h
	$(Q)for d in $(INSTALL_DATA_DIRS); do \
	    install -d $(INSTALL_ROOT)/share/pecert/$$d && \
	    install -m 644 $$(ls $$d*.json $$d*.bin.z 2>/dev/null) $(INSTALL_ROOT)/share/pecert/$$d || exit 1; \
	done
	$(Q)install -m 644 conformance/profiles/*.json $(INSTALL_ROOT)/share/pecert/conformance/profiles/
	$(Q)install -m 644 impls/mutants/catalogue.json $(INSTALL_ROOT)/share/pecert/impls/mutants/
	$(Q)v=$$($(BUILD)/pecert --version) && \
	    sed -e 's|@PREFIX@|$(PREFIX)|' -e "s|@VERSION@|$$(echo $$v | cut -d' ' -f2)|" \
	        -e "s|@ABI@|$$(echo $$v | sed 's/.*ABI \([0-9.]*\).*/\1/')|" tools/pecert.pc.in \
	        >$(INSTALL_ROOT)/lib/pkgconfig/pecert.pc
	@echo "installed pecert in $(INSTALL_ROOT) (pkg-config: $(INSTALL_ROOT)/lib/pkgconfig/pecert.pc)"

# ---- benchmarks (never part of `make check`) -------------------------------
# make bench: fast against the machine's measured bandwidth and ref, one run
# (build/pecert bench; ~1-2 minutes here). make bench-peers: the same shapes
# through PyTorch (HF rotate_half, Meta complex multiply) next to fast.
# Either then re-renders reports/out/index.html with its Speed section if
# an earlier `make run` left its runs (their verdict does not fail these).
# Re-render the report with the Speed section after a make run (shell).
RERENDER_SPEED = if [ -f $(RUN_DIR)/ref.json ]; then $(REPORT_CMD) --quiet || [ $$? -eq 1 ] && \
	    echo "open file://$(CURDIR)/reports/out/index.html\#speed"; fi
bench: all
	$(Q)mkdir -p reports/out
	$(Q)$(BUILD)/pecert bench --json reports/out/bench.json
	$(Q)$(RERENDER_SPEED)

bench-peers: all
	$(Q)mkdir -p reports/out
	$(Q)/usr/bin/python3 bench/peers.py --plugin $(BUILD)/impls/fast.so --json reports/out/bench-peers.json
	$(Q)$(RERENDER_SPEED)

# ---- vectors --------------------------------------------------------------
vectors: gen-deps
	@test -n "$(REF)" || { echo "make vectors: set REF=/path/to/transformers checkout (tag v4.57.6)"; exit 2; }
	$(Q)/usr/bin/python3 vectors/gen/gen_rope.py --ref "$(REF)" --out vectors/rope
	@test -n "$(REFSRC)" || { echo "make vectors: set REFSRC=/dir holding the other official checkouts (vectors/gen/README.md)"; exit 2; }
	$(Q)/usr/bin/python3 vectors/gen/gen_alibi.py --transformers "$(REF)" \
	    --alibi "$(REFSRC)/attention_with_linear_biases" --llm-foundry "$(REFSRC)/llm-foundry" --out vectors/alibi
	$(Q)/usr/bin/python3 vectors/gen/gen_t5.py --transformers "$(REF)" --out vectors/t5
	$(Q)/usr/bin/python3 vectors/gen/gen_sinusoidal.py --transformers "$(REF)" \
	    --tensor2tensor "$(REFSRC)/tensor2tensor" --fairseq "$(REFSRC)/fairseq" --out vectors/sinusoidal
	$(Q)/usr/bin/python3 vectors/gen/gen_learned.py --transformers "$(REF)" \
	    --fairseq "$(REFSRC)/fairseq" --out vectors/learned
	$(Q)/usr/bin/python3 vectors/gen/gen_sincos2d.py --mae "$(REFSRC)/mae" --out vectors/sincos2d
	$(Q)/usr/bin/python3 vectors/gen/gen_sincos2d_rtdetr.py --transformers "$(REF)" --out vectors/sincos2d
	$(Q)/usr/bin/python3 vectors/gen/gen_swin.py --swin "$(REFSRC)/Swin-Transformer" --out vectors/swin
	$(Q)/usr/bin/python3 vectors/gen/gen_shaw.py --tensor2tensor "$(REFSRC)/tensor2tensor" --out vectors/shaw
	$(Q)/usr/bin/python3 vectors/gen/gen_txl.py --txl "$(REFSRC)/transformer-xl" --out vectors/txl
	$(Q)/usr/bin/python3 vectors/gen/gen_mrope.py --transformers "$(REF)" --out vectors/mrope
	$(Q)/usr/bin/python3 vectors/gen/gen_rope2d.py --transformers "$(REF)" --out vectors/rope2d
	$(Q)/usr/bin/python3 vectors/gen/gen_posinterp.py --transformers "$(REF)" --dinov2 "$(REFSRC)/dinov2" \
	    --out vectors/posinterp
	$(Q)/usr/bin/python3 vectors/gen/gen_cope.py --ram "$(REFSRC)/RAM" --out vectors/cope
	$(Q)/usr/bin/python3 vectors/gen/gen_peg.py --twins "$(REFSRC)/Twins" --out vectors/peg
	$(Q)/usr/bin/python3 vectors/gen/gen_sine2d.py --transformers "$(REF)" --out vectors/sine2d
	$(Q)/usr/bin/python3 vectors/gen/gen_relpos2d.py --transformers "$(REF)" \
	    --segment-anything "$(REFSRC)/segment-anything" --out vectors/relpos2d
	$(Q)/usr/bin/python3 vectors/gen/gen_deberta.py --transformers "$(REF)" --out vectors/deberta
	$(Q)/usr/bin/python3 vectors/gen/gen_profiles.py --ref "$(REF)" --profiles conformance/profiles --out vectors/profiles
	$(Q)/usr/bin/python3 vectors/gen/gen_inventory.py --ref "$(REF)" --out conformance/inventory.json
	$(Q)/usr/bin/python3 vectors/gen/gen_profiles.py --ref "$(REF)" --inventory conformance/inventory.json \
	    --model-types $(MAPPING_TYPES) --out vectors/mappings

# The mappings no bundled profile holds (RoPE, sinusoidal, DETR and RT-DETR,
# learned and fixed tables, towers): their default config's outputs, one file
# each in vectors/mappings/, which `make inventory` holds certify's mappings
# to. `make vectors` rewrites every bundled file; a new model type's first
# file comes from gen_profiles.py --inventory ... --model-types TYPE.
comma := ,
empty :=
space := $(empty) $(empty)
MAPPING_TYPES := $(subst $(space),$(comma),$(sort $(basename $(notdir $(wildcard vectors/mappings/*.json)))))

# ---- sanitizers -----------------------------------------------------------
asan: deps
	$(Q)$(MAKE) --no-print-directory BUILD=build/asan \
	    SANFLAGS="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" \
	    all build/asan/unit-tests
	$(Q)ASAN_OPTIONS=detect_leaks=1 CK_TIMEOUT_MULTIPLIER=4 $(MAKE) --no-print-directory BUILD=build/asan \
	    SANFLAGS="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" \
	    unit conformance
	@echo "*** pecert asan OK ***"

# ---- fuzzing --------------------------------------------------------------
# libFuzzer targets over the inputs a user hands pecert: a vector manifest,
# a config.json, a results file, a tensor dump (.npy). The library is rebuilt with clang,
# ASan+UBSan and coverage (warnings as errors stay gcc's job). A crash
# leaves its input in build/fuzz/crash-*; the run fails.
FUZZ_DIR     := build/fuzz
FUZZ_TARGETS := vectors config results npy
FUZZ_CFLAGS  := -std=c17 -O1 -g -fno-omit-frame-pointer -ffp-contract=off -D_POSIX_C_SOURCE=200809L \
                -D_DEFAULT_SOURCE $(INCLUDE_DIRS) -DPECERT_SOURCE_DIR=\"$(CURDIR)\" \
                -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined
FUZZ_OBJ     := $(HARNESS_SRC:%.c=$(FUZZ_DIR)/obj/%.o)
FUZZ_RUNS    ?= 1000000
FUZZ_SMOKE_S ?= 60

# Kept between runs (make would delete them as intermediates of fuzz_%).
.SECONDARY: $(FUZZ_OBJ)

$(FUZZ_DIR)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(Q)clang $(FUZZ_CFLAGS) $(PC_CFLAGS) -c $< -o $@

$(FUZZ_DIR)/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_OBJ)
	$(Q)clang $(FUZZ_CFLAGS) $(PC_CFLAGS) -fsanitize=fuzzer $^ -o $@ $(LDLIBS_ALL)

# Seeds: the small bundled manifests, the config.json, dump and results
# seeds (hostile ones among them: a forged pass, a shard count of 0,
# duplicate tensor names), and the results of a short ref run (generated:
# they name this machine).
$(FUZZ_DIR)/seeds: all
	$(Q)rm -rf $@ && mkdir -p $@/vectors $@/config $@/results $@/npy
	$(Q)cp vectors/profiles/t5-base.json vectors/profiles/bloom.json vectors/profiles/gpt2.json \
	    vectors/profiles/llama-2-7b.json vectors/t5/buckets.json vectors/alibi/slopes_paper.json $@/vectors/
	$(Q)cp tests/fuzz/seeds/config/*.json $@/config/
	$(Q)cp tests/fuzz/seeds/npy/*.npy tests/fuzz/seeds/npy/*.safetensors $@/npy/
	$(Q)cp tests/fuzz/seeds/results/*.json $@/results/
	$(Q)$(BUILD)/pecert run --impl ref --filter 'rope.freq.golden,rope.inverse,t5.*' --no-timings \
	    --json $@/results/ref.json >/dev/null
	$(Q)$(BUILD)/pecert run --impl $(BUILD)/impls/mutants/pairing_swapped.so --filter 'rope.apply.golden,rope.norm_*' \
	    --no-timings --json $@/results/mutant.json >/dev/null || true

# One target: $(1) its name, $(2) the libFuzzer limit (-runs=N or -max_total_time=S).
fuzz_run = mkdir -p $(FUZZ_DIR)/corpus/$(1) && cp -n $(FUZZ_DIR)/seeds/$(1)/* $(FUZZ_DIR)/corpus/$(1)/ && \
    $(FUZZ_DIR)/fuzz_$(1) $(2) -max_len=65536 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix=$(FUZZ_DIR)/crash-$(1)- $(FUZZ_DIR)/corpus/$(1) 2>$(FUZZ_DIR)/$(1).log || \
    { tail -40 $(FUZZ_DIR)/$(1).log; echo "fuzz $(1): FAILED (input in $(FUZZ_DIR)/crash-$(1)-*)"; exit 1; }; \
    echo "fuzz $(1): $$(grep -o 'stat::number_of_executed_units: *[0-9]*' $(FUZZ_DIR)/$(1).log | grep -o '[0-9]*$$') \
    executions, 0 crashes ($$(grep -o 'stat::average_exec_per_sec: *[0-9]*' $(FUZZ_DIR)/$(1).log | grep -o '[0-9]*$$')/s)"

# The targets are built, then run, $(NPROC) at a time (each fuzzer is one
# process on one core), each for its full FUZZ_RUNS or FUZZ_SMOKE_S.
fuzz: deps all
	$(Q)$(MAKE) --no-print-directory -j$(NPROC) $(FUZZ_TARGETS:%=$(FUZZ_DIR)/fuzz_%) $(FUZZ_DIR)/seeds
	$(Q)$(MAKE) --no-print-directory -j$(NPROC) $(FUZZ_TARGETS:%=fuzz-run-%)

fuzz-smoke: all
	$(Q)$(MAKE) --no-print-directory -j$(NPROC) $(FUZZ_TARGETS:%=$(FUZZ_DIR)/fuzz_%) $(FUZZ_DIR)/seeds
	$(Q)$(MAKE) --no-print-directory -j$(NPROC) $(FUZZ_TARGETS:%=fuzz-smoke-run-%)

fuzz-run-%:
	$(Q)$(call fuzz_run,$*,-runs=$(FUZZ_RUNS))

fuzz-smoke-run-%:
	$(Q)$(call fuzz_run,$*,-max_total_time=$(FUZZ_SMOKE_S))

clean:
	rm -rf $(BUILD)

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
