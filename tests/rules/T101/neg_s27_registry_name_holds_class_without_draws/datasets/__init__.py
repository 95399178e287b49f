# stagec fixture: s27 neg_registry_name_holds_class_without_draws (the registry)
from .kitti_dataset import KITTIDataset
from .sceneflow_dataset import SceneFlowDataset

__datasets__ = {"sceneflow": SceneFlowDataset, "kitti": KITTIDataset}
