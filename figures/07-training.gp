# Chapter 7: the training loss (the mean over each tenth of an epoch, on a
# logarithmic axis) and the test accuracy after each epoch, per chunk and
# per review, for every run of ./chapter7: the notebook's (lr 0.05, solid), the
# fixed one (lr 0.001, dashed) and the frozen one (lr 0.001, GloVe vectors
# frozen, dotted); the baseline in blue, attention in orange.
call 'figures/terminal.gp' '16' '13'
loss(m, lr, e) = sprintf('%s/chapter7-loss-%s-%s-%s.dat', datadir, m, lr, e)
acc(m, lr, e) = sprintf('%s/chapter7-train-%s-%s-%s.dat', datadir, m, lr, e)
blue = "#2171b5"; orange = "#e6550d"
set style line 1 lc rgb blue lw 2 dt 1
set style line 2 lc rgb orange lw 2 dt 1
set style line 3 lc rgb blue lw 2 dt 2
set style line 4 lc rgb orange lw 2 dt 2
set style line 5 lc rgb blue lw 2 dt 3
set style line 6 lc rgb orange lw 2 dt 3
set grid xtics ytics lc rgb "#dddddd"
set multiplot

set origin 0, 0.5
set size 1, 0.5
set title "Training loss (mean over each tenth of an epoch)" font ",10"
set logscale y
set yrange [0.2:*]
set xlabel "epoch"
set ylabel "sigmoid binary cross-entropy"
set key outside right top font ",8" spacing 1.1
set xrange [0:*]
plot loss('baseline', '0.05', 'trained') using 1:2 with lines ls 1 title "baseline, lr 0.05", \
     loss('notebook-attention', '0.05', 'trained') using 1:2 with lines ls 2 title "notebook's attention, lr 0.05", \
     loss('baseline', '0.001', 'trained') using 1:2 with lines ls 3 title "baseline, lr 0.001", \
     loss('softmax-attention', '0.001', 'trained') using 1:2 with lines ls 4 title "softmax attention, lr 0.001", \
     loss('baseline', '0.001', 'frozen') using 1:2 with lines ls 5 title "baseline, frozen", \
     loss('softmax-attention', '0.001', 'frozen') using 1:2 with lines ls 6 title "softmax attention, frozen"
unset logscale y
set autoscale y

set origin 0, 0
set size 0.5, 0.5
set title "Test accuracy per chunk" font ",10"
set ylabel "accuracy"
set xrange [0.5:*]
set offsets 0, 0.5, 0, 0
set xtics 1
set format y "%.2f"
unset key
plot for [i=1:6] acc(word("baseline notebook-attention baseline softmax-attention baseline softmax-attention", i), \
                     word("0.05 0.05 0.001 0.001 0.001 0.001", i), \
                     word("trained trained trained trained frozen frozen", i)) \
         using 1:4 with linespoints ls i pt 7 ps 0.4
set origin 0.5, 0
set title "Test accuracy per review" font ",10"
plot for [i=1:6] acc(word("baseline notebook-attention baseline softmax-attention baseline softmax-attention", i), \
                     word("0.05 0.05 0.001 0.001 0.001 0.001", i), \
                     word("trained trained trained trained frozen frozen", i)) \
         using 1:5 with linespoints ls i pt 7 ps 0.4
unset multiplot
