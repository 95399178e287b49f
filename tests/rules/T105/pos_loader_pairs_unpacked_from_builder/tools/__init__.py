from .runner import run_net as pretrain_run_net
