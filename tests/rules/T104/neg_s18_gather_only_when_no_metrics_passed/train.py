# stagec fixture: s18 neg_gather_only_when_no_metrics_passed (issue 22, class 2; review 22b's
#                 MOSS-RLHF metric.py:168: non-main ranks leave `display`, whose gather runs
#                 only when it is called without `gathered`, and every call passes it)
# named: on the command line (an accelerate script)
# runtime: multi-rank (Accelerator)
# expect: nothing: every rank gathers before `display`, which then only prints on the main rank.
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


if __name__ == "__main__":
    main()
