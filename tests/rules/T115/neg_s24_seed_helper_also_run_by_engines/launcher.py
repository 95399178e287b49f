import torch.distributed as dist
import torch.multiprocessing as mp

from engines import run_engine


def launch_distributed(cfg, node_id, engine_name, hook_generator):
    mp.spawn(_distributed_worker, nprocs=cfg["gpus"], args=(cfg, node_id, engine_name, hook_generator))


def _distributed_worker(local_rank, cfg, node_id, engine_name, hook_generator):
    dist.init_process_group("nccl", init_method="tcp://127.0.0.1:29500", world_size=cfg["gpus"], rank=local_rank)
    hooks = hook_generator(cfg)
    run_engine(engine_name, cfg, local_rank)
