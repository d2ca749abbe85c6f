# Chapter 6: trainable dot-product attention, untrained nn.Linear(100, 256)
# maps for queries and keys (cell [16]).
call 'figures/terminal.gp' '11' '9'
call 'figures/heatmap.gp' datadir.'/chapter6-trainable.dat' 'Trainable attention, softmax(Wq q (Wk k)^T / sqrt(256))' '%.2f'
