# stagec fixture: neg_s21_loader_kept_by_template_subclass_passes_once (trainer.py)
# named: with the other files of the case
# expect: nothing in this file
# ----
import torch.distributed as dist
from tqdm import tqdm

from template import TrainerTemplate


class Trainer(TrainerTemplate):
    def train(self, optimizer, epoch=0):
        self.model.train()
        if dist.get_rank() == 0:
            pbar = tqdm(enumerate(self.loader_trn), total=len(self.loader_trn))
        else:
            pbar = enumerate(self.loader_trn)
        for it, (x, y) in pbar:
            loss = (self.model(x.cuda()) - y.cuda()).pow(2).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
