# stagec fixture: s31 pos_step_in_trainer_class_chosen_by_flag (issue 22, class 2; DeepSpeed-Chat's
#   RLHF step 3: the trainer's class is chosen by a flag, and the prompt loader's batches reach the
#   optimizer only inside the chosen trainer's method)
# named: on the command line (`deepspeed step3.py --num_train_epochs 3`)
# expect:
#   T102 at 47:26 the prompt sampler shuffles and nothing calls set_epoch; the loader is passed
#        over once per epoch, and the batches train through `trainer.train_rlhf(…)`
# ----
import argparse

import deepspeed
import torch
from torch.utils.data import DataLoader, RandomSampler, TensorDataset
from torch.utils.data.distributed import DistributedSampler


class PPOTrainer:
    def __init__(self, engine, args):
        self.engine = engine
        self.args = args

    def train_rlhf(self, batch):
        loss = self.engine(batch[0]).pow(2).mean()
        self.engine.backward(loss)
        self.engine.step()
        return loss


class PPOTrainerUnsupervised(PPOTrainer):
    def train_unsupervised(self, batch):
        loss = self.engine(batch[0]).mean()
        self.engine.backward(loss)
        self.engine.step()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--local_rank", type=int, default=-1)
    parser.add_argument("--num_train_epochs", type=int, default=1)
    parser.add_argument("--unsupervised", action="store_true")
    args = parser.parse_args()
    deepspeed.init_distributed()
    prompts = TensorDataset(torch.randn(512, 16))
    if args.local_rank == -1:
        prompt_sampler = RandomSampler(prompts)
    else:
        prompt_sampler = DistributedSampler(prompts)
    prompt_loader = DataLoader(prompts, sampler=prompt_sampler, batch_size=8)
    engine, *_ = deepspeed.initialize(args=args, model=torch.nn.Linear(16, 1))
    trainer_class = PPOTrainerUnsupervised if args.unsupervised else PPOTrainer
    trainer = trainer_class(engine, args)
    for epoch in range(args.num_train_epochs):
        for step, batch in enumerate(prompt_loader):
            trainer.train_rlhf(batch)


if __name__ == "__main__":
    main()
