# stagec fixture: s31 neg_module_metadata_and_input_prep (issue 22, class "other": methods of the
#   wrapped module that run no forward: the names to exempt from weight decay and the layer count
#   for the optimizer's groups (timm/BEiT fine-tuning scripts), and a batch-building method
#   (DPR's `create_biencoder_input`); the training forward goes through the wrapper)
# named: on the command line (`torchrun --nproc_per_node 8 train.py`)
# expect: nothing
# ----
import os

import torch
import torch.distributed as dist


class Encoder(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = torch.nn.ModuleList([torch.nn.Linear(16, 16) for _ in range(4)])
        self.pos_embed = torch.nn.Parameter(torch.zeros(1, 16))

    def forward(self, x):
        for b in self.blocks:
            x = b(x + self.pos_embed)
        return x

    def no_weight_decay(self):
        return {"pos_embed"}

    def get_num_layers(self):
        return len(self.blocks)

    def create_input(self, samples, pad=0):
        width = max(len(s) for s in samples)
        return torch.tensor([s + [pad] * (width - len(s)) for s in samples], dtype=torch.float)


def train_one_epoch(model, model_without_ddp, batches, optimizer):
    for samples in batches:
        x = model_without_ddp.create_input(samples).cuda()
        loss = model(x).pow(2).mean()
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()


def main():
    dist.init_process_group("nccl")
    rank = int(os.environ["LOCAL_RANK"])
    model = torch.nn.parallel.DistributedDataParallel(Encoder().cuda(rank), device_ids=[rank])
    model_without_ddp = model.module
    skip = model_without_ddp.no_weight_decay()
    layers = model_without_ddp.get_num_layers()
    groups = [
        {"params": [p for n, p in model_without_ddp.named_parameters() if n not in skip], "weight_decay": 0.05},
        {"params": [p for n, p in model_without_ddp.named_parameters() if n in skip], "weight_decay": 0.0},
    ]
    optimizer = torch.optim.AdamW(groups, lr=1e-3 * 0.75 ** layers)
    batches = [[[1.0] * 16, [2.0] * 16]] * 100
    for epoch in range(10):
        train_one_epoch(model, model_without_ddp, batches, optimizer)


if __name__ == "__main__":
    main()
