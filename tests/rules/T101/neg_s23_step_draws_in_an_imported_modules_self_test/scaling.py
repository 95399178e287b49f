# stagec fixture: neg_s23_step_draws_in_an_imported_modules_self_test (the model's layers)
# named: on the command line with train.py
# context: SLAM-LLM's `scaling.py`: a layer module the model imports keeps a self-test,
#          `_test_max_eig()`, that draws random inputs and runs backward passes in a loop; only
#          the module's own main guard calls it, so it never runs in the training program.
# expect: nothing
# ----
import torch


class Balancer(torch.nn.Module):
    def __init__(self, d):
        super().__init__()
        self.proj = torch.nn.Linear(d, d)

    def forward(self, x):
        return self.proj(x)


def _test_max_eig():
    m = Balancer(128)
    for proportion in [0.1, 0.5, 10.0]:
        x = torch.randn(100, 128)
        y = m(x)
        y.sum().backward()


if __name__ == "__main__":
    _test_max_eig()
