# Chapter 9: the GPT's training loss at every step (grey) and its loss on
# 20 random batches of the held-out novel, measured before the first step and
# after every fifth of the training (blue points, not joined), in bits per
# character, against what the bigram model, gzip -9, xz -9 and fair xz
# (xz after reading the training novels) cost the held-out novel.
call 'figures/terminal.gp' '14' '7.5'
lines = datadir.'/chapter9-lines.dat'
stats lines every ::0::0 using 2 nooutput
bigram = STATS_min
stats lines every ::1::1 using 2 nooutput
gz = STATS_min
stats lines every ::2::2 using 2 nooutput
xz = STATS_min
stats lines every ::3::3 using 2 nooutput
fair = STATS_min
set datafile missing "?"
set xlabel "training step (32 windows of 64 characters each)"
set ylabel "bits per character"
set grid xtics ytics lc rgb "#dddddd"
set key top right font ",8"
stats datadir.'/chapter9-training.dat' using 1 nooutput
set xrange [-0.02 * STATS_max:STATS_max * 1.03]   # room for the first and last markers
set yrange [1.5:6.5]
plot datadir.'/chapter9-training.dat' using 1:($2 / log(2)) with lines lw 0.8 \
         lc rgb "#aaaaaa" title "training batch", \
     '' using 1:($3 / log(2)) with points pt 7 ps 0.6 lc rgb "#2171b5" \
         title "held out (Persuasion)", \
     bigram with lines dt 2 lw 1.2 lc rgb "#636363" title sprintf("bigram %.2f", bigram), \
     gz with lines dt 3 lw 1.2 lc rgb "#e6550d" title sprintf("gzip -9 %.2f", gz), \
     xz with lines dt 4 lw 1.2 lc rgb "#31a354" title sprintf("xz -9 %.2f", xz), \
     fair with lines dt 1 lw 1.2 lc rgb "#31a354" title sprintf("fair xz %.2f", fair)
