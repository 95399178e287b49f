import torch.distributed as dist
import torch.multiprocessing as mp


def launch(fn, n_gpu_per_machine, args=()):
    if n_gpu_per_machine > 1:
        mp.spawn(distributed_worker, nprocs=n_gpu_per_machine, args=(fn, n_gpu_per_machine, args))
    else:
        fn(0, *args)


def distributed_worker(local_rank, fn, world_size, args):
    dist.init_process_group(backend="nccl", init_method="tcp://127.0.0.1:29500", world_size=world_size, rank=local_rank)
    fn(local_rank, *args)
