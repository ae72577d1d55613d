#!/usr/bin/env bash
# Kills heat several times at random moments and checks, with heat_compare.sh, that the final
# field is bit-identical to a failure-free run.
#   heat_random.sh MPIRUN HEAT NP STEPS EVERY NKILLS -- mpirun-mode-args...
# NKILLS-1 kills at the start of random steps (distinct steps, random ranks, rank 0 included)
# and one inside a random save (its copies in flight). Each kill fires once and the steps
# are synchronised (heat.c), so every kill is its own failure: exactly NKILLS recoveries.
# The seed is printed; HEAT_SEED=<seed> repeats a run.
set -u
mpirun=$1 heat=$2 np=$3 steps=$4 every=$5 nkills=$6
shift 7
seed=${HEAT_SEED:-$(( $(date +%s%N) % 1000000007 ))}
RANDOM=$seed
kills="" used=" "
for ((i = 1; i < nkills; i++)); do
  while :; do
    step=$(( 1 + RANDOM % (steps - 1) ))
    case "$used" in *" $step "*) ;; *) break ;; esac
  done
  used="$used$step "
  kills="$kills$(( RANDOM % np ))@s$step,"
done
# Save numbers 0..steps/every exist in every run; stay below the last ones.
kills="$kills$(( RANDOM % np ))@d$(( 1 + RANDOM % (steps / every - 2) ))"
echo "heat_random: seed $seed (HEAT_SEED=$seed repeats it), kills $kills"
exec "$(dirname "$0")/heat_compare.sh" "$mpirun" "$heat" "$np" "$steps" "$every" "$kills" "$nkills" -- "$@"
