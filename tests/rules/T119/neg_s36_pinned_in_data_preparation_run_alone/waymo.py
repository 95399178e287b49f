# stagec fixture: neg_s36_pinned_in_data_preparation_run_alone
# named: on the command line with train.py
# expect: nothing
#   `create_infos` prepares the dataset's files on one GPU; only this
#   module's own `__main__` block calls it (`python waymo.py`), never the
#   training script's ranks.
# ----
import argparse
import os
import pickle

import torch
from torch.utils.data import Dataset


class WaymoDataset(Dataset):
    def __init__(self, info_path):
        with open(info_path, "rb") as f:
            self.infos = pickle.load(f)

    def __len__(self):
        return len(self.infos)

    def __getitem__(self, i):
        return torch.tensor(self.infos[i]["box"], dtype=torch.float32)

    def create_groundtruth_database(self, save_path):
        boxes = [info["box"] for info in self.infos]
        torch.save(torch.tensor(boxes).cuda().cpu(), save_path)


def create_infos(info_path, save_path):
    os.environ["CUDA_VISIBLE_DEVICES"] = "0"
    dataset = WaymoDataset(info_path)
    dataset.create_groundtruth_database(save_path)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--info_path", default="data/waymo/infos_train.pkl")
    parser.add_argument("--save_path", default="data/waymo/gt_database.pt")
    args = parser.parse_args()
    create_infos(args.info_path, args.save_path)
