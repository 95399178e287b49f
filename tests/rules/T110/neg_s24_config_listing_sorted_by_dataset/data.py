# stagec fixture: the dataset of neg_s24_config_listing_sorted_by_dataset
# expect: nothing
#
#
# ----
import os

import numpy as np
from torch.utils.data import Dataset


class DrivingData(Dataset):
    def __init__(self, root, seq_len=1):
        self.images = []
        for sub_root in sorted(root):
            routes = sorted(next(os.walk(sub_root))[1])
            for route in routes:
                route_dir = sub_root + "/" + route
                num_seq = len(os.listdir(route_dir + "/lidar"))
                for seq in range(num_seq - seq_len):
                    image = []
                    for idx in range(seq_len):
                        image.append(route_dir + "/rgb" + f"/{(seq + idx):04}.jpg")
                    self.images.append(image)

    def __len__(self):
        return len(self.images)

    def __getitem__(self, index):
        return np.load(self.images[index][0])
