# stagec fixture: s26 pos_worker_count_through_min_and_max (issue 22, class 9)
# context: the config class train.py builds (BiRefNet's shape).
# expect: nothing
# ----
class Config:
    def __init__(self):
        self.batch_size = 8
        self.num_workers = max(4, self.batch_size)
        self.epochs = 120
