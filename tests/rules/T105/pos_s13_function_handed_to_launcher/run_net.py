# stagec fixture: pos_s13_function_handed_to_launcher (issue 22, class 9: SlowFast's launcher)
# named: on the command line with launch.py and train_net.py (`python run_net.py --gpus 8`)
# context: the entry hands `train` to a launcher as a value (`launch_job(cfg=cfg, func=train)`),
#          which starts one process per GPU (`mp.spawn(run, args=(…, func, …, cfg))`) whose
#          `run` calls `func(cfg=cfg)`; the worker count is the parsed flag's default.
# expect: none in this file
# ----
import argparse

from launch import launch_job
from train_net import train


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--workers", type=int, default=8)
    p.add_argument("--gpus", type=int, default=8)
    cfg = p.parse_args()
    launch_job(cfg=cfg, init_method="tcp://localhost:9999", func=train)


if __name__ == "__main__":
    main()
