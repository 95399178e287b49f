# stagec fixture: pos_s36_kept_loader_handed_on_by_method_called_in_loop
# named: on the command line with search.py
# expect: nothing
# ----
import torch


@torch.no_grad()
def evaluate(loader, model, width):
    correct, seen = 0, 0
    for x, y in loader:
        out = model(x.cuda()[:, :width].repeat(1, 8 // width + 1)[:, :8])
        correct += (out.argmax(1) == y.cuda()).sum().item()
        seen += len(y)
    return correct / max(seen, 1)
