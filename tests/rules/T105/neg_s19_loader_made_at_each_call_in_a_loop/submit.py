# stagec fixture: s19 neg_loader_made_at_each_call_in_a_loop (issue 22, class 9; the look-alike of
#                 pos_s19_options_instance_in_main_block: a tracker's `detect()` makes its loader
#                 and passes over it once; the script calls it for each of its rank's videos, so
#                 each call has a new loader that persistent_workers could not keep)
# named: on the command line (a tracking submission script)
# runtime: multi-rank (ranks from the launcher's environment)
# expect: nothing
# ----
import argparse
import os

import torch
from torch.utils.data import DataLoader, Dataset


class Frames(Dataset):
    def __init__(self, paths):
        self.paths = paths

    def __len__(self):
        return len(self.paths)

    def __getitem__(self, i):
        return torch.load(self.paths[i])


class Detector:
    def __init__(self, args, model, vid):
        self.args = args
        self.model = model
        self.frames = sorted(os.path.join(vid, f) for f in os.listdir(vid))

    def detect(self, threshold=0.6):
        loader = DataLoader(Frames(self.frames), 1, num_workers=2)
        kept = 0
        for frame in loader:
            with torch.no_grad():
                kept += int((self.model(frame.cuda()) > threshold).sum())
        return kept


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--videos", default="videos")
    args = parser.parse_args()
    model = torch.nn.Linear(8, 1).cuda().eval()
    vids = sorted(os.path.join(args.videos, v) for v in os.listdir(args.videos))
    rank = int(os.environ.get("RANK", "0"))
    world = int(os.environ.get("WORLD_SIZE", "1"))
    for vid in vids[rank::world]:
        det = Detector(args, model, vid)
        det.detect()
