# stagec fixture: t22c_pos_endless_wrapper
# named: on the command line (a DeepSpeed script started with the deepspeed launcher)
# context: no experiment config; every rank seeds torch with 1 at start-up, builds a shuffled
#          plain DataLoader, wraps it in an endless iterator class and draws batches with next()
#          in the step loop. DeepSpeed gets no training_data, so nothing shards the loader.
# expect:
#   T101 at 40:70 DataLoader(shuffle=True) behind `Endless`: seeded alike, every rank draws the
#        same batches from the wrapper for all its steps.
# ----
import deepspeed
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


class Endless:
    """Restarts the wrapped iterable whenever it runs out."""

    def __init__(self, source):
        self.source = source
        self.current = iter(source)

    def __iter__(self):
        return self

    def __next__(self):
        try:
            return next(self.current)
        except StopIteration:
            self.current = iter(self.source)
            return next(self.current)


def tokens(n: int) -> TensorDataset:
    g = torch.Generator().manual_seed(99)
    return TensorDataset(torch.randint(0, 1000, (n, 64), generator=g))


def batches(batch_size: int) -> Endless:
    return Endless(DataLoader(tokens(50_000), batch_size=batch_size, shuffle=True))


def main(steps: int = 1000) -> None:
    model = nn.Sequential(nn.Embedding(1000, 128), nn.Linear(128, 1000))
    engine, _, _, _ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config="ds.json")
    source = batches(16)
    for _ in range(steps):
        (x,) = next(source)
        logits = engine(x.to(engine.device))
        loss = nn.functional.cross_entropy(logits.view(-1, 1000), x.to(engine.device).view(-1))
        engine.backward(loss)
        engine.step()


if __name__ == "__main__":
    torch.manual_seed(1)
    main()
