# named: on the command line
# expect: none here (the loaders are built in tools/builder.py)
# ----
import torch

from tools import builder


def validate(model, loader):
    with torch.no_grad():
        return sum(float(model(x).mean()) for (x,) in loader)


def run_net(args, model):
    (train_sampler, train_loader), (_, test_loader), = builder.dataset_builder(args, "train"), \
                                                      builder.dataset_builder(args, "val")
    (_, extra_loader) = builder.dataset_builder(args, "extra") if args.extra else (None, None)
    opt = torch.optim.AdamW(model.parameters())
    for epoch in range(300):
        if train_sampler is not None:
            train_sampler.set_epoch(epoch)
        for (x,) in train_loader:
            loss = model(x.cuda()).square().mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        print(validate(model, test_loader))
        if extra_loader is not None:
            print(validate(model, extra_loader))
