# Chapter 7: the attention weights of the softmax model (trained
# embeddings, lr 0.001) over one test chunk, in the book's heatmap style.
# 32 x 32 weights: the cells are left without numbers, and the keys
# written upright, one to a column (heatmap.gp does so past 16 keys).
call 'figures/terminal.gp' '16' '14.5'
call 'figures/heatmap.gp' datadir.'/chapter7-attention-0.001-trained.dat' \
     'Softmax attention over a test chunk after training' '' '0:1'
