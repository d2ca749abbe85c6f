# terminal.gp: the output of every figure, chosen by the name of outfile.
#
#   call 'figures/terminal.gp' 'WIDTH_CM' 'HEIGHT_CM'
#
# opens outfile for a figure WIDTH_CM x HEIGHT_CM centimetres, with the
# book's font: pdfcairo for the PDF book (outfile ending in .pdf), gnuplot's
# svg terminal for the HTML page (outfile ending in .svg). A font size
# written in a script (",8") is in points in both. pdfcairo needs fontscale
# 0.75 for that (measured in the PDF: ",8" then sets 8 pt type; its default,
# 0.5, gives two thirds of it). An SVG is sized in CSS pixels, 96 to the
# inch, and gnuplot's svg terminal writes a size as that many pixels, so
# its type is scaled from points to pixels, 96/72: the browser shows the
# figure as the page does, type included. Its lines are drawn 0.7 as wide,
# and its points, about 0.6 of the size of pdfcairo's, are scaled up when the
# SVG is written (book/book.mk), so that both look alike.

w = real(ARG1)
h = real(ARG2)
if (strlen(outfile) > 4 && outfile[strlen(outfile) - 3:] eq '.svg') {
  eval sprintf("set terminal svg size %d,%d font 'DejaVu Sans,9' fontscale %g linewidth 0.7 background rgb 'white'", \
               int(w * 96 / 2.54 + 0.5), int(h * 96 / 2.54 + 0.5), 96.0 / 72)
  # the svg terminal underestimates DejaVu's width: a key's text, set
  # flush right against its line, would run out of the key to the left
  set key width 1.5
} else {
  eval sprintf("set terminal pdfcairo size %gcm,%gcm font 'DejaVu Sans,9' fontscale 0.75", w, h)
}
set output outfile
