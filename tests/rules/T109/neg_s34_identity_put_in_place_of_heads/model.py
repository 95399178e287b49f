# stagec fixture: neg_s34_identity_put_in_place_of_heads (issue 22, review 45b's hyp_metric
#   look-alike of T109's positives: a set of child names, intersected with the head names, decides
#   the order of add_module calls, but each call puts a parameterless nn.Identity in place of a head)
# named: on the command line (`torchrun --nproc_per_node=4 model.py`)
# runtime: multi-rank (init_process_group)
# expect: nothing (an nn.Identity holds no parameter or buffer, so no order of them moves one)
# ----
import torch
import torch.distributed as dist
import torch.nn as nn


def rm_head(m):
    names = set(x[0] for x in m.named_children())
    target = {"head", "fc", "head_dist"}
    for x in names & target:
        m.add_module(x, nn.Identity())


def main():
    dist.init_process_group("nccl")
    backbone = torch.hub.load("facebookresearch/dino:main", "dino_vits16")
    rm_head(backbone)
    model = nn.parallel.DistributedDataParallel(backbone.cuda())
    return model


if __name__ == "__main__":
    main()
