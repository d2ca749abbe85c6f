# Chapter 9: two trained heads of the GPT over one sentence of the held-out
# novel (block P9.7): each query character (down the side) over the keys
# it may see (across), the causal mask's upper triangle grey.
# Left, the head with the largest mean weight on the previous character;
# right, of the others, the one with the largest on the earlier letters
# of the query's word (between the last space and the previous one); each
# titled with how far back its largest weight most often sits. A
# space is drawn as an open box, and the quotation marks as opening and
# closing ones. One colour scale, 0 to 1. The cells are taller than wide,
# so that the query labels, one above the other, have room (sizes in
# centimetres).
W = 16.0; H = 12.4
L = 1.2; M = 6.6; MH = 10.2; G = 0.3; B = 1.1
call 'figures/terminal.gp' (W) (H)
heads = datadir.'/chapter9-attention-heads.dat'
title(p) = sprintf('Block %d, head %d: mostly %d place%s back', block[p], head[p], \
                   back[p], back[p] == 1 ? '' : 's')
array block[2]
array head[2]
array back[2]
do for [p = 1:2] {
  stats heads every ::(p - 1)::(p - 1) using 1 nooutput
  block[p] = int(STATS_min)
  stats heads every ::(p - 1)::(p - 1) using 2 nooutput
  head[p] = int(STATS_min)
  stats heads every ::(p - 1)::(p - 1) using 3 nooutput
  back[p] = int(STATS_min)
}
x2 = L + M + G
set multiplot
call 'figures/heatmap.gp' datadir.'/chapter9-attention-1.dat' title(1) '' '0:1' 'nobox chars masked' \
     (L/W) ((L+M)/W) (B/H) ((B+MH)/H)
call 'figures/heatmap.gp' datadir.'/chapter9-attention-2.dat' title(2) '' '0:1' 'noqueries chars masked' \
     (x2/W) ((x2+M)/W) (B/H) ((B+MH)/H)
unset multiplot
