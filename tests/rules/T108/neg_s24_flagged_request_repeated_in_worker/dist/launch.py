import torch
import torch.distributed as dist
import torch.multiprocessing as mp


def launch(fn, n_gpu_per_machine, n_machine=1, machine_rank=0, dist_url="tcp://127.0.0.1:29500", args=()):
    world_size = n_machine * n_gpu_per_machine
    if world_size > 1:
        mp.spawn(
            distributed_worker,
            nprocs=n_gpu_per_machine,
            args=(fn, world_size, n_gpu_per_machine, machine_rank, dist_url, args),
            daemon=False,
        )
    else:
        fn(0, *args)


def distributed_worker(local_rank, fn, world_size, n_gpu_per_machine, machine_rank, dist_url, args):
    global_rank = machine_rank * n_gpu_per_machine + local_rank
    dist.init_process_group(backend="nccl", init_method=dist_url, world_size=world_size, rank=global_rank)
    torch.cuda.set_device(local_rank)
    fn(local_rank, *args)
