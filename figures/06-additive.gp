# Chapter 6: additive attention over every (query, key) pair, untrained
# (cell [29]).
set terminal pdfcairo size 11cm,9cm font "DejaVu Sans,9"
set output outfile
call 'figures/heatmap.gp' datadir.'/chapter6-additive.dat' 'Additive attention, softmax(w . tanh(Wq q + Wk k + b))' '%.2f'
