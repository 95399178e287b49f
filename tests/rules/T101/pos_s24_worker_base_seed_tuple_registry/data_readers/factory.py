from .base import TartanAir


def dataset_factory(dataset_list, **kwargs):
    from torch.utils.data import ConcatDataset

    dataset_map = {"tartan": (TartanAir,)}
    db_list = []
    for key in dataset_list:
        db = dataset_map[key][0](**kwargs)
        db_list.append(db)
    return ConcatDataset(db_list)
