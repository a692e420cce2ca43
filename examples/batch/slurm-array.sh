#!/usr/bin/env bash
# A catalogue scored by a Slurm job array: one `vif batch` per array task, each taking its share
# of the manifest. Slurm sets SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_MIN and
# SLURM_ARRAY_TASK_COUNT, which `vif batch` reads when --shard is not given (any --array range
# works: the index is counted from its first task). Each task writes
# $OUT/summary.shard-I-of-N.csv and one output per row; re-submitting resumes (rows with a
# complete output are skipped).
#
#   sbatch examples/batch/slurm-array.sh /shared/manifest.csv /shared/out
#   # when every task is done:
#   vif merge /shared/out -o /shared/out/summary.csv
#
#SBATCH --job-name=vif-catalogue
#SBATCH --array=0-15
#SBATCH --cpus-per-task=16
#SBATCH --mem=16G
#SBATCH --time=02:00:00
## On GPU nodes: #SBATCH --gres=gpu:2   and add: --devices 0,1
set -euo pipefail
MANIFEST=${1:?usage: slurm-array.sh MANIFEST OUT_DIR}
OUT=${2:?usage: slurm-array.sh MANIFEST OUT_DIR}
exec vif batch "$MANIFEST" --out-dir "$OUT" -q
