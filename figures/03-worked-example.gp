# Chapter 3: the worked example's scores q_i . k_j, the softmax of each row
# (what the article uses), and the softmax after scaling by sqrt(d_k) =
# sqrt(3). The two softmax panels are compared by colour: one scale, 0 to
# 1, one colour bar; the scores have their own. The query labels are the
# same in the three panels and written once (sizes in centimetres).
W = 16.0; H = 6.6
M = 3.4; L = 2.1; BAR = 1.5; G = 0.5; B = 2.0
call 'figures/terminal.gp' (W) (H)
set multiplot
call 'figures/heatmap.gp' datadir.'/chapter3-scores.dat' "Scores\nq_i . k_j" '%.0f' '' '' \
     (L/W) ((L+M)/W) (B/H) ((B+M)/H)
x2 = L + M + BAR + G
call 'figures/heatmap.gp' datadir.'/chapter3-softmax.dat' "Softmax\nof the scores" '%.3f' '0:1' 'nobox noqueries' \
     (x2/W) ((x2+M)/W) (B/H) ((B+M)/H)
x3 = x2 + M + 0.3
call 'figures/heatmap.gp' datadir.'/chapter3-softmax-scaled.dat' "Softmax of\nscores / sqrt(3)" '%.3f' '0:1' 'noqueries' \
     (x3/W) ((x3+M)/W) (B/H) ((B+M)/H)
unset multiplot
