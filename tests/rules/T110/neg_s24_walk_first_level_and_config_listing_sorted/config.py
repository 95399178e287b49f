# stagec fixture: the config object of neg_s24_walk_first_level_and_config_listing_sorted
# expect: nothing
#
#
# ----
import os


class GlobalConfig:
    def __init__(self):
        self.root_dir = ""
        self.train_data = []

    def initialize(self, root_dir="", num_repetitions=3):
        self.root_dir = root_dir
        self.train_towns = sorted(os.listdir(self.root_dir))
        self.train_data = []
        for town in self.train_towns:
            root_files = sorted(os.listdir(os.path.join(self.root_dir, town)))
            for file in root_files:
                if int(file.split("_")[-1]) >= num_repetitions:
                    continue
                self.train_data.append(os.path.join(self.root_dir, town, file))
