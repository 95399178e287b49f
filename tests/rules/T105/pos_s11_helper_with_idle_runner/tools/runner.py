# stagec fixture: s11 pos_helper_with_idle_runner (the runners)
# named: on the command line with main.py and tools/builder.py
# expect: none in this file
# ----
from tools import builder


def run_net(args, config):
    train_sampler, train_loader = builder.dataset_builder(args, config.train)
    for epoch in range(config.max_epoch):
        train_sampler.set_epoch(epoch)
        for batch in train_loader:
            pass


def test_net(args, config):
    _, test_loader = builder.dataset_builder(args, config.test)
    for batch in test_loader:
        pass
