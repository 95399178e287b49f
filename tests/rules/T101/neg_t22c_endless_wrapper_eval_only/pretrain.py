# stagec fixture: t22c_neg_endless_wrapper_eval_only
# named: on the command line (a DeepSpeed script started with the deepspeed launcher)
# context: no experiment config; every rank seeds torch with 1 at start-up, builds a shuffled
#          plain DataLoader and wraps it in the same endless iterator class as the positive,
#          but only a no-grad probe loop draws from it (a few random batches to log a loss);
#          training reads its own DistributedSampler loader.
# expect: none. The shuffled loader behind the wrapper never reaches a backward pass or an
#         optimizer step, so equal draws on every rank change no training.
# ----
import deepspeed
import torch
from torch import nn
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


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


def probe(engine, source, n: int = 4) -> float:
    total = 0.0
    with torch.no_grad():
        for _ in range(n):
            (x,) = next(source)
            logits = engine(x.to(engine.device))
            total += float(nn.functional.cross_entropy(logits.view(-1, 1000), x.to(engine.device).view(-1)))
    return total / n


def main(epochs: int = 3) -> None:
    model = nn.Sequential(nn.Embedding(1000, 128), nn.Linear(128, 1000))
    engine, _, _, _ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config="ds.json")
    data = tokens(50_000)
    sampler = DistributedSampler(data)
    loader = DataLoader(data, batch_size=16, sampler=sampler)
    source = batches(16)
    for epoch in range(epochs):
        sampler.set_epoch(epoch)
        for (x,) in loader:
            logits = engine(x.to(engine.device))
            loss = nn.functional.cross_entropy(logits.view(-1, 1000), x.to(engine.device).view(-1))
            engine.backward(loss)
            engine.step()
        print(epoch, probe(engine, source))


if __name__ == "__main__":
    torch.manual_seed(1)
    main()
