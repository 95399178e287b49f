# named: on the command line with the rest of the case
# ----
import importlib


class Runner:
    def __init__(self, args):
        self.args = args
        expert = importlib.import_module(f"tasks.{args.task}.expert")
        self.expert = expert.Expert(args.root)

    def train(self):
        for epoch in range(10):
            for batch in self.expert.train_loader():
                self.expert.step(batch)
