# stagec fixture: s18 pos_display_gathers_when_called_bare (issue 22, class 2; the twin of
#                 neg_s18_gather_only_when_no_metrics_passed: the last call leaves `gathered`
#                 out, so the main rank gathers alone)
# named: on the command line (an accelerate script)
# runtime: multi-rank (Accelerator)
# expect:
#   T104 at 24:13 the non-main ranks leave; the main rank waits in the gather that the ranks which left never join.
# ----
import torch
from accelerate import Accelerator


class Metrics:
    def __init__(self, accelerator):
        self.accelerator = accelerator
        self.values = {"loss": 0.0}

    def gather(self):
        t = {k: torch.tensor([v], device=self.accelerator.device) for k, v in self.values.items()}
        return {k: v.mean().item() for k, v in self.accelerator.gather(t).items()}

    def display(self, step, gathered=None):
        if not self.accelerator.is_main_process:
            return
        results = self.gather() if gathered is None else gathered
        print(step, results)


def main():
    accelerator = Accelerator()
    model = accelerator.prepare(torch.nn.Linear(4, 1))
    metrics = Metrics(accelerator)
    for step in range(100):
        loss = model(torch.randn(8, 4)).mean()
        accelerator.backward(loss)
        metrics.values["loss"] = loss.item()
        if step % 10 == 0:
            gathered = metrics.gather()
            metrics.display(step, gathered=gathered)
    metrics.display(100)


if __name__ == "__main__":
    main()
