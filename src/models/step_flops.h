// step_flops.h: the arithmetic of one training step of a model: the
// floating-point operations of its matrix products (a multiply-add counts
// as two), the measure by which a step's speed is set against the
// machine's peak (its model FLOPs utilisation, MFU, chapter 10). The rest
// (layer norms, activations, softmax, the optimiser) is a few per cent of
// the work and left out, as MFU counts leave it out.
#ifndef ATTN_STEP_FLOPS_H
#define ATTN_STEP_FLOPS_H

#include "models/gpt.h"
#include "models/sentiment.h"
#include "models/seq2seq.h"

// A training step of the GPT on B windows of n positions: the forward's
// products, per position 24 L d^2 (the attention's projections, 4 d^2, and
// the MLP's, 8 d^2, two operations each) plus 2 d V (the output layer),
// and its attention, 4 L n d per position (scores and weighted values over
// all n keys, the masked ones too, as the weights in memory compute them,
// the count nanoGPT's estimate_mfu uses); then the backward, twice the
// forward (each product's two gradients, one product each).
double gpt_step_flops(const gpt_config *c, int B, int n);

// The products of a step, added up one by one: their operations, and the
// bytes they move when each reads its two operands and writes its result
// once (4 bytes a float, whatever stays in the caches between products
// counted again): flops / bytes is the step's arithmetic intensity, its
// place on a roofline's axis.
typedef struct {
    double flops, bytes;
} step_cost;

// Adds `count` products of an (m, k) matrix by a (k, n) one, and
// `gradients` (0, 1 or 2) more for each in the backward pass: the
// gradient of each operand that needs one (the operand's shape by the
// output's), the same operations and bytes as the product.
void step_cost_product(step_cost *c, double count, double m, double k, double n, int gradients);

// A training step of chapter 7's attention classifiers (the notebook's and
// the softmax one; cfg->kind one of them) on B chunks of cfg->L tokens,
// U distinct words among them (sentiment_batch_words): the three Dense(d_k)
// projections of the U words, each chunk's scores q k^T and weighted
// values w v, Dense(1) on the means; backward, each product's two
// gradients, but for the projections' input when the embedding is frozen
// (no gradient flows back to its rows). Zero for the other kinds.
step_cost sentiment_step_cost(const sentiment_config *cfg, int B, int U);

// seq2seq_train_step on B sequences whose computed rows are src_len[b] and
// tgt_len[b] (the step leaves trailing padding out, seq2seq.h): in each
// encoder layer the four projections and the feed-forward network on the
// source rows and each sequence's scores and weighted values over its own
// rows; in each decoder layer the same on the target rows, with the
// cross-attention's keys and values projected from the source rows; the
// generator on the target rows; backward, each product's two gradients
// (the embedding is trained, so the gradient reaches the first layers'
// input).
step_cost seq2seq_step_cost(const seq2seq_config *cfg, int B, const int *src_len,
                            const int *tgt_len);

// gpt_train_step on B windows of n positions, the products gpt_step_flops
// counts, one by one: its operations are gpt_step_flops's.
step_cost gpt_step_cost(const gpt_config *c, int B, int n);

#endif
