# stagec fixture: neg_s29_randperm_orders_own_camera_schedule (look-alike of the randperm cases;
#   Grendel-GS's shape: every rank seeds torch with 0 and draws the same permutation of the
#   cameras in its own scheduler class, because the ranks split the rendering of each camera
#   batch between them; nothing wraps the model for data parallelism, nothing shards samples)
# named: on the command line (a torchrun script, no config)
# runtime: multi-rank (init_process_group, all_reduce)
# expect: nothing
# ----
import torch
import torch.distributed as dist


class CameraSchedule:
    def __init__(self, cameras):
        self.cameras = cameras
        self.cur_epoch_cameras = []

    def next_batch(self, bsz):
        batch = []
        for _ in range(bsz):
            if len(self.cur_epoch_cameras) == 0:
                order = list(range(len(self.cameras)))
                indices = torch.randperm(len(order))
                self.cur_epoch_cameras = [order[i] for i in indices]
            batch.append(self.cameras[self.cur_epoch_cameras.pop(0)])
        return batch


def main(cameras, gaussians, render, iterations):
    dist.init_process_group("nccl")
    torch.manual_seed(0)
    schedule = CameraSchedule(cameras)
    rank, world = dist.get_rank(), dist.get_world_size()
    for _ in range(iterations):
        batch = schedule.next_batch(16)
        mine = batch[rank::world]
        loss = sum(render(gaussians, cam).mean() for cam in mine)
        loss.backward()
        for p in gaussians.parameters():
            dist.all_reduce(p.grad)
