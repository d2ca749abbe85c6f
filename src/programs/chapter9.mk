# chapter9.mk: the data of chapter 9, Jane Austen's six novels, from
# Debian's package r-cran-janeaustenr (src/text/rdb.h reads them; no R is
# needed).
#
#   data/janeaustenr/data/Rdata.rdb   the novels: R's lazy-load database
#   data/janeaustenr/data/Rdata.rdx   R's index of it (names and offsets)
#   data/janeaustenr/DESCRIPTION      the R package's description (licence MIT)
#   data/janeaustenr/copyright        Debian's copyright file
#
# `apt-get download` fetches the package from the machine's Debian mirror
# as any user, no root needed, and apt checks it against the package lists;
# we check it once more against the sha256 pinned here (what `apt-cache
# show r-cran-janeaustenr` lists for 1.0.0-1). `dpkg-deb -x` unpacks it in
# a temporary directory under data/, and only the files above move into
# place, with one rename: an interrupted fetch leaves nothing half-written
# under data/janeaustenr, and the next fetch removes its temporary
# directory. The rule is a no-op once Rdata.rdb exists.
#
# Where apt-get download cannot fetch it (another distribution, no
# network), download the .deb by hand and give it to make:
#   make data AUSTEN_DEB_FILE=path/to/r-cran-janeaustenr_1.0.0-1_all.deb
# it is held to the same sha256.

AUSTEN_PKG     := r-cran-janeaustenr
AUSTEN_VERSION := 1.0.0-1
AUSTEN_SHA256  := df6bddf211906d1ff404f8ff662c21b34e6660e7f54a311084e749050c019c95
AUSTEN_RDB     := data/janeaustenr/data/Rdata.rdb
AUSTEN_DEB_FILE ?=

# tests/test_rdb.c's counts of the real novels need it (make test fetches
# DATA_TARGETS when it can).
DATA_TARGETS += $(AUSTEN_RDB)

# Interrupted just after the last rename, make would delete the new
# Rdata.rdb as a half-made target, and leave the rest of the package
# without it: the rule replaces the folder whole or not at all.
.PRECIOUS: $(AUSTEN_RDB)

# A fetch killed outright (SIGKILL, a power cut) leaves its temporary
# directory behind: every make data removes what earlier fetches left, even
# when Rdata.rdb is there and the fetch itself is not run. (make data runs
# under data/.lock, so no fetch is under way meanwhile.)
.PHONY: austen-leftovers
austen-leftovers:
	@rm -rf data/.fetch-janeaustenr.*

# The temporary directory is removed on the way out, with the signals
# ignored meanwhile (rm inherits that): a Ctrl-C that comes while it runs
# cannot cut it short.
$(AUSTEN_RDB): | austen-leftovers
	@mkdir -p data
	@set -e; \
	tmp=$$(mktemp -d data/.fetch-janeaustenr.XXXXXX); \
	trap 'trap "" INT TERM HUP; rm -rf "$$tmp"' EXIT; trap 'exit 1' INT TERM HUP; \
	deb="$(AUSTEN_PKG)_$(AUSTEN_VERSION)_all.deb"; from="$$deb (apt-get download)"; \
	if [ -n "$(AUSTEN_DEB_FILE)" ]; then \
	  echo "data: $(AUSTEN_PKG) $(AUSTEN_VERSION) from $(AUSTEN_DEB_FILE)"; \
	  cp "$(AUSTEN_DEB_FILE)" "$$tmp/$$deb"; from="$(AUSTEN_DEB_FILE)"; \
	else \
	  command -v apt-get >/dev/null || { echo "data: no apt-get to fetch $(AUSTEN_PKG) (Debian's package of Jane Austen's novels); download $$deb by hand and run make data AUSTEN_DEB_FILE=path/to/it" >&2; exit 1; }; \
	  echo "data: fetching $(AUSTEN_PKG) $(AUSTEN_VERSION) (1.6 MB) with apt-get download ..."; \
	  (cd "$$tmp" && apt-get download -q "$(AUSTEN_PKG)=$(AUSTEN_VERSION)") > "$$tmp/apt.log" 2>&1 || \
	    { cat "$$tmp/apt.log" >&2; echo "data: apt-get download $(AUSTEN_PKG)=$(AUSTEN_VERSION) failed (no network, or the package lists lack it: apt-get update refreshes them)" >&2; exit 1; }; \
	fi; \
	sum=$$(sha256sum "$$tmp/$$deb" | cut -d' ' -f1); \
	if [ "$$sum" != "$(AUSTEN_SHA256)" ]; then \
	  echo "data: $$from: sha256 $$sum, expected $(AUSTEN_SHA256): a damaged or different package, refused" >&2; exit 1; \
	fi; \
	command -v dpkg-deb >/dev/null || { echo "data: no dpkg-deb (Debian's dpkg) to unpack $$deb" >&2; exit 1; }; \
	dpkg-deb -x "$$tmp/$$deb" "$$tmp/x"; \
	pkg="$$tmp/x/usr/lib/R/site-library/janeaustenr"; \
	mkdir -p "$$tmp/janeaustenr/data"; \
	mv "$$pkg/data/Rdata.rdb" "$$pkg/data/Rdata.rdx" "$$tmp/janeaustenr/data/"; \
	mv "$$pkg/DESCRIPTION" "$$tmp/x/usr/share/doc/$(AUSTEN_PKG)/copyright" "$$tmp/janeaustenr/"; \
	if [ -e data/janeaustenr ]; then mv data/janeaustenr "$$tmp/old"; fi; \
	mv "$$tmp/janeaustenr" data/janeaustenr; \
	echo "data: $(AUSTEN_PKG) unpacked in data/janeaustenr"

# tests/bench/bench_gpt.c times chapter 9's training step and writes the
# starting model and the training ids that the PyTorch twin starts from
# (tests/reference/chapter9_losses_golden.py runs it). Built by make all.
#
# make bench-gpt: its --bench, C against the PyTorch twin in one run, the
# rounds taking turns (tests/reference/bench_torch9.py, on 1 and 2 threads):
# [1] the training step's time, the ratio and each side's share of the
# measured peak of its threads, [2] generation's tokens a second at
# contexts 64 to 512, with the cache and without. Its temporary model files
# go into $(BUILD) and are removed; its output is kept in
# $(BUILD)/out/bench-gpt.txt. Without PyTorch, the C side alone. About three
# minutes on two busy cores; make test never runs it.
BENCH_GPT := $(BUILD)/bench/bench_gpt
all: $(BENCH_GPT)
$(BENCH_GPT): tests/bench/bench_gpt.c tests/bench/bench.h $(BUILD)/libattn.a $(LIB_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(STD_CFLAGS) $(CFLAGS) $(LDFLAGS) $< $(BUILD)/libattn.a $(LIBS) $(LDLIBS) -o $@

.PHONY: bench-gpt
BENCH_TARGETS += bench-gpt
bench-gpt: $(BENCH_GPT) $(AUSTEN_RDB) | $(BUILD)/out
	@sh tests/setup.sh $(BENCH8_PKGS) || echo "bench: without $(BENCH8_PKGS), PyTorch is left out"
	@rm -f $(BUILD)/out/bench-gpt.txt
	@if $(PYTHON) -c "import torch" 2>/dev/null; then \
	  echo "bench: chapter 9's GPT, PyTorch (tests/reference/bench_torch9.py)"; \
	  echo "bench: and C ($(BENCH_GPT)) in turn"; \
	  $(BENCH_GPT) --bench --work $(BUILD) \
	    --torch "$(PYTHON) tests/reference/bench_torch9.py" > $(BUILD)/out/bench-gpt.txt.tmp; \
	else \
	  echo "bench: no PyTorch for $(PYTHON) (Debian's python3-torch): the C side only"; \
	  $(BENCH_GPT) --bench --work $(BUILD) > $(BUILD)/out/bench-gpt.txt.tmp; \
	fi
	@mv $(BUILD)/out/bench-gpt.txt.tmp $(BUILD)/out/bench-gpt.txt
	@cat $(BUILD)/out/bench-gpt.txt

# Timed after chapter 10's when both are asked for (as make bench asks),
# never beside it (make -j).
ifneq ($(filter bench-chapter10,$(MAKECMDGOALS)),)
bench-gpt: | bench-chapter10
endif

# The book runs ./chapter9 with its defaults: 1,500 steps of 32 windows
# (about three minutes on two idle cores), gzip and xz, the whole held-out
# novel scored, samples. The tests run two steps, without the
# compressors, each held-out loss of [P9.4] on 2 batches rather than 20,
# scoring the first 2,000 held-out characters: the same code, a few
# seconds (tests/test_programs.c runs it to the end four times, and make
# sanitize four times more under the sanitizers, where the 20 batches at
# each of four steps shown took over 90 s a run).
BOOK_ARGS_chapter9 =
CHECK_ARGS_chapter9 = --steps 2 --no-compressors --eval-batches 2 --eval-chars 2000 --tokens 40
# `make chapter9` fetches the novels as well (see the Makefile's chapter% rule).
DATA_chapter9 = yes
