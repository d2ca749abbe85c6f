# Chapter 6: additive attention over every (query, key) pair, untrained
# (cell [29]).
call 'figures/terminal.gp' '11' '9'
call 'figures/heatmap.gp' datadir.'/chapter6-additive.dat' 'Additive attention, softmax(w . tanh(Wq q + Wk k + b))' '%.2f'
