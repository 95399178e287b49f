# stagec fixture: s27 pos_base_init_through_subclass (the trainers)
# expect:
#   T105 at 39:21 min(self.configs.train.num_workers, 4) = 4, the base's `__init__` bound by
#        `TrainerSR(configs)`
# ----
import torch
import torch.distributed as dist
import torch.utils.data as udata


class TrainerBase:
    def __init__(self, configs):
        self.configs = configs
        self.setup_dist()

    def setup_dist(self):
        self.num_gpus = torch.cuda.device_count()
        if self.num_gpus > 1:
            dist.init_process_group(backend="nccl")
        self.rank = dist.get_rank() if self.num_gpus > 1 else 0

    def build_dataloader(self):
        def _wrap_loader(loader):
            while True:
                yield from loader

        dataset = udata.TensorDataset(torch.randn(4096, 8))
        if self.num_gpus > 1:
            sampler = udata.distributed.DistributedSampler(dataset, num_replicas=self.num_gpus, rank=self.rank)
        else:
            sampler = None
        self.dataloaders = {
            "train": _wrap_loader(
                udata.DataLoader(
                    dataset,
                    batch_size=8,
                    shuffle=False if self.num_gpus > 1 else True,
                    drop_last=True,
                    num_workers=min(self.configs.train.num_workers, 4),
                    pin_memory=True,
                    sampler=sampler,
                )
            )
        }

    def train(self):
        self.model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(8, 1).cuda())
        self.build_dataloader()
        for ii in range(self.configs.train.iterations):
            (x,) = next(self.dataloaders["train"])
            self.model(x.cuda()).sum().backward()


class TrainerDiffusion(TrainerBase):
    def training_step(self, x):
        return x


class TrainerSR(TrainerDiffusion):
    pass
