# stagec fixture: t22a pos_argparse_workers (helper module)
# named: on the command line with train.py and dist_utils.py
# expect: none in this file
# ----
import time


class StepLogger:
    def __init__(self, every=50):
        self.every = every

    def track(self, iterable, header=""):
        start = time.time()
        for i, item in enumerate(iterable):
            if i % self.every == 0:
                print(header, i, time.time() - start)
            yield item
