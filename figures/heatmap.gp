# heatmap.gp: the one style of every attention matrix in the book.
#
#   call 'figures/heatmap.gp' 'FILE' 'TITLE' 'FORMAT' ['LO:HI']
#
# draws FILE, written by a chapter program's write_heatmap() (a header row
# of key labels, then one row per query: its label and its values), as one
# panel: queries down the side, keys across the bottom, each cell printed
# with FORMAT (e.g. '%.2f'), white on dark cells and black on light ones.
# A weight that is exactly zero, as a masked one is, is left blank, so that
# it is never confused with a small weight printed as 0.00. The colours run
# from LO to HI; without them, from the smallest value in FILE to the
# largest.

file = ARG1
stats file matrix rowheaders columnheaders using 3 nooutput
if (ARGC >= 4 && strlen(ARG4) > 0) {
  colon = strstrt(ARG4, ':')
  lo = real(ARG4[1:colon - 1])
  hi = real(ARG4[colon + 1:])
} else {
  lo = STATS_min
  hi = STATS_max
}
if (hi == lo) { hi = lo + 1 }

set title ARG2 font ",10"
set xlabel "Keys" font ",9"
set ylabel "Queries" font ",9"
# keys_angle, when the caller sets it: the angle of the key labels (90 for
# a long row of keys, whose labels would run into each other at 45)
set xtics out nomirror rotate by (exists("keys_angle") ? keys_angle : 45) right font ",8"
set ytics out nomirror font ",8"
set tics scale 0
set yrange [:] reverse
set size ratio -1
set cbrange [lo:hi]
set cbtics font ",7"
set format cb '%g'
set palette defined (0 "#f7fbff", 0.25 "#c6dbef", 0.5 "#6baed6", 0.75 "#2171b5", 1 "#08306b")
unset key
ink(v) = ((v - lo) / (hi - lo) > 0.55) ? 0xffffff : 0x000000
label(v) = (v == 0) ? "" : sprintf(ARG3, v)

# In an SVG the matrix is drawn as rectangles (pixels): a browser would
# smooth a bitmap's cells into one another.
cells = (GPVAL_TERM eq 'svg') ? 'image pixels' : 'image'
plot file matrix rowheaders columnheaders using 1:2:3 with @cells, \
     file matrix rowheaders columnheaders using 1:2:(label($3)):(ink($3)) \
          with labels textcolor rgb variable font ",5.5"
