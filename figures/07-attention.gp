# Chapter 7: how much weight each word of one test chunk receives from the
# chunk's 32 queries (its key's column sum: 1 for every word under uniform
# rows, 32 in all), in the two softmax models at lr 0.001: GloVe vectors
# trained (orange) and frozen (grey). The words read down the chunk, in
# order. After the mean over the chunk, a word's value counts in the
# chunk's representation in proportion to this sum.
call 'figures/terminal.gp' '16' '12'
file(e) = sprintf('%s/chapter7-attention-0.001-%s.dat', datadir, e)
# a lone punctuation mark is quoted, so that a full stop or a comma shows
label(w) = (strlen(w) == 1 && strstrt('.,!?;:', w) > 0) ? '"'.w.'"' : w
set yrange [-32.7:-0.3]
set ytics scale 0 font ',8'
set xtics nomirror
set ytics nomirror
set border 3
set xrange [0:*]
set grid xtics lc rgb "#dddddd"
set xlabel 'weight received from the 32 queries (a key''s column sum; 1 = uniform)'
set arrow from 1, graph 0 to 1, graph 1 nohead dt 2 lc rgb '#555555'
set key top center horizontal outside
set style fill solid 0.9 noborder
# each word's pair of bars around its row, -position, with a gap to the
# next pair twice as wide as the bars; the word labels the pair's middle
plot file('trained') using (NaN):(-$1):ytic(label(strcol(2))) notitle, \
     file('trained') using ($3/2):(-$1 + 0.14):($3/2):(0.13) \
       with boxxyerror lc rgb '#e6550d' title 'GloVe vectors trained', \
     file('frozen') using ($3/2):(-$1 - 0.14):($3/2):(0.13) \
       with boxxyerror lc rgb '#969696' title 'GloVe vectors frozen'
