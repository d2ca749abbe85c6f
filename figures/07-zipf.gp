# Chapter 7: how often each training word occurs, by rank (log-log), and how
# much of the text the most frequent words cover. The vocabulary keeps the
# top 10,000.
call 'figures/terminal.gp' '16' '7.5'
file = datadir.'/chapter7-zipf.dat'
set multiplot layout 1,2

set title "Occurrences of the word of each rank" font ",10"
set logscale xy
set xlabel "rank (1 = most frequent)"
set ylabel "occurrences in the training reviews"
set format x "10^{%L}"
set format y "10^{%L}"
set grid xtics ytics lc rgb "#dddddd"
set arrow 1 from 10000, graph 0 to 10000, graph 1 nohead dt 2 lc rgb "#08306b"
set label 1 "vocabulary cut" at 10000, graph 0.1 right offset -0.5,0 font ",8" tc rgb "#08306b"
unset key
plot file using 1:2 with lines lw 2 lc rgb "#2171b5"

unset logscale y
set logscale x
set format y "%g%%"
set yrange [0:100]
set title "Share covered by the top words" font ",10"
set rmargin 3
set ylabel "training tokens covered"
plot file using 1:($3 * 100) with lines lw 2 lc rgb "#2171b5"
unset multiplot
