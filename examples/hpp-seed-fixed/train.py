import determined as det
import torch
from determined.pytorch import PyTorchTrial, PyTorchTrialContext
from torch.utils.data import DataLoader, WeightedRandomSampler

from model import HybridModel


class HybridTrial(PyTorchTrial):
    def __init__(self, context: PyTorchTrialContext):
        self.context = context
        # 1. 自动加载HPP配置
        hpp_cfg = context.get_hparam("hpp_config")
        # 2. 构建HPP模型（自动注入stage信息）
        self.model = HybridModel()
        self.model = self.context.wrap_model(self.model, hpp_config=hpp_cfg)
        # 3. 创建HPP优化器（非torch.optim）
        self.optimizer = self.context.wrap_optimizer(
            HPPAdamW(self.model.parameters(), lr=context.get_hparam("lr")),
            hpp_config=hpp_cfg
        )
        # 4. 数据加载器：每个副本自己的采样流（rank // 3：同一流水线副本的3个stage共享一个流）
        # The loader below is a plain torch DataLoader that Determined must not shard.
        self.context.experimental.disable_dataset_reproducibility_checks()
        self.train_dataset = MyDataset()

    def build_training_data_loader(self):
        weights = calculate_weights(self.train_dataset)
        # The trial's seed + replica: the value `stagec exec` sets as STAGEC_DATA_SEED.
        data_seed = self.context.get_trial_seed() + self.context.distributed.get_rank() // 3
        generator = torch.Generator().manual_seed(data_seed)
        sampler = WeightedRandomSampler(weights, len(self.train_dataset), replacement=True, generator=generator)
        return DataLoader(
            self.train_dataset, batch_size=64, sampler=sampler, num_workers=4, persistent_workers=True
        )

    def build_validation_data_loader(self):
        return DataLoader(MyDataset(split="validation"), batch_size=64, num_workers=4, persistent_workers=True)

    def train_batch(self, batch, epoch_idx, batch_idx):
        # HPP专用前向传播
        loss = self.model(batch, hpp_mode="train")
        self.context.backward(loss)
        self.context.step_optimizer(self.optimizer)
        return {"loss": loss.item()}

    def evaluate_batch(self, batch, batch_idx):
        return {"validation_loss": self.model(batch, hpp_mode="eval").item()}
