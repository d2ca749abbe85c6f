# Chapter 6: scaled dot-product attention from the words of the query
# sentence to those of the key sentence, GloVe vectors (cell [13]).
call 'figures/terminal.gp' '11' '9'
call 'figures/heatmap.gp' datadir.'/chapter6-dot.dat' 'Dot-product attention, softmax(q k^T / sqrt(100))' '%.2f'
