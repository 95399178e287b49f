# stagec fixture: s31 neg_name_reused_by_a_later_listing_loop (issue 22, class 8; STDC-Seg's
#   Cityscapes dataset: the image loop's listings are sorted and define the sample order; the label
#   loop after it lists unsorted, but only fills a dict looked up by name and a set compared with
#   the images; both loops assign `names`, and the image loop's read of it comes before the label
#   loop's assignment, in no loop around both)
# named: with train.py
# expect: nothing
# ----
import os
import os.path as osp

from torch.utils.data import Dataset


class CityScapes(Dataset):
    def __init__(self, rootpth, mode="train"):
        self.imgs = {}
        imgnames = []
        impth = osp.join(rootpth, "leftImg8bit", mode)
        for fd in sorted(os.listdir(impth)):
            fdpth = osp.join(impth, fd)
            im_names = sorted(os.listdir(fdpth))
            names = [el.replace("_leftImg8bit.png", "") for el in im_names]
            impths = [osp.join(fdpth, el) for el in im_names]
            imgnames.extend(names)
            self.imgs.update(dict(zip(names, impths)))

        self.labels = {}
        gtnames = []
        gtpth = osp.join(rootpth, "gtFine", mode)
        for fd in os.listdir(gtpth):
            fdpth = osp.join(gtpth, fd)
            lbnames = [el for el in os.listdir(fdpth) if "labelIds" in el]
            names = [el.replace("_gtFine_labelIds.png", "") for el in lbnames]
            lbpths = [osp.join(fdpth, el) for el in lbnames]
            gtnames.extend(names)
            self.labels.update(dict(zip(names, lbpths)))

        self.imnames = imgnames
        assert set(imgnames) == set(gtnames)

    def __len__(self):
        return len(self.imnames)

    def __getitem__(self, idx):
        name = self.imnames[idx]
        return self.imgs[name], self.labels[name]
