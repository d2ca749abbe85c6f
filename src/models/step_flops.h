// step_flops.h: the arithmetic of one training step of a model: the
// floating-point operations of its matrix products (a multiply-add counts
// as two), the measure by which a step's speed is set against the
// machine's peak (its model FLOPs utilisation, MFU, chapter 10). The rest
// (layer norms, activations, softmax, the optimiser) is a few per cent of
// the work and left out, as MFU counts leave it out.
#ifndef ATTN_STEP_FLOPS_H
#define ATTN_STEP_FLOPS_H

#include "models/gpt.h"

// A training step of the GPT on B windows of n positions: the forward's
// products, per position 24 L d^2 (the attention's projections, 4 d^2, and
// the MLP's, 8 d^2, two operations each) plus 2 d V (the output layer),
// and its attention, 4 L n d per position (scores and weighted values over
// all n keys, the masked ones too, as the weights in memory compute them,
// the count nanoGPT's estimate_mfu uses); then the backward, twice the
// forward (each product's two gradients, one product each).
double gpt_step_flops(const gpt_config *c, int B, int n);

#endif
