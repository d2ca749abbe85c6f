# Chapter 10: the roofline of the machine that built the book, FLOP/s
# against FLOPs per byte moved from memory, log-log, with the kernels of
# the book placed on it. The roof is min(peak, bandwidth x intensity) with
# the peak of all cores and the triad's bandwidth of [10.1]
# (chapter10-machine.dat); a dashed line marks one core's peak, a dotted
# one the library's product on all cores. Each kernel's rate is its counted
# operations over its measured time; its intensity is those operations over
# the bytes the chapter counts it moving: attention's forward does 4 n^2 d
# operations, naive attention moves its n x n arrays four times, 16 n^2
# bytes (and 16 n d for the inputs and output), tiled attention reads its
# inputs and writes its output once, 16 n d bytes, so its intensity is n/4.
# Naive and tiled attention (d = 64, all threads) come from [10.3]
# (chapter10-memory.dat), one point per n; chapter 1's three ways (d = 32,
# one thread) from its timing table (chapter1-timing.dat), for n from 256.
call 'figures/terminal.gp' '14' '9.5'
machine = datadir.'/chapter10-machine.dat'
memory = datadir.'/chapter10-memory.dat'
timing = datadir.'/chapter1-timing.dat'
stats machine using 1 nooutput
peak1 = STATS_min
stats machine using 2 nooutput
peak = STATS_min
stats machine using 4 nooutput
gemm = STATS_min
stats machine using 5 nooutput
bw = STATS_min

flops(n, d) = 4.0 * n * n * d
naive_int(n, d) = flops(n, d) / (4.0 * (4.0 * n * n + 4.0 * n * d))
tiled_int(n, d) = flops(n, d) / (16.0 * n * d)
roof(x) = (bw * x < peak ? bw * x : peak) / 1e9

set logscale xy
set xrange [1:30000]
set yrange [0.1:*]
set samples 400
set xlabel "operations per byte moved from memory (FLOP/B)"
set ylabel "GFLOP/s"
set format x "10^{%L}"
set format y "10^{%L}"
set grid xtics ytics lc rgb "#dddddd"
set bmargin 8.5
set key at screen 0.5, screen 0.02 center bottom maxrows 4 width -3 reverse Left font ",8"
set label 1 sprintf("ridge %.0f FLOP/B", peak / bw) at peak / bw, peak / 1e9 * 1.5 center font ",8"
plot roof(x) with lines lw 2 lc rgb "#252525" title "roof: bandwidth, then peak (all cores)", \
     peak1 / 1e9 with lines dt 2 lw 1 lc rgb "#636363" title "peak of one core", \
     gemm / 1e9 with lines dt 3 lw 1.5 lc rgb "#636363" title "gemm\\_fast, all cores", \
     memory using (naive_int($1, 64)):(flops($1, 64) / $2 / 1e6) with points pt 7 ps 0.6 \
       lc rgb "#fd8d3c" title "naive attention (n = 256 up)", \
     memory using (tiled_int($1, 64)):(flops($1, 64) / $4 / 1e6) with linespoints pt 5 ps 0.6 \
       lc rgb "#238b45" title "tiled attention (n = 256 up)", \
     timing using (naive_int($1, 32)):($1 >= 256 ? flops($1, 32) / $2 / 1e6 : NaN) with points \
       pt 6 ps 0.6 lc rgb "#2171b5" title "chapter 1: loops", \
     timing using (naive_int($1, 32)):($1 >= 256 ? flops($1, 32) / $3 / 1e6 : NaN) with points \
       pt 4 ps 0.6 lc rgb "#6a51a3" title "chapter 1: plain products", \
     timing using (naive_int($1, 32)):($1 >= 256 ? flops($1, 32) / $4 / 1e6 : NaN) with points \
       pt 8 ps 0.6 lc rgb "#41ab5d" title "chapter 1: fast products"
