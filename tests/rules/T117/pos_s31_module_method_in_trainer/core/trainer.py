# stagec fixture: s31 pos_module_method_in_trainer (issue 22, class "other": a video-inpainting
#   trainer keeps its generator wrapped in DDP and trains it through a method of the wrapped
#   module; ProPainter's flow-completion trainer)
# named: with train.py
# expect:
#   T117 at 33:34 `self.netG.module.forward_bidirect_flow(…)` reaches loss.backward() at line 38
#        through the loss helper's tuple
# ----
import torch
from torch.nn.parallel import DistributedDataParallel as DDP


class FlowNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(2, 2, 3, padding=1)

    def forward_bidirect_flow(self, flows, masks):
        return self.conv(flows * masks), self.conv(flows)


class Trainer:
    def __init__(self, config):
        self.config = config
        self.netG = FlowNet().cuda()
        self.netG = DDP(self.netG, device_ids=[config["local_rank"]], output_device=config["local_rank"])
        self.optimG = torch.optim.Adam(self.netG.parameters(), lr=1e-4)

    def flow_loss(self, pred, gt):
        return (pred - gt).abs().mean(), (pred - gt).pow(2).mean()

    def train_step(self, flows, masks):
        pred_flows, pred_edges = self.netG.module.forward_bidirect_flow(flows, masks)
        self.optimG.zero_grad()
        flow_loss, warp_loss = self.flow_loss(pred_flows, flows)
        edge_loss = pred_edges.abs().mean()
        loss = flow_loss + 0.01 * warp_loss + edge_loss
        loss.backward()
        self.optimG.step()
