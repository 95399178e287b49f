# stagec fixture: s11 neg_helper_with_idle_runner (the runners)
# named: on the command line with main.py and tools/builder.py
# expect: none in this file
# ----
import yaml

from tools import builder


def run_net(args, config):
    with open(args.config) as f:
        opts = yaml.safe_load(f)
    train_sampler, train_loader = builder.dataset_builder(opts, config.train)
    for epoch in range(config.max_epoch):
        train_sampler.set_epoch(epoch)
        for batch in train_loader:
            pass


class TestOptions:
    num_workers = 1


class EvalOptions:
    num_workers = 2


def test_net(config):
    _, test_loader = builder.dataset_builder(TestOptions(), config.test)
    for batch in test_loader:
        pass


def eval_net(config):
    _, test_loader = builder.dataset_builder(EvalOptions(), config.test)
    for batch in test_loader:
        pass
