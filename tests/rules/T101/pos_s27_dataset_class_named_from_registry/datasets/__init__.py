# stagec fixture: s27 pos_dataset_class_named_from_registry (the registry)
from .kitti_dataset import KITTIDataset
from .sceneflow_dataset import SceneFlowDataset

__datasets__ = {"sceneflow": SceneFlowDataset, "kitti": KITTIDataset}
