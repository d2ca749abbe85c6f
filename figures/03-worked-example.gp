# Chapter 3: the worked example's scores q_i . k_j, the softmax of each row
# (what the article uses), and the softmax after scaling by sqrt(d_k) = sqrt(3).
call 'figures/terminal.gp' '18' '6.5'
set multiplot layout 1,3
call 'figures/heatmap.gp' datadir.'/chapter3-scores.dat' 'Scores q_i . k_j' '%.0f'
call 'figures/heatmap.gp' datadir.'/chapter3-softmax.dat' 'softmax(scores)' '%.3f'
call 'figures/heatmap.gp' datadir.'/chapter3-softmax-scaled.dat' 'softmax(scores / sqrt(3))' '%.3f'
unset multiplot
