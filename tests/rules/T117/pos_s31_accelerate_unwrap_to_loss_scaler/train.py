# stagec fixture: s31 pos_accelerate_unwrap_to_loss_scaler (issue 22, class "other": truncated
#   backpropagation through a recurrent 3D model: the decoder steps run on the model Accelerate
#   unwraps, and the loss goes to a timm-style NativeScaler that runs the backward; CUT3R)
# named: on the command line (`accelerate launch --multi_gpu train.py`)
# expect:
#   T117 at 45:27 `accelerator.unwrap_model(model).decoder_step(…)` reaches `loss_scaler(…)` at
#        line 48 (the encoder pass under no_grad, detached, is not reported)
# ----
import torch
from accelerate import Accelerator


class Recurrent(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = torch.nn.Linear(16, 16)
        self.cell = torch.nn.GRUCell(16, 16)

    def encode(self, views):
        return [self.enc(v) for v in views]

    def decoder_step(self, feat, state):
        state = self.cell(feat, state)
        return state, state


class NativeScaler:
    def __init__(self):
        self._scaler = torch.cuda.amp.GradScaler()

    def __call__(self, loss, optimizer, parameters=None):
        self._scaler.scale(loss).backward()
        self._scaler.step(optimizer)
        self._scaler.update()


def train_one_epoch(model, loader, optimizer, accelerator, loss_scaler):
    for views in loader:
        with torch.no_grad():
            feats = accelerator.unwrap_model(model).encode(views)
        feats = [f.detach() for f in feats]
        state = None
        preds = []
        for i, feat in enumerate(feats):
            pred, state = accelerator.unwrap_model(model).decoder_step(feat, state)
            preds.append(pred)
        loss = sum(p.pow(2).mean() for p in preds)
        loss_scaler(loss, optimizer, parameters=model.parameters())


def main():
    accelerator = Accelerator()
    model = Recurrent()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(torch.zeros(64, 16)), batch_size=8)
    model, optimizer, loader = accelerator.prepare(model, optimizer, loader)
    for epoch in range(10):
        train_one_epoch(model, loader, optimizer, accelerator, NativeScaler())


if __name__ == "__main__":
    main()
