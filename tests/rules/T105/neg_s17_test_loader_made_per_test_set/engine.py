# stagec fixture: neg_s17_test_loader_made_per_test_set (the trainer)
# named: on the command line with data.py and train.py
# expect: none in this file
# ----
import torch

from data import build_test_loader


def inference_on_dataset(model, data_loader):
    total = 0.0
    with torch.no_grad():
        for (x,) in data_loader:
            total += model(x.cuda()).sum().item()
    return total


class Trainer:
    def __init__(self, model, optimizer, test_sets):
        self.model = model
        self.optimizer = optimizer
        self.test_sets = test_sets

    @classmethod
    def build_evaluator(cls, dataset_name):
        data_loader, num_query = build_test_loader(dataset_name, batch_size=128)
        return data_loader, num_query

    def test(self):
        results = {}
        for dataset_name in self.test_sets:
            data_loader, num_query = self.build_evaluator(dataset_name)
            results[dataset_name] = inference_on_dataset(self.model, data_loader) / num_query
        return results

    def train(self, epochs, steps):
        for epoch in range(epochs):
            for _ in range(steps):
                loss = self.model(torch.randn(32, 64).cuda()).pow(2).mean()
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
            self.test()
