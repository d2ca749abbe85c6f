# Chapter 7: every run of ./chapter7, epoch by epoch: the notebook's (lr
# 0.05, solid), the fixed one (lr 0.001, dashed) and the frozen one (lr
# 0.001, GloVe vectors frozen, dotted); the baseline in blue, attention in
# orange. Top: the training loss, the mean over each tenth of an epoch, of
# all six on a logarithmic axis (left; the notebook's attention model
# reaches the thousands) and of the five that stay under 1 on a linear one
# (right), beside ln 2, the loss of answering 0.5. Bottom: the test
# accuracy after each epoch, per chunk and per review. One legend for all
# four panels, under them.
call 'figures/terminal.gp' '16' '15'
loss(m, lr, e) = sprintf('%s/chapter7-loss-%s-%s-%s.dat', datadir, m, lr, e)
acc(m, lr, e) = sprintf('%s/chapter7-train-%s-%s-%s.dat', datadir, m, lr, e)
model(i) = word("baseline notebook-attention baseline softmax-attention baseline softmax-attention", i)
rate(i) = word("0.05 0.05 0.001 0.001 0.001 0.001", i)
emb(i) = word("trained trained trained trained frozen frozen", i)
array label[6] = ["baseline, lr 0.05", "notebook's attention, lr 0.05", "baseline, lr 0.001", \
                  "softmax attention, lr 0.001", "baseline, frozen", "softmax attention, frozen"]
blue = "#2171b5"; orange = "#e6550d"
set style line 1 lc rgb blue lw 2 dt 1
set style line 2 lc rgb orange lw 2 dt 1
set style line 3 lc rgb blue lw 2 dt 2
set style line 4 lc rgb orange lw 2 dt 2
set style line 5 lc rgb blue lw 2 dt 3
set style line 6 lc rgb orange lw 2 dt 3
set grid xtics ytics lc rgb "#dddddd"

# the epochs the runs went through: the x axes end at the last one, the
# loss panels' a little after it so that a spike there clears the frame
stats acc(model(1), rate(1), emb(1)) using 1 nooutput
epochs = int(STATS_max)

set multiplot
set xlabel "epoch" font ",9"
set tics font ",8"
set xtics 1
if (epochs > 10) { set xtics int(epochs / 10) }

# top left: all six, on a logarithmic axis
set origin 0, 0.56
set size 0.5, 0.42
set title "Training loss, all six (logarithmic)" font ",10"
set logscale y
set format y "%g"
set ylabel "sigmoid binary cross-entropy" font ",9"
set xrange [0:epochs * 1.03]
set autoscale yfix
set offsets 0, 0, graph 0.05, graph 0.05
unset key
plot for [i=1:6] loss(model(i), rate(i), emb(i)) using 1:2 with lines ls i

# top right: the five that stay under 1, on a linear axis, and ln 2
set origin 0.5, 0.56
set title "Training loss, the five under 1 (linear)" font ",10"
unset logscale y
set format y "%.1f"
set ytics 0.1
set offsets 0, 0, graph 0.2, graph 0.05
set ylabel ""
set arrow 1 from 0, log(2) to epochs, log(2) nohead dt 4 lw 1 lc rgb "#555555" front
set label 1 "ln 2: answering 0.5" at graph 0.97, first log(2) right offset 0, 0.8 font ",8" \
    tc rgb "#555555" front
plot for [i in "1 3 4 5 6"] loss(model(i + 0), rate(i + 0), emb(i + 0)) using 1:2 with lines ls (i + 0)
unset arrow 1
unset label 1
set ytics autofreq

# bottom: the test accuracy after each epoch
set xrange [0.5:epochs + 0.5]
set format y "%.2f"
set offsets 0, 0, graph 0.06, graph 0.06
set origin 0, 0.12
set size 0.5, 0.44
set title "Test accuracy per chunk" font ",10"
set ylabel "accuracy" font ",9"
plot for [i=1:6] acc(model(i), rate(i), emb(i)) using 1:4 with linespoints ls i pt 7 ps 0.4
set origin 0.5, 0.12
set title "Test accuracy per review" font ",10"
set ylabel ""
plot for [i=1:6] acc(model(i), rate(i), emb(i)) using 1:5 with linespoints ls i pt 7 ps 0.4

# the legend of all four, under them: an empty plot of its own
set origin 0, 0
set size 1, 0.12
unset title
unset xlabel
unset border
unset tics
unset grid
set xrange [0:1]
set yrange [0:1]
set key center center horizontal maxcols 3 maxrows 2 font ",8" samplen 3 width 2 spacing 1.3
plot for [i=1:6] NaN with linespoints ls i pt 7 ps 0.4 title label[i]
unset multiplot
