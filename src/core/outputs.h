// outputs.h: that no file a run writes replaces a file the same run reads.
#ifndef ATTN_OUTPUTS_H
#define ATTN_OUTPUTS_H

#include <stdbool.h>

// Before any work: whether the figure data a run writes under dir spares
// its n inputs. The run writes files named <program>-*.dat there (and
// removes leftovers <program>-*.dat.tmp.PID of killed runs), each renamed
// over the entry of its name; an input is in danger when it is such an
// entry, by device and inode, however its path is spelled (another folder
// name, a symbolic link to the entry or to a link to it). A hard link of
// the entry is refused too, though the rename would leave its content.
// NULL inputs and a NULL dir are skipped. When one is in danger, prints
// "<program>: error: --data DIR would replace the input PATH (it is
// DIR/NAME)" and returns false.
bool data_spares_inputs(const char *program, const char *dir, const char *const *inputs, int n);

#endif
