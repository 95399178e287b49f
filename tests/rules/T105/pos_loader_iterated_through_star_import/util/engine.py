# stagec fixture: pos_loader_iterated_through_star_import (the epoch's loop)
# named: on the command line with main.py and util/__init__.py
# expect: none in this file
# ----
def train_one_epoch(model, loader, opt):
    for x, y in loader:
        loss = (model(x.cuda()) - y.cuda()).square().mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
