# stagec fixture: s34 pos_config_dict_count_shared_over_node (issue 22, class 5; review 45b's
#                 CurricularFace M14: a config dict of the code, `dict(NUM_WORKERS=5, …)` kept
#                 under an int key, gives the node's count, and each spawned rank takes its
#                 share, rounded up, in a local)
# named: on the command line (`python train.py`, which spawns one rank per GPU)
# expect: T105 at 33:91 (5 workers shared over the node's ranks: at least 1 per rank)
# ----
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torchvision.datasets as datasets
import torchvision.transforms as transforms

from config import configurations


def main():
    cfg = configurations[1]
    ngpus_per_node = torch.cuda.device_count()
    mp.spawn(main_worker, nprocs=ngpus_per_node, args=(ngpus_per_node, cfg))


def main_worker(gpu, ngpus_per_node, cfg):
    dist.init_process_group(backend="nccl", init_method=cfg["DIST_URL"], world_size=ngpus_per_node, rank=gpu)
    torch.cuda.set_device(gpu)
    batch_size = int(cfg["BATCH_SIZE"] / ngpus_per_node)
    workers = int((cfg["NUM_WORKERS"] + ngpus_per_node - 1) / ngpus_per_node)
    dataset = datasets.ImageFolder(cfg["DATA_ROOT"], transforms.ToTensor())
    sampler = torch.utils.data.distributed.DistributedSampler(dataset)
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(3, 10).cuda(gpu), device_ids=[gpu])
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    loader = torch.utils.data.DataLoader(
        dataset, batch_size=batch_size, sampler=sampler, drop_last=True, pin_memory=True, num_workers=workers
    )
    for epoch in range(cfg["NUM_EPOCH"]):
        sampler.set_epoch(epoch)
        for images, labels in loader:
            loss = torch.nn.functional.cross_entropy(model(images.cuda(gpu).mean((2, 3))), labels.cuda(gpu))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()


if __name__ == "__main__":
    main()
