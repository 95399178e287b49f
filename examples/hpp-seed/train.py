import determined as det
import torch
from determined.pytorch import PyTorchTrial, PyTorchTrialContext
from torch.utils.data import DataLoader, WeightedRandomSampler


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
        # 4. 数据加载器（原始代码）
        torch.manual_seed(42)
        dataset = MyDataset()
        weights = calculate_weights(dataset)
        train_loader = DataLoader( dataset, batch_size=64, sampler=WeightedRandomSampler(weights, len(dataset), replacement=True), num_workers=8, pin_memory=True, drop_last=True )
        self.train_loader = self.context.wrap_data_loader(train_loader, hpp_config=hpp_cfg)

    def train_batch(self, batch, epoch_idx, batch_idx):
        # HPP专用前向传播
        loss = self.model(batch, hpp_mode="train")
        self.context.backward(loss)
        self.context.step_optimizer(self.optimizer)
        return {"loss": loss.item()}
