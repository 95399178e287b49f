# stagec fixture: pos_s12_eval_helper_with_barriers (issue 22, class 6: open_lm's shape)
# named: on the command line (a torchrun script, no config)
# runtime: multi-rank (init_process_group, DDP)
# expect:
#   T103 at 48:9 `except Exception` around a call into evaluate_all, which
#        evaluates each set between two barriers: an error while evaluating on
#        one rank skips its second barrier and the rest, the rank goes on to the
#        next epoch's gradient all-reduce while the others wait in the barrier.
# ----
import logging

import torch
import torch.distributed as dist
from torch import nn


def evaluate(model, data):
    total = torch.zeros(1, device="cuda")
    with torch.no_grad():
        for (x,) in data:
            total += model(x.cuda()).square().mean()
    return total.item()


def evaluate_all(model, sets, args):
    results = []
    for data in sets:
        dist.barrier()
        results.append(evaluate(model, data))
        dist.barrier()
    return results


def main(args, train_loader, val_sets):
    dist.init_process_group("nccl")
    model = nn.parallel.DistributedDataParallel(nn.Linear(8, 1).cuda())
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(args.epochs):
        for (x,) in train_loader:
            loss = model(x.cuda()).square().mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        try:
            metrics = evaluate_all(model, val_sets, args)
            if dist.get_rank() == 0:
                logging.info("epoch %d: %s", epoch, metrics)
        except Exception as e:
            if dist.get_rank() == 0:
                logging.error(e)
                logging.warning("evaluation failed, continuing")
