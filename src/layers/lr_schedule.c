// lr_schedule.c: linear warm-up then cosine decay. See lr_schedule.h.
#include "layers/lr_schedule.h"

#include <math.h>

#define PI 3.14159265358979323846

//> lr_at
double lr_at(const lr_schedule *s, long step) {
    if (step < s->warmup) return s->lr_max * (double)(step + 1) / (double)s->warmup;
    if (step >= s->decay_steps) return s->lr_min;
    double r = (double)(step - s->warmup) / (double)(s->decay_steps - s->warmup);
    double coeff = 0.5 * (1.0 + cos(PI * r));  // from 1 at r = 0 down to 0 at r = 1
    return s->lr_min + coeff * (s->lr_max - s->lr_min);
}
//< lr_at
