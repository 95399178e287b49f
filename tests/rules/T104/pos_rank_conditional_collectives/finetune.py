# stagec fixture: h03_pos_rank_conditional_collectives
# context: const.yaml entrypoint "python3 -m determined.launch.torch_distributed python3 finetune.py",
#          resources.slots_per_trial: 4
# runtime: Determined Core API + torch.distributed
# expect:
#   T104 at 33:14 checkpoint.restore_path() with the default
#        download mode (LocalWorkersShareDownload) is a collective in Determined's Core API: every
#        worker must call it. Here only rank 0 does; the other ranks never join its allgather.
#   T104 at 48:13 dist.barrier() only on rank 0: no other rank calls a barrier in
#        this function, so rank 0 waits forever.
#   (no finding for store_path under rank 0: with shard=False it is chief-only by design; no
#    finding for the report_* calls under rank 0)
# ----
import torch
import torch.distributed as dist
from torch import nn

import determined as det


def load_weights(model: nn.Module, path) -> int:
    state = torch.load(path / "model.pt", map_location="cpu")
    model.load_state_dict(state["model"])
    return state["epoch"]


def main(core: det.core.Context) -> None:
    info = det.get_cluster_info()
    rank = core.distributed.rank
    model = nn.Linear(256, 256)
    start = 0
    if rank == 0 and info.latest_checkpoint is not None:
        with core.checkpoint.restore_path(info.latest_checkpoint) as path:
            start = load_weights(model, path)
    start = core.distributed.broadcast(start)
    model = nn.parallel.DistributedDataParallel(model.cuda())
    opt = torch.optim.SGD(model.parameters(), lr=0.01)

    for epoch in range(start, 10):
        loss = model(torch.randn(32, 256, device="cuda")).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        if rank == 0:
            core.train.report_training_metrics(steps_completed=epoch + 1, metrics={"loss": loss.item()})
            with core.checkpoint.store_path({"steps_completed": epoch + 1}) as (path, _):
                torch.save({"model": model.module.state_dict(), "epoch": epoch + 1}, path / "model.pt")
            dist.barrier()
        if core.preempt.should_preempt():
            return


if __name__ == "__main__":
    dist.init_process_group("nccl")
    with det.core.init(distributed=det.core.DistributedContext.from_torch_distributed()) as core_context:
        main(core_context)
