# Chapter 6: trainable dot-product attention, untrained nn.Linear(100, 256)
# maps for queries and keys (cell [16]).
set terminal pdfcairo size 11cm,9cm font "DejaVu Sans,9"
set output outfile
call 'figures/heatmap.gp' datadir.'/chapter6-trainable.dat' 'Trainable attention, softmax(Wq q (Wk k)^T / sqrt(256))' '%.2f'
