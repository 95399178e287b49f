# stagec fixture: the config object of pos_s24_walk_first_level_and_config_listing
# expect:
#   T110 at 16:28 and T110 at 19:26: the town and route listings, read through
#   `config.train_data` into the order of the dataset the sampler shards.
# ----
import os


class GlobalConfig:
    def __init__(self):
        self.root_dir = ""
        self.train_data = []

    def initialize(self, root_dir="", num_repetitions=3):
        self.root_dir = root_dir
        self.train_towns = os.listdir(self.root_dir)
        self.train_data = []
        for town in self.train_towns:
            root_files = os.listdir(os.path.join(self.root_dir, town))
            for file in root_files:
                if int(file.split("_")[-1]) >= num_repetitions:
                    continue
                self.train_data.append(os.path.join(self.root_dir, town, file))
