# stagec fixture: s24 neg_skip_when_collector_answers_none (issue 22, class 6; review 31a's oat:
#                 the learner asks its collector for feedback on each prompt batch and goes on
#                 to the next batch while the asynchronous collector is still filling, which
#                 it is on every rank alike; not a test of what this rank's batch holds)
# named: on the command line (`torchrun --nproc_per_node 8 learner.py`)
# expect: nothing
# ----
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler


class Collector:
    def __init__(self, asynchronous):
        self.asynchronous = asynchronous
        self.pending = None

    def collect_feedback(self, prompts):
        if self.asynchronous and self.pending is None:
            self.pending = prompts
            return None
        return prompts * 2


class Learner:
    def __init__(self):
        self.collector = Collector(asynchronous=True)
        self.model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(4, 1).cuda())
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=1e-5)

    def run(self, loader):
        for epoch in range(3):
            loader.sampler.set_epoch(epoch)
            for (prompts,) in loader:
                feedback = self.collector.collect_feedback(prompts)
                if feedback is None:
                    continue
                loss = self.model(feedback.cuda()).mean()
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()


if __name__ == "__main__":
    dist.init_process_group("nccl")
    data = TensorDataset(torch.randn(1024, 4))
    loader = DataLoader(data, batch_size=8, sampler=DistributedSampler(data))
    Learner().run(loader)
