# stagec fixture: s34 neg_config_dict_count_floor_shared (issue 22, class 5; the look-alike of
#                 pos_s34_config_dict_count_shared_over_node: each rank's share is rounded down,
#                 so on a node with more GPUs than the config's 5 workers it is 0)
# named: on the command line (`python train.py`, which spawns one rank per GPU)
# expect: nothing (the count may be 0)
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
    workers = cfg["NUM_WORKERS"] // ngpus_per_node
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
