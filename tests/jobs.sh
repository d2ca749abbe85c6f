# tests/jobs.sh: sourced by tests/run.sh and tests/oom/run.sh (not run).
#
# claimed_jobs DIR N FUNCTION ITEM...: starts N jobs in the background, each
# going through the items in order and calling FUNCTION K ITEM for the K-th
# item that no job has claimed yet (mkdir DIR/K.claimed: one job succeeds).
# So the jobs share the items as they finish them, and the longest should
# come first. Returns at once; the caller waits for the jobs. The
# functions run with the shell's default word splitting.
claimed_jobs() {
  _jobs_dir=$1 _jobs_n=$2 _jobs_fn=$3
  shift 3
  _jobs_j=0
  while [ "$_jobs_j" -lt "$_jobs_n" ]; do
    (
      IFS=' 	
'
      set +f
      _jobs_k=0
      for _jobs_item in "$@"; do
        _jobs_k=$((_jobs_k + 1))
        if mkdir "$_jobs_dir/$_jobs_k.claimed" 2> /dev/null; then "$_jobs_fn" "$_jobs_k" "$_jobs_item"; fi
      done
    ) &
    _jobs_j=$((_jobs_j + 1))
  done
}
