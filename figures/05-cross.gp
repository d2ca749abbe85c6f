# Chapter 5: the decoder layer's cross-attention weights (cell [56]): each
# target word (a query) over the source words (keys), averaged over the two
# heads. Untrained weights, so no alignment yet.
call 'figures/terminal.gp' '11' '12'
call 'figures/heatmap.gp' datadir.'/chapter5-cross.dat' 'Cross-attention: target words over source words' '%.2f'
