# stagec fixture: pos_s13_function_handed_to_launcher (the launcher)
# named: imported by run_net.py
# expect: none in this file
# ----
import torch
import torch.distributed as dist


def run(local_rank, num_proc, func, init_method, cfg):
    dist.init_process_group("nccl", init_method=init_method, world_size=num_proc, rank=local_rank)
    torch.cuda.set_device(local_rank)
    func(cfg=cfg)


def launch_job(cfg, init_method, func):
    if cfg.gpus > 1:
        torch.multiprocessing.spawn(run, nprocs=cfg.gpus, args=(cfg.gpus, func, init_method, cfg))
    else:
        func(cfg=cfg)
