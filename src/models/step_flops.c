// step_flops.c: the operations of a training step, counted as
// step_flops.h says.
#include "models/step_flops.h"

double gpt_step_flops(const gpt_config *c, int B, int n) {
    double d = c->d, per_position = 24.0 * c->L * d * d + 2.0 * d * c->V  // the weights
                                    + 4.0 * c->L * n * d;                // the attention
    return 3.0 * per_position * B * n;  // forward, and the backward's two products for each
}
