# stagec fixture: s25 neg_loaders_combined_by_lightning_told_the_epoch (issue 22, class 3; the
#                 look-alike of pos_s25_loaders_combined_by_lightning: the epoch loop tells the
#                 image loader's sampler the epoch)
# named: on the command line (`accelerate launch train.py`)
# expect: nothing
# ----
import torch
from accelerate import Accelerator
from lightning.pytorch.utilities import CombinedLoader
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


def main():
    accelerator = Accelerator()
    model = torch.nn.Linear(4, 4)
    optimizer = torch.optim.AdamW(model.parameters())
    model, optimizer = accelerator.prepare(model, optimizer)
    dataset_a = TensorDataset(torch.randn(100, 4))
    sampler = DistributedSampler(dataset_a, num_replicas=accelerator.num_processes, rank=accelerator.process_index, shuffle=True)
    loader_a = DataLoader(dataset_a, batch_size=4, sampler=sampler, num_workers=0)
    dataset_b = TensorDataset(torch.randn(100, 4))
    loader_b = DataLoader(dataset_b, batch_size=4, num_workers=0)
    iterables = {"a": loader_a, "b": loader_b}
    combined = CombinedLoader(iterables, mode="max_size_cycle")
    for epoch in range(10):
        sampler.set_epoch(epoch)
        for batch, batch_idx, dataloader_idx in combined:
            loss = model(batch["a"][0]).mean()
            accelerator.backward(loss)
            optimizer.step()


if __name__ == "__main__":
    main()
