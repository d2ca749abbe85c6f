# book.mk: the book's own rules, included by the Makefile after its book
# section.
#
#   make book        (the Makefile) Pandoc writes $(BOOK_TEX); book/latex.sh
#                    typesets it and runs book/check.sh: the PDF is written
#                    only when no listing line runs off the page, no text
#                    line is overfull, every reference is defined and every
#                    font is embedded
#   make html        the same book as one self-contained HTML page,
#                    $(BOOK_HTML): figures as SVG, mathematics as MathML
#   make book-check  the PDF's checks again, on the last build

BOOK_TEX  := $(BUILD)/book/latex/attention-in-c.tex
BOOK_HTML := $(BUILD)/book/attention-in-c.html
SVG_FIGURES := $(patsubst figures/%.gp,$(BUILD)/figures/%.svg,$(FIGURE_SCRIPTS))

.PHONY: html book-check

# book/quote.lua is held to its promises first (book/quote-check.sh): it
# fails on a marker or file that is not there, on a name two files share,
# and on a marker in any folder under src/ that the book never quotes.
QUOTE_CHECKED := $(BUILD)/book/quote-checked
$(QUOTE_CHECKED): book/quote.lua book/quote-check.sh | $(BUILD)/book
	sh book/quote-check.sh $(BUILD)/book/quote-check
	@touch $@
$(BOOK_PDF) $(BOOK_HTML): $(QUOTE_CHECKED)

# The exercises name only files, code and options that exist
# (book/exercise-check.sh, which asks the programs for their --help), and
# every shell command they print runs as printed, in a scratch copy of the
# project (book/exercise-run.sh: its own cases first, then the chapters').
EXERCISES_CHECKED := $(BUILD)/book/exercises-checked
$(EXERCISES_CHECKED): book/exercise-check.sh book/exercise-run.sh book/exercise-commands.lua \
    $(CHAPTER_MDS) $(CHAPTERS) $(wildcard tests/reference/*.py) | $(BUILD)/book
	sh book/exercise-check.sh $(CHAPTER_MDS)
	sh book/exercise-run.sh --self-test
	sh book/exercise-run.sh $(CHAPTER_MDS)
	@touch $@
# The commands run after chapter 7's training, as the twins do, and before
# the timed outputs (chapter 1's timing, then the benchmarks), never beside
# them.
$(EXERCISES_CHECKED): | $(BUILD)/out/chapter7.txt
$(BUILD)/out/chapter1-timing.txt: | $(EXERCISES_CHECKED)
$(BOOK_PDF) $(BOOK_HTML): $(EXERCISES_CHECKED)

$(BOOK_PDF): | $(BUILD)/book/latex
$(BUILD)/book/latex:
	mkdir -p $@

# Every figure script opens its output through figures/terminal.gp.
$(FIGURES) $(SVG_FIGURES): figures/terminal.gp

# Every attention matrix in the book's one style: a figure script that draws
# a matrix `with image` itself, instead of through figures/heatmap.gp, stops
# the build.
$(FIGURES) $(SVG_FIGURES): | $(BUILD)/figures/style-checked
$(BUILD)/figures/style-checked: $(FIGURE_SCRIPTS) | $(BUILD)/figures
	@bad=$$(grep -l -E '(^|[^[:alnum:]_])w(i(th?)?)?[[:space:]]+image' $(FIGURE_SCRIPTS)); \
	if [ -n "$$bad" ]; then \
	  echo "figures: $$bad draw a matrix in a style of their own: call 'figures/heatmap.gp' FILE TITLE FORMAT" >&2; exit 1; \
	fi
	@touch $@

# The same scripts draw the HTML page's figures: terminal.gp picks gnuplot's
# svg terminal for an outfile ending in .svg; its points (each a scaled
# symbol) are drawn 1.5 times as large, as pdfcairo draws them. A script
# that sets its own terminal would write something else under that name:
# stop there.
$(BUILD)/figures/%.svg: figures/%.gp figures/heatmap.gp $(OUTPUTS) | $(BUILD)/figures
	gnuplot -e "datadir='$(BUILD)/data'; outfile='$@.tmp.svg'" $<
	@grep -q '<svg' $@.tmp.svg || { echo "html: $< did not write an SVG: open the output with call 'figures/terminal.gp' 'WIDTH_CM' 'HEIGHT_CM'" >&2; rm -f $@.tmp.svg; exit 1; }
	perl -pi -e 's/ scale\(([0-9.]+)\)/sprintf(" scale(%.2f)", $$1 * 1.5)/ge' $@.tmp.svg
	mv $@.tmp.svg $@

html: setup-book
	@$(MAKE) --no-print-directory data
	@$(MAKE) --no-print-directory $(BOOK_HTML)

# The filters are the PDF's: crossref.lua numbers the figures and headings
# as LaTeX does, quote.lua quotes the code and the output, citeproc the works.
# Pandoc's warnings (a formula MathML cannot show, a citation not found, a
# resource it cannot embed) fail the build. In a formula set in the line,
# brackets keep the text's size: Pandoc marks each pair stretchy, and
# Chromium then draws (1 + 2e^d) with brackets as tall as the superscript
# reaches, wide apart.
$(BOOK_HTML): $(CHAPTER_MDS) $(OUTPUTS) $(BOOK_OUTPUTS) $(SVG_FIGURES) $(wildcard book/*) $(LIB_SRCS) $(LIB_HDRS) $(CHAPTER_SRCS) $(PROGRAM_PARTS) | $(BUILD)/book
	pandoc book/metadata.yaml $(CHAPTER_MDS) \
	  --lua-filter=book/crossref.lua --lua-filter=book/quote.lua --lua-filter=book/aside.lua --lua-filter=book/index.lua --citeproc \
	  --metadata=source-dir:src --metadata=output-dir:$(BUILD)/out \
	  --resource-path=$(BUILD)/figures \
	  --number-sections --toc --toc-depth=2 --highlight-style=tango \
	  --mathml --self-contained --css=book/book.css --include-after-body=book/toc-follow.html \
	  --fail-if-warnings \
	  --standalone -t html5 -o $@.tmp
	perl -0pi -e 's{(<math display="inline".*?</math>)}{ (my $$m = $$1) =~ s/stretchy="true"/stretchy="false"/g; $$m }gse' $@.tmp
	mv $@.tmp $@
	@echo "html: $@"

book-check:
	sh book/check.sh log $(BOOK_TEX:.tex=.log) $(BOOK_TEX)
	sh book/check.sh fonts $(BOOK_PDF)

# make html-check: the HTML page opened in headless Chromium (Debian's
# chromium, installed here when missing): it must load with every figure
# displayed and no error on its console (book/html-check.sh).
.PHONY: html-check
html-check: html
	@sh tests/setup.sh chromium:chromium
	sh book/html-check.sh $(BOOK_HTML)

# The TikZ diagrams of diagrams/, as PDF and as SVG.
include book/diagrams.mk
