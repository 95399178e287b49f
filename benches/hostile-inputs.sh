#!/usr/bin/env bash
# Writes the inputs of benches/README.md's "inputs that were quadratic" table,
# one folder each, under DIR, and times `stagec` on each:
#
#   benches/hostile-inputs.sh DIR [STAGEC]     # STAGEC: default target/release/stagec
#
# Each folder is the experiment's whole context, so nothing else is read.
set -euo pipefail
dir=${1:?usage: benches/hostile-inputs.sh DIR [STAGEC]}
stagec=$(realpath "${2:-target/release/stagec}")
mkdir -p "$dir"
cd "$dir"

head='name: x
entrypoint: python3 train.py
searcher: {name: single, metric: loss, max_length: {batches: 10}}'
model='from determined.hpp import stage_decorator
import torch.nn as nn
@stage_decorator(stage_id=0, device="a100", dtype="bf16")
class S0(nn.Module):
    pass
@stage_decorator(stage_id=1, device="a100", dtype="bf16")
class S1(nn.Module):
    pass
class M(nn.Module):
    def __init__(self):
        self.a = S0()
        self.b = S1()'

fresh() { rm -rf "$1" && mkdir -p "$1"; }

fresh keys-40k
seq 0 39999 | sed 's/.*/k&: 1/' > keys-40k/const.yaml

fresh keys-600k
seq 0 599999 | sed 's/.*/k&: 1/' > keys-600k/const.yaml

fresh references-40k
{ echo "$head"; printf 'description: "'; seq 0 39999 | sed 's/.*/${V&}/' | tr '\n' ' '; echo '"'; } \
    > references-40k/const.yaml

fresh gpu-names-20k
{ echo "$head"; echo "resources:"; echo "  slots_per_trial: 2"; echo "  custom:"
  echo "    stage_0_gpus: [$(seq 0 19999 | sed 's/.*/zz&/' | paste -sd, -)]"; } \
    > gpu-names-20k/const.yaml
echo "$model" > gpu-names-20k/model.py

fresh inventory-20k
{ echo "$head"; echo "resources: {slots_per_trial: 2}"
  echo "hyperparameters: {global_batch_size: 8, hpp_config: {pipeline_parallel_degree: 2, micro_batch_size: 2}}"; } \
    > inventory-20k/const.yaml
echo "$model" > inventory-20k/model.py
{ echo "nodes:"; seq 0 19999 | sed 's/.*/  - name: n&\n    gpus: {type: zz&, count: 8}/'; } > inventory-20k/cluster.yaml

fresh merges-20k
{ echo "$head"; echo "defs:"; seq 0 19999 | sed 's/.*/  a&: \&a& {k&: 1}/'
  echo "environment:"; echo "  <<: [$(seq 0 19999 | sed 's/.*/*a&/' | paste -sd, -)]"; } \
    > merges-20k/const.yaml

fresh plan-10k
{ echo "name: big"; echo "entrypoint: python train.py"; echo "resources:"
  echo "  slots_per_trial: 10000"; echo "  custom:"
  seq 0 9999 | sed 's/.*/    stage_&_gpus: [a100-40g]/'
  echo "searcher: {name: single, metric: loss, max_length: {batches: 100}}"
  echo "hyperparameters:"; echo "  global_batch_size: 80000"
  echo "  hpp_config: {pipeline_parallel_degree: 10000, micro_batch_size: 1, schedule: 1f1b}"
  echo "checkpoint_storage: {type: shared_fs, host_path: /mnt/checkpoints}"; } > plan-10k/const.yaml
{ echo "stages:"; seq 0 9999 | sed 's/.*/  - {id: &, name: s&, device: a100-40g, dtype: bf16}/'; } \
    > plan-10k/stages.yaml

# Issue 21 item 10: fixable findings in one large mapping (block, and one
# flow mapping on a single 7 MB line), and a folder of 2,000 experiments.
fresh log-hps-12k
{ echo "$head"; echo "hyperparameters:"
  seq 0 11999 | sed 's/.*/  lr\&:\n    type: log\n    minval: 1e-5\n    maxval: 1e-2/'; } > log-hps-12k/const.yaml

fresh flow-line-50k
{ echo "$head"; printf 'hyperparameters: {'
  seq 0 49999 | sed 's/.*/h\&: {type: log, minval: 1e-5, maxval: 1e-2, pad: "éééééééééééééééééééééééééééééééééééééééé"}/' | paste -sd, -
  echo '}'; } > flow-line-50k/const.yaml

fresh folder-2k
for i in $(seq 0 1999); do
    mkdir -p "folder-2k/e$i"
    printf '%s\nhyperparameters: {global_batch_size: 8, hpp_config: {pipeline_parallel_degree: 2, micro_batch_size: 2}}\n' "$head" \
        > "folder-2k/e$i/const.yaml"
    echo "$model" > "folder-2k/e$i/model.py"
done

run() {
    local label=$1
    shift
    /usr/bin/time -f "$label: %e s, %M KiB" "$stagec" "$@" > "$label.out" 2> "$label.err" || true
    tail -n 1 "$label.err"
    echo "  output: $(wc -c < "$label.out") bytes"
}
run keys-40k check keys-40k/const.yaml
run keys-600k check keys-600k/const.yaml
run references-40k check references-40k/const.yaml
run gpu-names-20k check gpu-names-20k/const.yaml
run inventory-20k check inventory-20k/const.yaml --inventory inventory-20k/cluster.yaml
run merges-20k check merges-20k/const.yaml
run plan-10k plan plan-10k/const.yaml --out plan-10k/plan
run log-hps-12k check log-hps-12k/const.yaml
run flow-line-50k check flow-line-50k/const.yaml
run folder-2k check folder-2k
