# stagec fixture: the config object of neg_s24_config_listing_sorted_by_dataset
# expect: nothing (the dataset sorts the list it is given)
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
        self.train_towns = os.listdir(self.root_dir)
        self.train_data = []
        for town in self.train_towns:
            root_files = os.listdir(os.path.join(self.root_dir, town))
            for file in root_files:
                if int(file.split("_")[-1]) >= num_repetitions:
                    continue
                self.train_data.append(os.path.join(self.root_dir, town, file))
