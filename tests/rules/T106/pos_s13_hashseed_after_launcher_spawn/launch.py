# stagec fixture: pos_s13_hashseed_after_launcher_spawn (the launcher)
# named: imported by train.py
# expect: none in this file
# ----
import torch.distributed as dist
import torch.multiprocessing as mp


def launch(main_func, num_gpus_per_machine, cfg=()):
    if num_gpus_per_machine > 1:
        mp.spawn(_distributed_worker, nprocs=num_gpus_per_machine, args=(main_func, num_gpus_per_machine, cfg))
    else:
        main_func(*cfg)


def _distributed_worker(local_rank, main_func, world_size, cfg):
    dist.init_process_group("nccl", init_method="tcp://127.0.0.1:29500", world_size=world_size, rank=local_rank)
    main_func(*cfg)
