# Chapter 10: the roofline of the machine that built the book, FLOP/s
# against FLOPs per byte moved from memory, log-log, with the kernels of
# the book placed on it. The roof is min(peak, bandwidth x intensity) with
# the peak of all cores and the triad's bandwidth of block P10.1
# (chapter10-machine.dat), the ridge marked by a dot at the roof's corner
# and labelled from there, to the tenth as block P10.1 prints it; a dashed
# line marks one core's peak. Each kernel's rate is its counted
# operations over its measured time; its intensity is those operations over
# the bytes the chapter counts it moving: attention's forward does 4 n^2 d
# operations, naive attention moves its n x n arrays four times, 16 n^2
# bytes (and 16 n d for the inputs and output), tiled attention reads its
# inputs and writes its output once, 16 n d bytes, so its intensity is n/4.
# Naive and tiled attention (d = 64, all threads) come from block P10.3
# (chapter10-memory.dat), one point per n; chapter 1's three ways (d = 32,
# one thread) from its timing table (chapter1-timing.dat), for n from 256.
# The training steps of chapters 7, 8 and 9 come from block P10.6
# (chapter10-mfu.dat: a step's operations, the bytes its products move when
# each reads its operands and writes its result from memory, its time),
# each numbered by its chapter (its name's fifth character) in a row of
# labels below every point, at the x of its point with a dotted line up to
# it, where nothing else is drawn; their diamonds are open and larger than
# the other markers, so that a point they fall on shows through. Each set
# of points has a hue of its own. The y axis starts at 1 GFLOP/s.
call 'figures/terminal.gp' '14' '10'
machine = datadir.'/chapter10-machine.dat'
memory = datadir.'/chapter10-memory.dat'
timing = datadir.'/chapter1-timing.dat'
mfu = datadir.'/chapter10-mfu.dat'
stats machine using 1 nooutput
peak1 = STATS_min
stats machine using 2 nooutput
peak = STATS_min
stats machine using 5 nooutput
bw = STATS_min

flops(n, d) = 4.0 * n * n * d
naive_int(n, d) = flops(n, d) / (4.0 * (4.0 * n * n + 4.0 * n * d))
tiled_int(n, d) = flops(n, d) / (16.0 * n * d)
ylab = 1.6   # the labels' row, GFLOP/s, below every point
roof(x) = (bw * x < peak ? bw * x : peak) / 1e9

set logscale xy
set xrange [1:30000]
set yrange [1:*]
set samples 400
set xlabel "operations per byte moved from memory (FLOP/B)"
set ylabel "GFLOP/s"
set format x "10^{%L}"
set format y "10^{%L}"
set grid xtics ytics lc rgb "#dddddd"
set bmargin 9.5
set key at screen 0.5, screen 0.02 center bottom maxrows 5 width -3 reverse Left font ",8"
set label 1 sprintf("ridge %.1f FLOP/B", peak / bw) at peak / bw, peak / 1e9 left \
    point pt 7 ps 0.5 offset -0.5, 0.9 font ",8"
plot roof(x) with lines lw 2 lc rgb "#252525" title "roof: bandwidth, then peak (all cores)", \
     peak1 / 1e9 with lines dt 2 lw 1 lc rgb "#636363" title "peak of one core", \
     memory using (naive_int($1, 64)):(flops($1, 64) / $2 / 1e6) with points pt 7 ps 0.6 \
       lc rgb "#fd8d3c" title "naive attention (n = 256 up)", \
     memory using (tiled_int($1, 64)):(flops($1, 64) / $4 / 1e6) with linespoints pt 5 ps 0.6 \
       lc rgb "#238b45" title "tiled attention (n = 256 up)", \
     timing using (naive_int($1, 32)):($1 >= 256 ? flops($1, 32) / $2 / 1e6 : NaN) with points \
       pt 6 ps 0.6 lc rgb "#2171b5" title "chapter 1: loops", \
     timing using (naive_int($1, 32)):($1 >= 256 ? flops($1, 32) / $3 / 1e6 : NaN) with points \
       pt 4 ps 0.6 lc rgb "#6a51a3" title "chapter 1: plain products", \
     timing using (naive_int($1, 32)):($1 >= 256 ? flops($1, 32) / $4 / 1e6 : NaN) with points \
       pt 8 ps 0.6 lc rgb "#a6761d" title "chapter 1: fast products", \
     mfu using ($2 / $3):($2 / $4 / 1e9) with points pt 12 ps 1.4 lw 1.5 lc rgb "#cb181d" \
       title "training steps (chapters 7, 8, 9)", \
     mfu using ($2 / $3):($2 / $4 / 1e9):(0):(ylab - $2 / $4 / 1e9) with vectors nohead \
       dt 3 lw 0.8 lc rgb "#cb181d" notitle, \
     mfu using ($2 / $3):(ylab):(stringcolumn(1)[5:5]) with labels \
       center offset 0, -0.5 font ",9" tc rgb "#cb181d" notitle
