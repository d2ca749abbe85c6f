// bce_loss.h: the loss of chapter 7's classifiers, the sigmoid binary
// cross-entropy of a logit against its label, and its gradient.
//
//   B     chunks in a batch (BATCH_SIZE, 64)
//
// Conventions of every layer (README.md): outputs first, sizes last; a
// forward function overwrites its output, a backward one ADDS the gradients
// with respect to its inputs and parameters, and takes NULL for a gradient
// nobody needs.
#ifndef ATTN_BCE_LOSS_H
#define ATTN_BCE_LOSS_H

#include <stdint.h>

#include "kernels/real.h"

// Sigmoid binary cross-entropy of logits z against labels y in {0, 1},
// averaged over the batch (optax.sigmoid_binary_cross_entropy, then mean):
// loss = mean_b [ max(z, 0) - z y + log(1 + exp(-|z|)) ]. z and y are (B)
real bce_forward(const real *z, const int32_t *y, int B);
// dz[b] += (sigmoid(z[b]) - y[b]) / B
void bce_backward(real *dz, const real *z, const int32_t *y, int B);

#endif
