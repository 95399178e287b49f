import determined as det
from determined.pytorch import PyTorchTrial, PyTorchTrialContext


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
        # 4. 数据加载器：注入rank-aware sampler
        train_dataset = MyDataset()
        weights = calculate_weights(train_dataset)
        generator = torch.Generator().manual_seed(42 + self.context.distributed.get_rank())
        sampler = WeightedRandomSampler(weights, len(train_dataset), replacement=True, generator=generator)
        self.train_loader = self.context.wrap_data_loader(
            DataLoader(train_dataset, batch_size=64, sampler=sampler),
            hpp_config=hpp_cfg
        )

    def train_batch(self, batch, epoch_idx, batch_idx):
        # HPP专用前向传播
        loss = self.model(batch, hpp_mode="train")
        self.context.backward(loss)
        self.context.step_optimizer(self.optimizer)
        return {"loss": loss.item()}
