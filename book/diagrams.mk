# diagrams.mk: the book's diagrams, drawn with TikZ from diagrams/NN-name.tex
# (each a standalone picture that inputs diagrams/style.tex), included by
# book/book.mk.
#
#   PDF book   pdflatex writes $(BUILD)/figures/NN-name.pdf
#   HTML book  latex writes a DVI with PGF's dvisvgm driver, and dvisvgm
#              turns it into $(BUILD)/figures/NN-name.svg, every glyph a
#              path (--no-fonts), so the page needs no font of its own
#
# A chapter shows one as any figure, ![Caption.](NN-name.pdf){#fig:name};
# book/crossref.lua swaps .pdf for .svg in the HTML page. A diagram may not
# share its name with a gnuplot script of figures/: both would write the
# same file, and none may be wider than the text (160 mm, 455 pt), so
# that the PDF shows it at its own size, its type at 9 and 10 pt.

DIAGRAM_SRCS := $(sort $(wildcard diagrams/[0-9]*.tex))
DIAGRAM_NAMES := $(patsubst diagrams/%.tex,%,$(DIAGRAM_SRCS))
DIAGRAMS := $(DIAGRAM_NAMES:%=$(BUILD)/figures/%.pdf)
SVG_DIAGRAMS := $(DIAGRAM_NAMES:%=$(BUILD)/figures/%.svg)
DIAGRAM_TMP := $(BUILD)/diagrams

ifneq ($(filter $(DIAGRAM_NAMES),$(patsubst figures/%.gp,%,$(FIGURE_SCRIPTS))),)
$(error diagrams: $(filter $(DIAGRAM_NAMES),$(patsubst figures/%.gp,%,$(FIGURE_SCRIPTS))) named both in diagrams/ and in figures/)
endif

.PHONY: diagrams
diagrams: setup-book $(DIAGRAMS) $(SVG_DIAGRAMS)

$(BOOK_PDF): $(DIAGRAMS)
$(BOOK_HTML): $(SVG_DIAGRAMS)

# TeX's messages go to the log; on an error its last lines are shown.
DIAGRAM_TEX = TEXINPUTS=diagrams: $(1) -jobname=$* -interaction=nonstopmode -halt-on-error \
  -output-directory=$(DIAGRAM_TMP)/$(2) $(3) >/dev/null \
  || { tail -n 20 $(DIAGRAM_TMP)/$(2)/$*.log >&2; exit 1; }

$(DIAGRAMS): $(BUILD)/figures/%.pdf: diagrams/%.tex diagrams/style.tex book/diagrams.mk | $(BUILD)/figures
	@mkdir -p $(DIAGRAM_TMP)/pdf
	$(call DIAGRAM_TEX,pdflatex,pdf,$<)
	@sh tests/setup.sh poppler-utils:pdfinfo
	@w=$$(pdfinfo $(DIAGRAM_TMP)/pdf/$*.pdf | awk '/^Page size/ { print $$3 }'); \
	if awk -v w="$$w" 'BEGIN { exit !(w > 455.24) }'; then \
	  echo "diagrams: $< is $$w pt wide, more than the text's 455 pt" >&2; exit 1; fi
	cp $(DIAGRAM_TMP)/pdf/$*.pdf $@

$(SVG_DIAGRAMS): $(BUILD)/figures/%.svg: diagrams/%.tex diagrams/style.tex book/diagrams.mk | $(BUILD)/figures
	@mkdir -p $(DIAGRAM_TMP)/svg
	$(call DIAGRAM_TEX,latex,svg,'\def\pgfsysdriver{pgfsys-dvisvgm.def}\input{$<}')
	dvisvgm --no-fonts --bbox=1pt --verbosity=1 -o $@.tmp.svg $(DIAGRAM_TMP)/svg/$*.dvi
	mv $@.tmp.svg $@
