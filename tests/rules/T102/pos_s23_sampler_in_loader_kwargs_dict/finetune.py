# stagec fixture: pos_s23_sampler_in_loader_kwargs_dict (the fine-tuning script)
# named: on the command line with config_utils.py
# expect: none in this file
# ----
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader

from config_utils import get_dataloader_kwargs


def train(model, train_dataloader, eval_dataloader, optimizer, num_epochs):
    for epoch in range(num_epochs):
        model.train()
        for step, batch in enumerate(train_dataloader):
            loss = model(**batch).loss
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
        model.eval()
        for batch in eval_dataloader:
            with torch.no_grad():
                model(**batch)


def main(train_config, model, dataset_train, dataset_val):
    dist.init_process_group("nccl")
    train_dl_kwargs = get_dataloader_kwargs(train_config, dataset_train, "train")
    train_dl_kwargs["collate_fn"] = None
    train_dataloader = DataLoader(dataset_train, pin_memory=True, **train_dl_kwargs)
    val_dl_kwargs = get_dataloader_kwargs(train_config, dataset_val, "val")
    eval_dataloader = DataLoader(dataset_val, pin_memory=True, **val_dl_kwargs)
    optimizer = torch.optim.AdamW(model.parameters())
    train(model, train_dataloader, eval_dataloader, optimizer, train_config.num_epochs)


if __name__ == "__main__":
    main(None, None, None, None)
