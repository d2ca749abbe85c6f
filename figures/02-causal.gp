# Chapter 2: the attention weights of chapter 1 (every query sees every key)
# beside the causal ones (query i sees keys 0 .. i; the rest are exactly 0).
call 'figures/terminal.gp' '16' '8'
set multiplot layout 1,2
call 'figures/heatmap.gp' datadir.'/chapter2-weights.dat' 'Unmasked weights (chapter 1)' '%.2f'
call 'figures/heatmap.gp' datadir.'/chapter2-causal-weights.dat' 'Causal weights' '%.2f'
unset multiplot
