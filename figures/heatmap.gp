# heatmap.gp: the one style of every attention matrix in the book.
#
#   call 'figures/heatmap.gp' 'FILE' 'TITLE' 'FORMAT' ['LO:HI'] ['FLAGS'] \
#        ['LEFT' 'RIGHT' 'BOTTOM' 'TOP']
#
# draws FILE, written by a chapter program's write_heatmap() (a header row
# of key labels, then one row per query: its label and its values), as one
# panel: queries down the side, keys across the bottom, each cell printed
# with FORMAT (e.g. '%.2f'; '' prints no numbers, for matrices with too
# many cells to read), white on dark cells and black on light ones. A
# weight that is exactly zero, as a masked one is, gets no number, so that
# it is never confused with a small weight printed as 0.00 (and with the
# flag masked, a grey cell).
#
# The colours run from LO to HI; without them, from the smallest value in
# FILE to the largest. Panels that a reader compares by colour must share
# one range: give each the same LO:HI, and draw the colour bar once.
# FLAGS, any of:
#   nobox       no colour bar (another panel of the figure draws it)
#   noqueries   no query labels down the side (the panel to the left has
#               the same queries, in rows level with these)
#   small       numbers at 7 points instead of 8, for cells too narrow
#               for "0.00" at 8
#   chars       labels of one character each (a character model's): at 7.5
#               points, the keys upright
#   level       key labels of a character or two (digits): the keys
#               written level, at the usual size
#   masked      cells exactly zero (a mask's) drawn grey, not in the
#               colour of a small weight
# LEFT RIGHT BOTTOM TOP place the panel's frame at those fractions of the
# figure (set multiplot without a layout); without them, multiplot's
# layout or the whole figure, the cells kept square.

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
flags = (ARGC >= 5) ? ARG5 : ''

# About five ticks on the colour bar, at round steps (1, 2 or 5 times a
# power of ten), so that their labels never run into one another.
span = (hi - lo) / 5.0
base = 10.0 ** floor(log10(span))
step = span / base <= 1 ? base : span / base <= 2 ? 2 * base : span / base <= 5 ? 5 * base : 10 * base

# Token labels at 8.5 points; a matrix of more than 16 rows or columns
# has cells too small for them: 7 points, and the keys upright, so that
# neighbours never touch.
nk = STATS_size_x
nq = STATS_size_y
tickfont = strstrt(flags, 'chars') ? ",7.5" : (nk > 16 || nq > 16) ? ",7" : ",8.5"
set title ARG2 font ",9.5"
set xlabel "Keys" font ",9"
if (nk > 16) {
  set xtics out nomirror rotate by 90 right font tickfont
} else {
  set xtics out nomirror rotate by 45 right font tickfont
}
if (strstrt(flags, 'chars') || strstrt(flags, 'level')) { set xtics norotate center }
if (strstrt(flags, 'noqueries')) {
  unset ylabel
  unset ytics
} else {
  set ylabel "Queries" font ",9"
  set ytics out nomirror font tickfont
  # gnuplot sets the label off by the tick labels' bytes, not their width
  if (strstrt(flags, 'chars')) { set ylabel offset 2, 0 } else { set ylabel offset 0, 0 }
}
set tics scale 0
set yrange [:] reverse
set cbrange [lo:hi]
set cbtics step font ",8"
set format cb '%g'
set palette defined (0 "#f7fbff", 0.25 "#c6dbef", 0.5 "#6baed6", 0.75 "#2171b5", 1 "#08306b")
if (strstrt(flags, 'nobox')) { unset colorbox } else { set colorbox default }
unset key
if (ARGC >= 9) {
  set size noratio
  set lmargin at screen real(ARG6)
  set rmargin at screen real(ARG7)
  set bmargin at screen real(ARG8)
  set tmargin at screen real(ARG9)
} else {
  set size ratio -1
}
ink(v) = ((v - lo) / (hi - lo) > 0.55) ? 0xffffff : 0x000000
label(v) = (v == 0 || strlen(ARG3) == 0) ? "" : sprintf(ARG3, v)

# In an SVG the matrix is drawn as rectangles (pixels): a browser would
# smooth a bitmap's cells into one another.
cells = (GPVAL_TERM eq 'svg') ? 'image pixels' : 'image'
# The query labels are the file's row headers, which gnuplot puts on the
# axis the data is plotted against: without them, plot against y2 and
# leave its tics off.
numfont = strstrt(flags, 'small') ? ",7" : ",8"
yaxes = strstrt(flags, 'noqueries') ? 'x1y2' : 'x1y1'
set y2range [:] reverse
unset y2tics
# With 'masked', a grey box over each cell that is exactly zero.
masked(v) = strstrt(flags, 'masked') && v == 0 ? 0.5 : NaN
plot file matrix rowheaders columnheaders using 1:2:3 axes @yaxes with @cells, \
     file matrix rowheaders columnheaders using 1:2:(masked($3)):(masked($3)) \
          axes @yaxes with boxxy fillstyle solid noborder fillcolor rgb "#bdbdbd", \
     file matrix rowheaders columnheaders using 1:2:(label($3)):(ink($3)) \
          axes @yaxes with labels textcolor rgb variable font numfont
if (ARGC >= 9) {
  unset lmargin; unset rmargin; unset bmargin; unset tmargin
}
