# make fuzz: libFuzzer targets (tests/fuzz/fuzz_NAME.c) for what comes from
# outside: a review's cleaning and tokenizing (tokenize), the IMDb reviews
# JSON (imdb), GloVe text (glove), Punkt's parameters in both forms (punkt),
# the GloVe converter's JSON (convert), R's databases of Jane Austen's
# novels (rdb), the programs' command lines (options, and chapter 8's:
# options8), chapter 6's sentences (sentences) and whether a run's --data
# folder spares its inputs (outputs, on trees of files and links it builds
# in a temporary folder); options, options8 and sentences #include the
# chapter programs' sources. Built with clang, the library included, under
# $(BUILD)/fuzz; each runs FUZZ_SECONDS from a copy of its seed corpus
# (tests/fuzz/corpus/NAME, left untouched: what a run finds grows the copy
# under $(BUILD)/fuzz/corpus), with the dictionary tests/fuzz/NAME.dict
# where there is one (words the fuzzer splices in: option names, bounds).
# Any crash, leak, hang or sanitizer report fails the run and says where the
# input that caused it was saved.
#
#   make fuzz                       every target, 30 s each
#   make fuzz FUZZ_SECONDS=600      longer
#   make fuzz FUZZ_TARGETS=glove    one target

FUZZ_SECONDS ?= 30
FUZZ_TARGETS ?= tokenize imdb glove punkt convert rdb options options8 sentences outputs
FUZZ_PKGS := $(BUILD_PKGS) clang:clang libclang-rt-14-dev
FUZZ_CC ?= clang
FUZZ_BUILD := $(BUILD)/fuzz
FUZZ_FLAGS := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all
# The fuzz targets run one thread: without -fopenmp, which clang would link
# to its own OpenMP runtime (libomp), a package the project does not need.
FUZZ_CFLAGS := $(filter-out -fopenmp,$(STD_CFLAGS))
FUZZ_OBJS := $(patsubst src/%.c,$(FUZZ_BUILD)/obj/%.o,$(LIB_SRCS))

.PHONY: fuzz fuzz-build setup-fuzz
setup-fuzz:
	@sh tests/setup.sh $(FUZZ_PKGS)

# The library with the same sanitizers and libFuzzer's coverage hooks.
$(FUZZ_BUILD)/obj/%.o: src/%.c $(LIB_HDRS) | setup-fuzz
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link -c $< -o $@

$(FUZZ_BUILD)/libattn.a: $(FUZZ_OBJS)
	rm -f $@
	ar rcs $@ $^

# -Wno-unused-function: a target that #includes a program's source uses
# only some of its static functions.
$(FUZZ_BUILD)/fuzz_%: tests/fuzz/fuzz_%.c $(wildcard tests/fuzz/*.h) $(FUZZ_BUILD)/libattn.a $(PROGRAM_PARTS) $(CHAPTER_SRCS)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -Wno-unused-function -D_POSIX_C_SOURCE=200809L $(FUZZ_FLAGS) -fsanitize=fuzzer $< $(FUZZ_BUILD)/libattn.a $(LIBS) -o $@

fuzz-build: setup-fuzz
	@$(MAKE) --no-print-directory -j$(BUILD_JOBS) $(FUZZ_TARGETS:%=$(FUZZ_BUILD)/fuzz_%)

# The targets BUILD_JOBS at a time (libFuzzer uses one core each), each
# with its own corpus, log and artifacts. -timeout: an input that takes
# over 10 s counts as a hang; -rss_limit_mb: as memory gone wild.
FUZZ_RUNS := $(FUZZ_TARGETS:%=fuzz-run-%)
.PHONY: $(FUZZ_RUNS)
fuzz: fuzz-build
	@$(MAKE) --no-print-directory -j$(BUILD_JOBS) $(FUZZ_RUNS)

$(FUZZ_RUNS): fuzz-run-%:
	@t=$*; corpus=$(FUZZ_BUILD)/corpus/$$t; arts=$(FUZZ_BUILD)/artifacts/$$t; \
	  rm -rf $$corpus; mkdir -p $$corpus $$arts; cp tests/fuzz/corpus/$$t/* $$corpus/; \
	  echo "== fuzz $$t ($(FUZZ_SECONDS) s)"; \
	  dict=; [ -f tests/fuzz/$$t.dict ] && dict=-dict=tests/fuzz/$$t.dict; \
	  if $(FUZZ_BUILD)/fuzz_$$t $$dict -max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=2048 \
	       -print_final_stats=1 -artifact_prefix=$$arts/ $$corpus > $(FUZZ_BUILD)/$$t.log 2>&1; then \
	    grep -E "^stat::number_of_executed_units" $(FUZZ_BUILD)/$$t.log | sed "s/^stat::number_of_executed_units: */fuzz $$t: executions: /"; \
	    echo "fuzz $$t: corpus: $$(ls $$corpus | wc -l) inputs"; \
	  else \
	    tail -n 60 $(FUZZ_BUILD)/$$t.log; \
	    echo "fuzz: $$t failed; the input is saved as:" >&2; \
	    grep -ho "written to .*" $(FUZZ_BUILD)/$$t.log | sed 's/^written to /  /' >&2; \
	    echo "fuzz: rerun it with $(FUZZ_BUILD)/fuzz_$$t FILE; the log is $(FUZZ_BUILD)/$$t.log" >&2; \
	    exit 1; \
	  fi
