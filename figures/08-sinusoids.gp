# Chapter 8: the sinusoidal position encoding of width 64 for positions 0
# to 63: one row a position, one column a feature; each pair of columns
# (2i, 2i + 1) a sine and a cosine turning at 10000^(-2i/64) radians a
# position, fast on the left, slow on the right.
call 'figures/terminal.gp' '13' '10'
set xlabel "feature (column)" font ",9"
set ylabel "position" font ",9"
set xrange [-0.5:63.5]
set yrange [63.5:-0.5]
set xtics 0, 8 out nomirror font ",8"
set ytics 0, 8 out nomirror font ",8"
set tics scale 0.5
set size ratio -1
set cbrange [-1:1]
set cbtics 0.5 font ",7"
set palette defined (-1 "#b2182b", 0 "#f7f7f7", 1 "#2166ac")
set title "PE(pos, 2i) = sin(pos ω_i),  PE(pos, 2i+1) = cos(pos ω_i)" font ",10"
unset key
# in an SVG, rectangles: a browser would smooth a bitmap's cells together
cells = (GPVAL_TERM eq 'svg') ? 'image pixels' : 'image'
plot datadir.'/chapter8-sinusoids.dat' matrix with @cells
