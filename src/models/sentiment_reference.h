// sentiment_reference.h: chapter 7's three classifiers (the baseline, the
// notebook's attention, softmax attention) as a learner first writes them:
// every token embedded and projected on its own, every gradient cleared
// and written in full, and Adam's update on every parameter at every step.
// The library's sentiment_forward, _backward and _train_step
// (sentiment.h) compute the same numbers, to rounding, with less work;
// tests/test_sentiment.c holds the two together. Dimension legend in
// sentiment.h.
#ifndef ATTN_SENTIMENT_REFERENCE_H
#define ATTN_SENTIMENT_REFERENCE_H

#include <stdint.h>

#include "models/sentiment.h"

// The logits of B chunks, ids (B, L), into m->a.z (and the attention
// weights into m->a.w). Returns 0, or -1 for the transformer, which these
// functions leave out.
int sentiment_forward_reference(sentiment_model *m, const int32_t *ids, int B);

// After sentiment_forward_reference on the same ids: the mean loss over
// the batch against labels (B), and every gradient into m->grad_block,
// cleared first (a frozen model's embedding gradient left alone).
real sentiment_backward_reference(sentiment_model *m, const int32_t *ids, const int32_t *labels,
                                  int B);

// One training step: forward, backward, and Adam (adam_step) on the whole
// block, or on all but the embedding when frozen. Returns the loss;
// *correct gets the number of chunks the logits got right, both before
// the update. A model is trained by these functions or by sentiment.h's,
// not by both: these neither read nor keep the lazy table's bookkeeping.
real sentiment_train_step_reference(sentiment_model *m, double lr, const int32_t *ids,
                                    const int32_t *labels, int B, int *correct);

#endif
