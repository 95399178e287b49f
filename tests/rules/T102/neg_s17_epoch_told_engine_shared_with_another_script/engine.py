# stagec fixture: neg_s17_epoch_told_engine_shared_with_another_script (the engine)
# named: on the command line with main.py and benchmark.py
# context: a detection repository: main.py builds the training sampler and tells it the epoch;
#          the engine's train_one_epoch passes over the loader. A second script imports the
#          engine too (to time its steps) but builds no sampler: main.py's sampler runs only in
#          main.py's program, where set_epoch is called.
# expect: none
# ----
import torch


def train_one_epoch(model, data_loader, optimizer):
    model.train()
    for x, y in data_loader:
        loss = torch.nn.functional.cross_entropy(model(x.cuda()), y.cuda())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
